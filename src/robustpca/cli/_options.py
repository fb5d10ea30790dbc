"""The argparse pieces the sub-commands share: the sub-command itself, its common options,
the error of a bad input or option, the atomic writing of the ``--out`` folder, and the
note where matplotlib (an optional dependency) is missing."""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

__all__ = [
    "InputError",
    "add_command",
    "add_folder",
    "add_seed",
    "atomic_output_dir",
    "figures_available",
    "int_at_least",
]


class InputError(ValueError):
    """The input file or folder cannot be used; the message says why and where."""


def figures_available(command: str) -> bool:
    """Whether matplotlib imports. If not, one line on stderr says that ``robustpca
    command`` writes its other outputs but no figure, and how to get the figures."""
    from ..plotting import matplotlib_installed

    if matplotlib_installed():
        return True
    print(
        f"robustpca {command}: matplotlib is not installed, so no figure is written "
        "(pip install 'robustpca[plot]').",
        file=sys.stderr,
    )
    return False


#: What a sub-command runs: ``run(args, parser)``, ``parser`` the sub-command's own (its
#: ``parser.error`` shows its usage and ``robustpca <name>: error:``), returns the exit
#: status.
Run = Callable[[argparse.Namespace, argparse.ArgumentParser], int]


def add_command(
    sub, name: str, run: Run, *, help: str, description: str
) -> argparse.ArgumentParser:
    """Add ``robustpca <name>`` to the sub-parsers ``sub``; it calls ``run(args, parser)``
    with its own parser (``args.command_parser``)."""
    parser = sub.add_parser(name, help=help, description=description)
    parser.set_defaults(run=run, command_parser=parser)
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


class atomic_output_dir:
    """Context manager: write into a temporary folder, move it to ``target`` on success.

    On an exception the temporary folder is removed, and the parent folders made for it,
    and ``target`` is left as it was, so no half-written output is ever visible. An
    existing non-empty ``target`` is replaced only when ``overwrite`` is True. An
    existing empty ``target`` is kept (the current folder, ``--out .``, included): the
    outputs are moved into it, one by one. A folder that holds the current one, or one
    of ``inputs`` (the files read), is never replaced. A folder that cannot be made is an
    :class:`InputError`, like every other bad ``--out``.
    """

    def __init__(
        self, target: str | os.PathLike, overwrite: bool = False, inputs: tuple = ()
    ) -> None:
        # absolute, "." and ".." folded (symbolic links kept: the link is the output)
        self.target = Path(os.path.abspath(target))
        self.overwrite = overwrite
        self.inputs = tuple(Path(p) for p in inputs)
        self.tmp: Path | None = None
        self.into = False  # move the outputs into the existing, empty target
        self.made: list[Path] = []  # the parent folders made, the outermost first

    def check(self) -> None:
        """Refuse a bad target before anything is read, fitted or written."""
        target = self.target
        if target.exists() and not target.is_dir():
            raise InputError(f"--out {target} exists and is not a folder")
        if not target.is_dir():
            return
        if any(target.iterdir()) and not self.overwrite:
            raise InputError(
                f"--out {target} exists and is not empty; choose another folder or pass --overwrite"
            )
        if any(target.iterdir()) and Path.cwd().is_relative_to(target):
            raise InputError(
                f"--out {target} holds the current folder, which --overwrite would "
                "delete; choose another folder"
            )
        real = target.parent.resolve() / target.name  # the link itself is what is replaced
        for path in self.inputs:
            if Path(os.path.realpath(path)).is_relative_to(real):
                raise InputError(
                    f"--out {target} holds the input {path}, which --overwrite would "
                    "delete; choose another folder"
                )

    def __enter__(self) -> Path:
        self.check()
        target = self.target
        self.into = target.is_dir() and not any(target.iterdir())
        self.made = [p for p in reversed(target.parents) if not p.exists()]
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            home = target if self.into else target.parent
            self.tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=home))
        except OSError as error:
            self._unmake()
            where = f": {error.filename}" if error.filename else ""
            raise InputError(
                f"--out {target} cannot be made ({error.strerror or error}{where})"
            ) from None
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(self.tmp, 0o777 & ~umask)  # mkdtemp makes it private; use the usual mode
        return self.tmp

    def _unmake(self) -> None:
        """Remove the parent folders made for the output (those still empty)."""
        for folder in reversed(self.made):
            try:
                folder.rmdir()
            except OSError:
                break

    def __exit__(self, exc_type, exc, tb) -> None:
        assert self.tmp is not None
        if exc_type is not None:
            shutil.rmtree(self.tmp, ignore_errors=True)
            self._unmake()
            return
        if self.into:
            for entry in sorted(self.tmp.iterdir()):
                os.replace(entry, self.target / entry.name)
            self.tmp.rmdir()
            return
        old = None
        if self.target.exists():
            old = self.target.with_name(f".{self.target.name}.old-{os.getpid()}")
            os.replace(self.target, old)
        os.replace(self.tmp, self.target)
        if old is not None and old.is_symlink():  # the link was the output, not its target
            old.unlink()
        elif old is not None:
            shutil.rmtree(old, ignore_errors=True)
