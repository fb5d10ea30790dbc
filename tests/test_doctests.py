"""Every Examples section in the installed package runs (doctest), whatever the install mode.

Collected here rather than with ``--doctest-modules`` so that the examples run against the
installed ``robustpca`` (a regular or an editable install), never a second copy from src/.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import robustpca

MODULES = sorted(
    name
    for _, name, _ in pkgutil.walk_packages(robustpca.__path__, prefix="robustpca.")
    if not name.endswith(".__main__")
)


@pytest.mark.parametrize("name", ["robustpca", *MODULES])
def test_module_examples(name):
    module = importlib.import_module(name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in finder.find(module, name):
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} doctest example(s) failed in {name}"


def test_examples_exist_for_every_estimator():
    for name in robustpca.ESTIMATOR_NAMES:
        doc = getattr(robustpca, name).__doc__
        assert ">>> " in doc, f"{name} has no runnable Examples section"
