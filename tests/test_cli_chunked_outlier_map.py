"""The outlier map of the chunked route (``_chunked._figures``): a table of at most
``MAP_POINTS`` rows is drawn whole and labelled; a larger one draws the flagged rows
farthest beyond their cutoffs (half the points at most) and a random sample of the others
drawn with ``--random-state``, so that the same command draws the same map."""

from __future__ import annotations

import numpy as np
import pytest

from robustpca import cli

pytest.importorskip("dask.dataframe")

from robustpca.cli import _chunked

from .test_cli_chunked_parity_options import planted_table


@pytest.fixture
def drawn(monkeypatch):
    """What each run passes to the map: the whole diagnostics, the drawn ones, labels."""
    runs = []
    original = _chunked._figures

    def figures(args, out, model, scan, diag, *rest):
        runs.append({"all": diag})
        return original(args, out, model, scan, diag, *rest)

    def outlier_map(out, shown, labels):
        runs[-1].update(shown=shown, labels=labels)

    monkeypatch.setattr(_chunked, "_figures", figures)
    monkeypatch.setattr(_chunked, "outlier_map", outlier_map)
    return runs


def fit(src, out, *options):
    argv = ["fit", src, "--out", out, "--method", "pca", "-k", "2", "--chunked"]
    assert cli.main([*argv, "--chunk-rows", "64", *options]) == 0


def test_a_table_of_map_points_rows_is_drawn_whole_and_labelled(tmp_path, monkeypatch, drawn):
    src = planted_table(tmp_path / "t.csv", n=300, n_out=40, top=4, labelled=False)
    monkeypatch.setattr(_chunked, "MAP_POINTS", 300)
    fit(src, tmp_path / "o")
    run = drawn[0]
    assert run["shown"].score_distances.size == 300
    assert list(run["labels"]) == [f"sample{i}" for i in range(300)]


def test_a_larger_table_draws_the_farthest_flagged_and_a_seeded_sample(
    tmp_path, monkeypatch, drawn
):
    src = planted_table(tmp_path / "t.csv", n=300, n_out=40, top=4, labelled=False)
    monkeypatch.setattr(_chunked, "MAP_POINTS", 20)
    for name in ("a", "b"):
        fit(src, tmp_path / name, "--random-state", "3")
    first, second = drawn
    full, shown = first["all"], first["shown"]
    assert int(full.outliers.sum()) > 10 and first["labels"] is False
    assert shown.score_distances.size == 20 and int(shown.outliers.sum()) == 10
    # the ten flagged rows drawn are the ten farthest beyond their cutoffs
    kept = np.sort(shown.outlyingness[shown.outliers])
    farthest = np.sort(full.outlyingness[full.outliers])[-10:]
    np.testing.assert_allclose(kept, farthest, rtol=1e-12)
    # the same command draws the same map
    np.testing.assert_array_equal(shown.score_distances, second["shown"].score_distances)
    np.testing.assert_array_equal(shown.orthogonal_distances, second["shown"].orthogonal_distances)
