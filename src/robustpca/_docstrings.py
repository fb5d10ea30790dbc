"""Docstrings assembled from shared pieces, the same on every Python.

The shared pieces are written indented as a docstring is in the body of a class or a
module-level function: four spaces. Python 3.13 strips that indentation from docstrings
when it compiles them, and earlier versions keep it, so the pieces are fitted to the
docstring as it stands in the source (:func:`as_in_source`). Under ``python -OO``
docstrings are None, and stay None.
"""

from __future__ import annotations

from typing import overload

__all__ = ["INDENT", "as_in_source", "extended"]

#: The indentation of a docstring's lines in a class or module-level function body.
INDENT = "    "


@overload
def as_in_source(doc: str) -> str: ...
@overload
def as_in_source(doc: None) -> None: ...
def as_in_source(doc: str | None) -> str | None:
    """``doc`` with its lines after the first indented as in the source (by
    :data:`INDENT`), where the compiler stripped that indentation (Python 3.13 and
    later); unchanged where they are indented already.

    Parameters
    ----------
    doc : str or None
        A docstring of a class or a module-level function.

    Returns
    -------
    str or None
    """
    if doc is None:
        return None
    lines = doc.splitlines(keepends=True)
    body = [line for line in lines[1:] if line.strip()]
    if not body or min(len(line) - len(line.lstrip()) for line in body) > 0:
        return doc
    return lines[0] + "".join(INDENT + line if line.strip() else line for line in lines[1:])


def extended(doc: str | None, *pieces: str) -> str | None:
    """``doc`` as in the source, followed by ``pieces`` (indented as in the source).

    Parameters
    ----------
    doc : str or None
        A docstring of a class or a module-level function.
    *pieces : str
        The text to append.

    Returns
    -------
    str or None
        None where ``doc`` is (``python -OO``).
    """
    return None if doc is None else as_in_source(doc) + "".join(pieces)
