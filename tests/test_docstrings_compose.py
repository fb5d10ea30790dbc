"""Docstrings assembled from shared pieces read the same on every Python.

Two fixed bugs:
- Python 3.13 strips the indentation of docstrings when it compiles them. The shared
  pieces (``DETECTOR_ATTRIBUTES``, the convex estimators' common parameters, ...) are
  written indented by four spaces, so on 3.13 they no longer lined up with the rest of
  the docstring: numpydoc and Sphinx lost the appended Parameters and Attributes
  entries (``tests/test_docstring_parameters.py`` and ``test_docstring_attributes.py``
  failed 79 times there).
- ``python -OO`` strips docstrings, and ``__doc__ += ...`` in a class body then raised a
  ``TypeError``: ``import robustpca`` failed.
"""

from __future__ import annotations

import inspect
import subprocess
import sys
import textwrap

from robustpca._docstrings import INDENT, as_in_source, extended
from robustpca.estimators._outlier_api import DETECTOR_ATTRIBUTES, with_detector_attributes

from .test_docstring_parameters import _sections

SOURCE = """First line.

    Parameters
    ----------
    alpha : float
        The first.
    <detector attributes>
    """


def compiled_by_313(doc: str) -> str:
    """``doc`` as Python 3.13 compiles it: the common indentation of the lines after
    the first stripped, and lines of only spaces emptied."""
    first, _, rest = doc.partition("\n")
    return first + "\n" + textwrap.dedent(rest)


def test_a_313_docstring_is_indented_back_and_an_indented_one_is_kept():
    assert as_in_source(compiled_by_313(SOURCE)) == SOURCE.rstrip(" ")
    assert as_in_source(SOURCE) is SOURCE
    assert as_in_source(None) is None
    assert as_in_source("One line only.") == "One line only."
    assert as_in_source(as_in_source(compiled_by_313(SOURCE))) == SOURCE.rstrip(" ")


def test_the_pieces_line_up_on_either_python():
    """The assembled docstring parses to the same sections whether its own part was
    compiled with its indentation (3.12 and earlier) or without it (3.13)."""
    piece = f"\n{INDENT}beta : int\n{INDENT}    The second.\n"
    for own in (SOURCE, compiled_by_313(SOURCE)):
        for doc in (
            with_detector_attributes(extended(own, piece)),
            extended(with_detector_attributes(own), piece),
        ):
            sections = _sections(inspect.cleandoc(doc))
            assert sections["Parameters"] == [
                "alpha",
                "n_missing_",
                "offset_",
                "noise_variance_",
                "beta",
            ]
            assert DETECTOR_ATTRIBUTES.strip() in doc
    plain = _sections(inspect.cleandoc(with_detector_attributes(SOURCE, density=False)))
    assert plain["Parameters"] == ["alpha", "n_missing_", "offset_"]


def test_stripped_docstrings_stay_none():
    assert extended(None, "piece") is None
    assert with_detector_attributes(None) is None


def test_the_package_imports_with_its_docstrings_stripped():
    """``python -OO``: every estimator module assembles its docstring at import."""
    code = (
        "import robustpca, robustpca.datasets, robustpca.solvers;"
        "assert robustpca.PrincipalComponentPursuit.__doc__ is None;"
        "print(robustpca.GRASTA(2).fit([[0.0, 1.0], [1.0, 0.0], [1.0, 1.0]]).n_components_)"
    )
    run = subprocess.run(
        [sys.executable, "-OO", "-c", code], capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "2"
