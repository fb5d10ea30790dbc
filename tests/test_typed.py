"""robustpca ships its type hints (PEP 561): without ``py.typed`` a user's mypy stopped
at ``import robustpca`` with "module is installed, but missing library stubs or
py.typed marker" and saw every robustpca object as ``Any``. CI's newest-Python lane
runs this file on the installed (not editable) package."""

from __future__ import annotations

import importlib.resources
import os
import subprocess
import sys

import pytest


def test_the_installed_package_has_the_py_typed_marker():
    marker = importlib.resources.files("robustpca").joinpath("py.typed")
    assert marker.is_file()


def test_a_users_mypy_sees_robustpcas_types(tmp_path):
    """Where mypy is installed (the lint extra): a user's script type-checks against
    the package's own hints."""
    pytest.importorskip("mypy")
    script = tmp_path / "user.py"
    script.write_text(
        "import numpy as np\n"
        "from robustpca import OnlineRobustPCA\n"
        "model = OnlineRobustPCA(n_components=2)\n"
        "model.partial_fit(np.zeros((4, 3)))\n"
        "reveal_type(model)\n",
        encoding="utf-8",
    )
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental", "--python-version", "3.11", "user.py"],
        cwd=tmp_path,
        env={k: v for k, v in os.environ.items() if not k.startswith("MYPY")},
        capture_output=True,
        text=True,
        check=False,
    )
    assert "import-untyped" not in run.stdout, run.stdout
    assert 'Revealed type is "robustpca.' in run.stdout and "OnlineRobustPCA" in run.stdout
    assert run.returncode == 0, run.stdout
