"""Pins of ``robustpca fit``'s Parquet reader (``robustpca.cli._io.read_input``):

- a boolean column holds numbers (as a boolean ``.npy`` does): it is fitted as 0.0 and
  1.0, not refused as "not a number" (binary indicators are common in such tables),
  whether pandas reads it back as NumPy's ``bool`` or as pyarrow's ``bool[pyarrow]``
  (a table written from a frame with pyarrow dtypes; pandas does not count that one
  as numeric, so the reader must ask for booleans itself);
- the row labels taken from ``--index-col`` are stripped of surrounding spaces, as a
  CSV table's are, so that the outputs name the rows alike whatever the input's format.
"""

import numpy as np
import pytest

from robustpca.cli._io import read_input

pd = pytest.importorskip("pandas")
pytest.importorskip("pyarrow")


@pytest.mark.parametrize("dtype", ["bool", "bool[pyarrow]"])
def test_a_boolean_parquet_column_is_fitted_as_zeros_and_ones(tmp_path, dtype):
    path = tmp_path / "t.parquet"
    flags = pd.Series([True, False, True], dtype=dtype)
    pd.DataFrame({"flag": flags, "g": [1.0, 2.0, 4.0]}).to_parquet(path)
    assert str(pd.read_parquet(path)["flag"].dtype) == dtype
    data = read_input(path)
    assert data.feature_names == ["flag", "g"]
    np.testing.assert_array_equal(data.X, [[1.0, 1.0], [0.0, 2.0], [1.0, 4.0]])


@pytest.mark.parametrize("chunked", [False, True])
def test_a_boolean_column_with_nulls_written_by_pyarrow_is_fitted(tmp_path, chunked):
    """A boolean column with a null, written by pyarrow without pandas' metadata (Spark,
    polars), reads back as objects (True, None, False): it is fitted as 0/1 with the
    null missing, on both routes, as the same column written by pandas is. It had been
    refused as "holds 'True', which is not a number"."""
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    from robustpca import cli

    path = tmp_path / "t.parquet"
    n = 30
    flags = [None if i == 3 else bool(i % 2) for i in range(n)]
    values = np.sin(np.arange(n)) + np.arange(n) / 7
    pq.write_table(pa.table({"flag": pa.array(flags), "g": values, "h": 2 * values}), path)
    assert pd.read_parquet(path)["flag"].dtype == object  # the case under test
    out = tmp_path / "out"
    argv = ["fit", path, "--out", out, "--method", "pca", "-k", "1", "--no-figures"]
    assert cli.main([*argv, "--chunked" if chunked else "--chunked-above=never"]) == 0
    summary = (out / "summary.json").read_text()
    assert '"n_missing": 1' in summary and '"n_features": 3' in summary


def test_parquet_index_col_labels_are_stripped_as_csv_ones(tmp_path):
    labels = [" a ", "b  ", "\tc"]
    values = [[1.0, 1.0], [2.0, 0.0], [4.0, 3.0]]
    frame = pd.DataFrame({"id": labels, "g": [v[0] for v in values], "h": [v[1] for v in values]})
    frame.to_parquet(tmp_path / "t.parquet")
    lines = [f"{s},{g},{h}\n" for s, (g, h) in zip(labels, values, strict=True)]
    (tmp_path / "t.csv").write_text("id,g,h\n" + "".join(lines))
    parquet = read_input(tmp_path / "t.parquet", index_col="id")
    table = read_input(tmp_path / "t.csv", index_col="id")
    assert parquet.sample_names == table.sample_names == ["a", "b", "c"]
    np.testing.assert_array_equal(parquet.X, table.X)
