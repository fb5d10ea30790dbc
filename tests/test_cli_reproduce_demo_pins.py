"""Pins of ``robustpca list``, ``robustpca reproduce`` and ``robustpca demo`` that
tests/test_cli.py and tests/test_cli_reproduce.py leave open.

``reproduce``: every option reaches :func:`~robustpca.experiments.run_experiment`
(``--seed``, ``--n-jobs -1``, ``--no-progress``); ``--n-jobs 0`` is a usage error;
``all --datasets`` skips the synthetic exhibits; a failing exhibit is a one-line error
and exit status 1. ``list``: "data: synthetic" and the notes only with ``--verbose``.

``demo`` (the README's Quick start): the header says what the occlusion is (20%, a
quarter-size block); the columns are the sorted distinct ``--n-components``, up to the
pixel count; every printed error is the library's and the star marks the lowest; the
figure shows occluded images and reconstructions at the ``k`` of its title; a nested
``--out`` is made.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

import robustpca
from robustpca import cli, experiments
from robustpca.cli import _build_parser
from robustpca.datasets import load_digits_images, occlude_blocks
from robustpca.metrics import total_reconstruction_error

FAST = "ohkwak-figure1"


@pytest.fixture
def fake_runs(monkeypatch) -> list[tuple[str, dict]]:
    """Replace run_experiment: record (name, options), return a stub result."""
    runs: list[tuple[str, dict]] = []

    def fake(name, **options):
        runs.append((name, options))
        return SimpleNamespace(markdown=f"# table of {name}", files=[], seconds=0.0)

    monkeypatch.setattr(experiments, "run_experiment", fake)
    return runs


def test_reproduce_passes_every_option_on(tmp_path, capsys, fake_runs):
    home = tmp_path / "data"
    argv = ["reproduce", FAST, "--quick", "--seed", "3", "--n-jobs", "-1", "--out", tmp_path]
    assert cli.main([*argv, "--data-home", home, "--no-progress"]) == 0
    ((name, options),) = fake_runs
    assert name == FAST
    assert options == {"datasets": None, "quick": True, "out": tmp_path, "n_jobs": -1,
                       "seed": 3, "data_home": home, "progress": False}  # fmt: skip
    assert f"# table of {FAST}" in capsys.readouterr().out
    fake_runs.clear()
    assert cli.main(["reproduce", FAST, "--out", tmp_path]) == 0
    ((_, options),) = fake_runs
    assert options["n_jobs"] == 1 and options["seed"] == 0 and options["progress"] is True


def test_reproduce_writes_into_a_folder_that_holds_other_results(tmp_path, fake_runs):
    """docs/reproduction runs every paper into one ``--out`` folder: a non-empty folder
    is written into, file by file (``fit``'s "not empty" refusal does not apply)."""
    (tmp_path / "nie2014-table1.md").write_text("an earlier result")
    assert cli.main(["reproduce", FAST, "--out", tmp_path]) == 0
    assert [n for n, _ in fake_runs] == [FAST]


def test_reproduce_n_jobs_zero_is_a_usage_error(tmp_path, capsys, fake_runs):
    with pytest.raises(SystemExit) as info:
        cli.main(["reproduce", FAST, "--n-jobs", "0", "--out", tmp_path])
    assert info.value.code == 2 and "--n-jobs" in capsys.readouterr().err
    assert fake_runs == []


def test_reproduce_all_with_datasets_skips_the_synthetic_exhibits(tmp_path, capsys, fake_runs):
    assert cli.main(["reproduce", "all", "--datasets", "orl", "--out", tmp_path]) == 0
    synthetic = sorted(n for n, e in experiments.EXPERIMENTS.items() if not e.datasets)
    assert FAST in synthetic
    assert [n for n, _ in fake_runs] == sorted(set(experiments.EXPERIMENTS) - set(synthetic))
    assert all(options["datasets"] == ["orl"] for _, options in fake_runs)
    assert f"Skipping {', '.join(synthetic)}" in capsys.readouterr().out


def test_reproduce_a_refused_run_is_a_one_line_error(tmp_path, capsys):
    """A synthetic exhibit given --datasets: run_experiment refuses it (ValueError) before
    any task; the command says so in one line and exits 1."""
    assert cli.main(["reproduce", FAST, "--datasets", "orl", "--out", tmp_path]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"robustpca reproduce {FAST}: error: datasets") and "Traceback" not in err
    assert list(tmp_path.iterdir()) == []


def test_list_says_synthetic_and_shows_notes_only_when_verbose(capsys):
    exhibit = experiments.EXPERIMENTS[FAST]
    assert cli.main(["list"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    first = next(i for i, ln in enumerate(lines) if ln.startswith(FAST + " "))
    block = [ln.strip() for ln in lines[first + 1 :]]
    block = block[: next(i for i, ln in enumerate(lines[first + 1 :]) if not ln.startswith(" "))]
    assert "data: synthetic" in block
    head = exhibit.notes[:30]
    assert head not in " ".join(out.split())
    assert cli.main(["list", "--verbose"]) == 0
    assert head in " ".join(capsys.readouterr().out.split())
    # the names are padded so that every paper starts in the same column
    starts = {
        line.index(e.paper)
        for line in out.splitlines()
        for e in experiments.EXPERIMENTS.values()
        if line.startswith(e.name + " ")
    }
    assert len(starts) == 1


def test_demo_defaults_are_those_of_its_help():
    args = _build_parser().parse_args(["demo"])
    assert args.n_components == [5, 10, 15, 20] and args.n_examples == 6


@pytest.fixture
def pca_only(monkeypatch):
    """The demo with PCA alone (fast), its figure captured instead of drawn."""
    saved: list[dict] = []

    def capture(path, panels, image_shape, title):
        saved.append({"path": path, "panels": dict(panels), "title": title})

    monkeypatch.setattr(cli._demo, "METHODS", (("PCA", "PCA"),))
    monkeypatch.setattr(cli._demo, "_save_figure", capture)
    return saved


def _error_rows(text: str) -> list[str]:
    lines = text.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith("Total reconstruction"))
    end = next(i for i in range(start, len(lines)) if lines[i].startswith("* = best"))
    return lines[start + 1 : end]


def test_demo_header_and_columns(tmp_path, capsys, pca_only):
    """20% of the 1,797 digits get a 4x4 block (a quarter of 8x8); the columns are the
    sorted distinct k, and k may be the pixel count (64)."""
    argv = ["demo", "--out", tmp_path, "--n-components", "64", "2", "64", "--n-examples", "2"]
    assert cli.main(argv) == 0
    out = capsys.readouterr().out
    assert "1797 digits (8x8), 359 occluded (20%) with a 4x4 block set to the maximum" in out
    assert _error_rows(out)[0].split() == ["method", "k=2", "k=64"]


def test_demo_figure_shows_occluded_examples_at_the_title_k(tmp_path, capsys, pca_only):
    assert cli.main(["demo", "--out", tmp_path, "--n-components", "2", "4", "6",
                     "--n-examples", "3", "--seed", "1"]) == 0  # fmt: skip
    ((fig,),) = [pca_only]
    panels = fig["panels"]
    clean, occluded = panels["clean"], panels["occluded"]
    assert clean.shape == (3, 64)
    assert np.all(np.any(clean != occluded, axis=1))  # every example is occluded
    k = int(fig["title"].split("k=")[1].split()[0])
    d = load_digits_images()
    Xo, _ = occlude_blocks(d.data, d.image_shape, random_state=1)
    same = (d.data[None] == clean[:, None]).all(-1) & (Xo[None] == occluded[:, None]).all(-1)
    rows = [int(np.flatnonzero(s)[0]) for s in same]
    np.testing.assert_array_equal(occluded, Xo[rows])
    pca = robustpca.PCA(n_components=k, random_state=1).fit(Xo)
    np.testing.assert_allclose(panels["PCA"], pca.reconstruct(Xo)[rows], atol=1e-8)


def test_demo_shows_every_occluded_image_when_asked_for_more(tmp_path, capsys, pca_only):
    argv = ["demo", "--out", tmp_path, "--n-components", "2", "--n-examples", "1000"]
    assert cli.main(argv) == 0
    assert pca_only[0]["panels"]["occluded"].shape == (359, 64)


def test_demo_makes_a_nested_out_folder(tmp_path, capsys, pca_only):
    out = tmp_path / "a" / "b"
    assert cli.main(["demo", "--out", out, "--n-components", "2", "--n-examples", "1"]) == 0
    assert out.is_dir() and pca_only[0]["path"] == out / cli.FIGURE_NAME


def test_demo_errors_are_the_librarys_and_the_star_marks_the_lowest(tmp_path, capsys, monkeypatch):
    """Each method at each k, fitted with random_state = --seed on the occluded digits,
    scored against the clean ones; one star per column, on its lowest error; the
    "stopped at max_iter" legend only with a "+" cell; decimal points aligned."""
    monkeypatch.setattr(cli._demo, "_save_figure", lambda *args: None)
    argv = ["demo", "--out", tmp_path, "--n-components", "2", "--seed", "2", "--n-examples", "1"]
    assert cli.main(argv) == 0
    text = capsys.readouterr().out
    table = _error_rows(text)
    d = load_digits_images()
    Xo, _ = occlude_blocks(d.data, d.image_shape, random_state=2)
    printed, expected = {}, {}
    for label, name in cli._demo.METHODS:
        (line,) = [ln for ln in table if ln.split()[0] == label]
        printed[label] = line.split()[1]
        model = getattr(robustpca, name)(n_components=2, random_state=2).fit(Xo)
        expected[label] = total_reconstruction_error(model.reconstruct(Xo), d.data)
    for label in printed:
        assert float(printed[label].rstrip("*+")) == pytest.approx(expected[label], abs=0.051)
    assert [lb for lb, v in printed.items() if v.endswith("*")] == [min(expected, key=expected.get)]
    # the legend of "+" only when a cell carries it; decimal points aligned in a column
    assert ("+ = stopped" in text) == any(v.endswith("+") for v in printed.values())
    assert len({ln.index(".") for ln in table[1:]}) == 1
