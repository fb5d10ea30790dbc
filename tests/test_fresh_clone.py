"""The real-data tests on a fresh clone anywhere (issue 42): no local data, a local mirror.

A fresh clone of the committed repository (``git clone`` into a temporary folder, so no
``../shared/data`` beside it) runs a selection of the real-data tests in a subprocess,
on the clone's own ``src/`` (``PYTHONPATH``), with ``ROBUSTPCA_DATA`` unset, an empty
download cache and ``ROBUSTPCA_MIRROR`` pointing at conftest's ``data_mirror``: a
``http.server`` on 127.0.0.1 serving the real data in the fetchers' layout. The data
fixtures must download what the tests read through the package's fetchers (pooch, with
the pinned checksums) and the tests pass. With the mirror gone they must fail, saying how
to get the data, and never skip. Select with ``-m fresh_clone``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import REPO

pytestmark = [pytest.mark.realdata, pytest.mark.fresh_clone]

#: What the clone runs: the pinned image folders of two repositories (ORL's and Yale's
#: originals, UMIST, COIL-20), the .mat image sets, rrcov's committed tables, and the
#: fetch tests that check every downloaded file against its pin.
SELECTION = (
    "tests/test_datasets.py",
    "tests/test_yale_loader.py",
    "tests/test_dataset_loaders.py::test_umist_matches_original_pgm",
    "tests/test_dataset_loaders.py::test_coil20_matches_original_png",
    "tests/test_dataset_loaders.py::test_mnist_subset_matches_test_set",
    "tests/test_robpca.py",
    "tests/test_fetch.py::test_pinned_files_match_the_data_folder",
    "tests/test_fetch.py::test_pinned_folders_match_the_data_folder",
    "tests/test_fetch.py::test_committed_rrcov_tables_are_the_documented_ones",
)


@pytest.fixture(scope="module")
def clone(tmp_path_factory) -> Path:
    """The committed repository cloned into an empty temporary folder (or, outside a git
    checkout, its tree copied without build outputs and caches)."""
    dest = tmp_path_factory.mktemp("fresh") / "robustpca"
    if (REPO / ".git").exists() and shutil.which("git"):
        subprocess.run(["git", "clone", "--quiet", str(REPO), str(dest)], check=True)
    else:
        shutil.copytree(
            REPO,
            dest,
            ignore=shutil.ignore_patterns(
                ".git", ".venv*", "build", "dist", "__pycache__", ".*cache", ".hypothesis"
            ),
        )
    assert not (dest.parent / "shared").exists()  # no ../shared/data beside the clone
    return dest


def _environment(clone: Path, cache: Path, mirror_url: str) -> dict[str, str]:
    """This environment without ROBUSTPCA_* and pytest's own variables, on the clone's
    src/, with an empty cache and the mirror."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("ROBUSTPCA_", "PYTEST_", "COV_CORE_"))
    }
    env["PYTHONPATH"] = os.pathsep.join(
        [str(clone / "src"), *filter(None, [os.environ.get("PYTHONPATH")])]
    )
    env["ROBUSTPCA_CACHE"] = str(cache)  # the fetchers' cache: empty
    env["ROBUSTPCA_MIRROR"] = mirror_url
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def _run(clone: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, *args], cwd=clone, env=env, capture_output=True, text=True, timeout=900
    )


def test_real_data_tests_pass_on_a_fresh_clone_from_the_mirror(clone, data_mirror, tmp_path):
    cache = tmp_path / "cache"
    env = _environment(clone, cache, data_mirror.url)
    where = _run(clone, env, "-c", "import robustpca; print(robustpca.__file__)")
    assert Path(where.stdout.strip()).is_relative_to(clone / "src"), where.stdout + where.stderr
    data_mirror.requests.clear()
    args = ("-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "realdata and not fresh_clone")
    run = _run(clone, env, *args, *SELECTION)
    report = run.stdout[-6000:] + run.stderr[-3000:]
    assert run.returncode == 0, report
    assert " passed" in run.stdout and "skipped" not in run.stdout, report
    # everything came from the mirror, into the empty cache, in the data folder's layout
    for path in ("/orl/ORL_32x32.mat", "/orl/orl_faces/s40/10.pgm", "/yale/yalefaces/Readme.txt"):
        assert path in data_mirror.requests, path
    assert (cache / "raw" / "umist" / "UMist" / "t34.pgm").is_file()
    assert sorted(p.name for p in (cache / "rrcov").iterdir()) == sorted(
        p.name for p in (clone / "tests" / "fixtures" / "rrcov").iterdir()
    )


def test_offline_without_data_fails_and_says_how_to_get_it(clone, tmp_path):
    dead = subprocess.run(  # a port nothing listens on: what offline looks like
        [sys.executable, "-c", "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0));"
         "print(s.getsockname()[1])"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    env = _environment(clone, tmp_path / "cache", f"http://127.0.0.1:{dead}")
    test = "tests/test_datasets.py::test_orl_versions_are_upright_and_aligned"
    run = _run(clone, env, "-m", "pytest", "-q", "-p", "no:cacheprovider", test)
    assert run.returncode != 0
    assert "1 error" in run.stdout and "skipped" not in run.stdout, run.stdout[-3000:]
    for hint in ("Real data not found", "ROBUSTPCA_MIRROR", "ROBUSTPCA_DATA to a copy"):
        assert hint in run.stdout, run.stdout[-3000:]
