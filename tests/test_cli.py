"""The ``robustpca`` command line: ``--version`` and the occlusion demo."""

from __future__ import annotations

import subprocess
import sys
import warnings

import pytest
from sklearn.exceptions import ConvergenceWarning

import robustpca
from robustpca import cli

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _error_table(text: str) -> list[str]:
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("Total reconstruction"))
    end = next(i for i in range(start, len(lines)) if lines[i].startswith("* = best"))
    return lines[start + 1 : end]


def test_version(capsys):
    with pytest.raises(SystemExit) as info:
        cli.main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out.strip() == f"robustpca {robustpca.__version__}"


def test_python_dash_m_runs_the_command_line():
    """``python -m robustpca`` is the ``robustpca`` script."""
    done = subprocess.run(
        [sys.executable, "-m", "robustpca", "--version"], capture_output=True, text=True
    )
    assert done.returncode == 0 and done.stdout.strip() == f"robustpca {robustpca.__version__}"


def test_a_closed_pipe_ends_quietly():
    """``robustpca list | head``: the reader leaves early; no traceback."""
    code = (
        "import os, sys; from robustpca import cli; r, w = os.pipe(); os.close(r); "
        "os.dup2(w, 1); sys.exit(cli.main(['list']))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 1 and "Traceback" not in done.stderr and "Error" not in done.stderr


def test_no_command_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as info:
        cli.main([])
    assert info.value.code == 2
    assert "usage" in capsys.readouterr().err


@pytest.mark.parametrize("command", [[], ["demo"], ["list"], ["reproduce"], ["fit"]])
def test_help_texts_print_single_percent_signs(command, capsys):
    """argparse expands ``%%`` in argument help, not in a description: the demo's said
    "Occlude 20%% of"."""
    with pytest.raises(SystemExit) as info:
        cli.main([*command, "--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    assert "%%" not in out and "%(" not in out
    if command == ["demo"]:
        assert "Occlude 20% of" in " ".join(out.split())


@pytest.mark.parametrize("ks", [["0"], ["65"], ["x"]])
def test_bad_n_components(ks, tmp_path, capsys):
    with pytest.raises(SystemExit) as info:
        cli.main(["demo", "--out", tmp_path, "--n-components", *ks])
    assert info.value.code == 2
    assert "n-components" in capsys.readouterr().err


@pytest.mark.slow
def test_demo_prints_table_and_writes_png(tmp_path, capsys):
    out = tmp_path / "demo"
    assert (
        cli.main(
            ["demo", "--out", out, "--n-components", "2", "4", "--seed", "1", "--n-examples", "3"]
        )
        == 0
    )
    text = capsys.readouterr().out
    assert "359 occluded" in text  # round(0.2 * 1797)
    table = _error_table(text)
    assert table[0].split() == ["method", "k=2", "k=4"]
    rows = {line.split()[0]: line.split()[1:] for line in table[1:]}
    assert set(rows) == {"PCA", "PCA-L1", "R1-PCA", "PCA-L21", "RPCA-OM"}
    stars = sum(cell.count("*") for cells in rows.values() for cell in cells)
    assert stars == 2  # one best per column
    for label in ("PCA", "RPCA-OM"):
        assert all(float(c.rstrip("*+")) > 0 for c in rows[label])
    assert "Fit time (seconds)" in text
    png = out / cli.FIGURE_NAME
    assert png.read_bytes()[:8] == PNG_SIGNATURE
    assert str(png) in text


def test_demo_errors_match_the_library(tmp_path, capsys):
    """The printed PCA error is the total reconstruction error against clean images."""
    from robustpca.datasets import load_digits_images, occlude_blocks
    from robustpca.metrics import total_reconstruction_error

    cli.main(["demo", "--out", tmp_path, "--n-components", "3", "--seed", "5"])
    rows = {line.split()[0]: line.split()[1:] for line in _error_table(capsys.readouterr().out)[1:]}
    d = load_digits_images()
    Xo, _ = occlude_blocks(d.data, d.image_shape, random_state=5)
    pca = robustpca.PCA(n_components=3, random_state=5).fit(Xo)
    expected = total_reconstruction_error(pca.reconstruct(Xo), d.data)
    assert float(rows["PCA"][0].rstrip("*+")) == pytest.approx(expected, abs=0.051)


class _SlowToConvergePCA(robustpca.PCA):
    """Warns like an iterative method stopped at max_iter."""

    def fit(self, X, y=None):
        super().fit(X)
        self.converged_ = False
        warnings.warn("stopped at max_iter", ConvergenceWarning, stacklevel=2)
        return self


def test_unconverged_methods_are_marked(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(robustpca, "_SlowToConvergePCA", _SlowToConvergePCA, raising=False)
    monkeypatch.setattr(cli._demo, "METHODS", (("PCA", "PCA"), ("Slow", "_SlowToConvergePCA")))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert cli.main(["demo", "--out", tmp_path, "--n-components", "2"]) == 0
    assert not [w for w in caught if issubclass(w.category, ConvergenceWarning)]
    text = capsys.readouterr().out
    rows = {line.split()[0]: line.split()[1:] for line in _error_table(text)[1:]}
    assert rows["Slow"][0].endswith("+")
    assert "+ = stopped at max_iter" in text
    assert (tmp_path / cli.FIGURE_NAME).read_bytes()[:8] == PNG_SIGNATURE


@pytest.mark.slow
def test_demo_out_that_cannot_be_a_folder_is_a_one_line_error(tmp_path, capsys):
    """--out on a file, or under one, fails before the work with one line (it was a
    FileExistsError traceback after the whole demo)."""
    afile = tmp_path / "afile"
    afile.write_text("x")
    for out in (afile, afile / "below"):
        assert cli.main(["demo", "--out", out, "--n-components", "2"]) == 1
        err = capsys.readouterr().err
        assert "is not a folder" in err and "Traceback" not in err


def test_demo_is_deterministic_given_the_seed(tmp_path, capsys):
    args = ["demo", "--out", tmp_path, "--n-components", "2", "--seed", "3"]
    cli.main(args)
    first = _error_table(capsys.readouterr().out)
    cli.main(args)
    assert _error_table(capsys.readouterr().out) == first


@pytest.mark.slow
def test_module_entry_point(tmp_path):
    """``python -m robustpca.cli`` runs the demo. One interpreter only: each start costs
    about 3.5 s here (importing scikit-learn), and ``test_version`` covers ``--version``."""
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "robustpca.cli",
            "demo",
            "--out",
            str(tmp_path),
            "--n-components",
            "2",
            "--n-examples",
            "2",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "RPCA-OM" in proc.stdout
    assert (tmp_path / cli.FIGURE_NAME).read_bytes()[:8] == PNG_SIGNATURE
