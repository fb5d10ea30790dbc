"""The README's Python examples run, and the Quick start is the one CI executes."""

from __future__ import annotations

import re

import numpy as np

from .conftest import REPO


def test_readme_python_examples_run():
    text = (REPO / "README.md").read_text()
    namespace: dict = {}
    for block in re.findall(r"```python\n(.*?)```", text, re.S):
        exec(compile(block, "README.md", "exec"), namespace)
    model = namespace["model"]
    assert model.weights_[:75].max() < model.weights_[75:].min()
    assert np.all(np.diff(model.objective_history_) <= 0)
    diag = namespace["diag"]
    assert diag.outliers[:75].all() and diag.outliers[75:].mean() < 0.05


def test_quick_start_has_two_commands_and_ci_runs_the_test_one():
    text = (REPO / "README.md").read_text()
    quick = text.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    commands = re.findall(r"```bash\n(.*?)\n```", quick, re.S)
    assert commands == [
        'pip install ".[plot]" && robustpca demo',
        'pip install ".[test]" && python -m pytest -q',
    ]
    assert "test-command" in (REPO / ".ci" / "run").read_text()
