"""The argparse pieces the sub-commands share: the sub-command itself and its common options."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

__all__ = ["add_command", "add_folder", "add_seed", "int_at_least"]

#: What a sub-command runs: ``run(args, parser)`` returns the exit status.
Run = Callable[[argparse.Namespace, argparse.ArgumentParser], int]


def add_command(
    sub, name: str, run: Run, *, help: str, description: str
) -> argparse.ArgumentParser:
    """Add ``robustpca <name>`` to the sub-parsers ``sub``; it calls ``run(args, parser)``."""
    parser = sub.add_parser(name, help=help, description=description)
    parser.set_defaults(run=run)
    return parser


def add_folder(
    parser: argparse.ArgumentParser,
    flag: str,
    help: str,
    *,
    default: str | None = None,
    required: bool = False,
) -> None:
    """A folder option such as ``--out`` or ``--data-home``, parsed to a :class:`Path`."""
    parser.add_argument(
        flag,
        type=Path,
        default=None if default is None else Path(default),
        required=required,
        help=help,
    )


def int_at_least(minimum: int) -> Callable[[str], int]:
    """An argparse ``type``: a whole number of at least ``minimum`` (0 or 1)."""
    kind = "a positive integer" if minimum == 1 else f"an integer >= {minimum}"
    if minimum == 0:
        kind = "a non-negative integer"

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {kind}, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"expected {kind}, got {value}")
        return value

    return parse


def add_seed(parser: argparse.ArgumentParser, help: str) -> None:
    """``--seed``, a non-negative int (NumPy's seeds), 0 by default."""
    parser.add_argument("--seed", type=int_at_least(0), default=0, help=help)
