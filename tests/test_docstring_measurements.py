"""Docstrings say what and why; measurements belong in docs/ and benchmarks/ (issue 42).

A docstring line "quotes a measurement" when it holds a number with a unit of time, a
ratio, a share, a count of iterations or passes, a memory size, or the words "measured" or
"took". The numbers of a design choice go stale in the code; they are kept, with their
commands, in ``docs/design-notes/`` and ``benchmarks/``.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import robustpca

MEASUREMENT = re.compile(
    r"(\d[\d.,]*\s*(s|ms|seconds?|x|%|iterations?|passes|MB|GB|minutes?)\b)"
    r"|\bmeasured\b|\btook\b",
    re.IGNORECASE,
)
#: scikit-learn's ``sklearn.decomposition`` quotes about 0.1% by the same count.
MAX_SHARE = 0.003


def _docstring_lines(path: Path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            doc = ast.get_docstring(node, clean=False)
            if doc:
                yield from doc.splitlines()


def _count(root: Path) -> tuple[int, list[str]]:
    total, hits = 0, []
    for path in sorted(root.rglob("*.py")):
        for line in _docstring_lines(path):
            total += 1
            if MEASUREMENT.search(line):
                hits.append(f"{path.relative_to(root)}: {line.strip()}")
    return total, hits


def test_the_pattern_finds_measurements():
    assert MEASUREMENT.search("PCP took 57 s on the faces")
    assert MEASUREMENT.search("about 3.5x faster")
    assert MEASUREMENT.search("converges in 28 iterations")
    assert not MEASUREMENT.search("the 2-D estimators; equation (12) of the paper")


@pytest.mark.slow
def test_few_docstring_lines_quote_a_measurement():
    total, hits = _count(Path(robustpca.__file__).parent)
    assert total > 1000
    share = len(hits) / total
    assert share <= MAX_SHARE, (
        f"{len(hits)} of {total} docstring lines ({share:.2%}) quote a measurement; "
        "move them to docs/design-notes/ or benchmarks/:\n" + "\n".join(hits)
    )
