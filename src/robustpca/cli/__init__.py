"""Command-line interface of robustpca.

Sub-commands:

- ``robustpca demo``: the methods side by side on occluded digits (no download);
- ``robustpca list`` / ``robustpca reproduce NAME``: the papers' tables and figures;
- ``robustpca fit INPUT --method NAME --n-components K --out DIR``: a robust PCA of
  your own data with outlier diagnostics;
- ``robustpca video INPUT --out DIR [--method orpca|grasta|pcp|accaltproj|godec]``:
  background subtraction of a video (masks, background, preview, CDnet's measures).
"""

from __future__ import annotations

import argparse
import io
import os
import sys

import robustpca

from . import _demo, _fit, _reproduce, _video
from ._demo import FIGURE_NAME

__all__ = ["FIGURE_NAME", "main"]


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="robustpca",
        description="Robust principal component analysis with a scikit-learn API.",
    )
    parser.add_argument("--version", action="version", version=f"robustpca {robustpca.__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    _demo.add_parser(sub)
    _reproduce.add_parsers(sub)
    _fit.add_parser(sub)
    _video.add_parser(sub)
    return parser


def main(argv=None) -> int:
    """Entry point of the ``robustpca`` console script.

    Parameters
    ----------
    argv : list of str or None, default=None
        Arguments without the program name; None reads ``sys.argv[1:]``.

    Returns
    -------
    int
        Exit status: 0 on success, 1 when the input data cannot be used. ``--version``,
        ``--help`` and usage errors exit through :class:`SystemExit` as usual with
        :mod:`argparse`.
    """
    parser = _build_parser()
    args = parser.parse_args(None if argv is None else [str(a) for a in argv])
    restore = _escape_unencodable(sys.stdout)
    try:
        status = args.run(args, args.command_parser)  # its errors: its usage
        sys.stdout.flush()  # a closed pipe fails here, not in the interpreter's exit
        return status
    except BrokenPipeError:
        # the reader of stdout left (robustpca list | head): stop quietly, and point
        # stdout at nothing so that its flush at exit does not fail again
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    finally:
        restore()


def _escape_unencodable(stream):
    """Print what ``stream``'s encoding cannot show as escapes, as stderr does: row and
    column names in the report need not fit a console's code page (cp1252 on Windows,
    ASCII under the C locale, where the handler is ``surrogateescape``). Returns the
    function that puts the old handling back."""
    errors = getattr(stream, "errors", None)
    if errors not in ("strict", "surrogateescape") or not isinstance(stream, io.TextIOWrapper):
        return lambda: None
    stream.reconfigure(errors="backslashreplace")

    def restore():
        if not stream.closed:
            stream.reconfigure(errors=errors)

    return restore


if __name__ == "__main__":
    raise SystemExit(main())
