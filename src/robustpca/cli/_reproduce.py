"""``robustpca list`` and ``robustpca reproduce``: the papers' exhibits from the shell."""

from __future__ import annotations

import argparse
import sys
import textwrap
import warnings

from ._options import (
    InputError,
    add_command,
    add_folder,
    add_seed,
    atomic_output_dir,
    figures_available,
)

__all__ = ["add_parsers"]

#: The options of ``reproduce`` passed on to :func:`~robustpca.experiments.run_experiment`.
_RUN_OPTIONS = ("datasets", "quick", "out", "n_jobs", "seed", "data_home")


def add_parsers(sub) -> None:
    """Add the ``list`` and ``reproduce`` sub-commands."""
    listing = add_command(
        sub,
        "list",
        run_list,
        help="list the reproducible experiments",
        description="List every registered experiment: its name, paper, exhibit and data.",
    )
    listing.add_argument("--verbose", "-v", action="store_true", help="also print the notes")

    rep = add_command(
        sub,
        "reproduce",
        run_reproduce,
        help="run a table or figure of the papers",
        description=(
            "Run the protocol of one or more exhibits (see `robustpca list`; 'all' runs "
            "every one) and write <name>.csv (tidy rows), <name>.md (the table with the "
            "paper's numbers) and <name>.png (the figure) to --out."
        ),
    )
    rep.add_argument("names", nargs="+", metavar="NAME", help="experiment name(s), or 'all'")
    rep.add_argument(
        "--datasets",
        nargs="+",
        metavar="SPEC",
        help="data sets to run, e.g. orl yale:64x64 (default: the experiment's own)",
    )
    rep.add_argument("--quick", action="store_true", help="a small smoke run of the protocol")
    add_folder(
        rep, "--out", "output folder (default: ./robustpca-results)", default="robustpca-results"
    )
    rep.add_argument(
        "--n-jobs",
        type=int,
        default=1,
        metavar="N",
        help="worker processes (-1: all cores; default 1)",
    )
    add_seed(rep, "base seed (default 0)")
    add_folder(rep, "--data-home", "folder holding raw/<dataset>/... (default: $ROBUSTPCA_DATA)")
    rep.add_argument("--no-progress", action="store_true", help="hide the progress bar")


def run_list(args, parser: argparse.ArgumentParser) -> int:
    from ..experiments import list_experiments

    out = sys.stdout
    experiments = list_experiments()
    width = max(len(e.name) for e in experiments)
    for e in experiments:
        print(f"{e.name.ljust(width)}  {e.paper}, {e.exhibit}", file=out)
        indent = " " * (width + 2)
        print(
            textwrap.fill(e.summary, 100, initial_indent=indent, subsequent_indent=indent), file=out
        )
        print(f"{indent}data: {', '.join(e.datasets) or 'synthetic'}", file=out)
        if args.verbose and e.notes:
            print(
                textwrap.fill(e.notes, 100, initial_indent=indent, subsequent_indent=indent),
                file=out,
            )
    return 0


def run_reproduce(args, parser: argparse.ArgumentParser) -> int:
    from ..experiments import EXPERIMENTS, run_experiment

    every = "all" in args.names  # with other names too: each experiment once
    names = sorted(EXPERIMENTS) if every else list(dict.fromkeys(args.names))
    unknown = [n for n in args.names if n not in EXPERIMENTS and n != "all"]
    if unknown:
        parser.error(
            f"unknown experiment(s) {', '.join(unknown)}; run `robustpca list` for the names"
        )
    if args.n_jobs == 0 or args.n_jobs < -1:
        parser.error(f"--n-jobs must be a positive integer or -1, got {args.n_jobs}")
    try:  # a bad --out before any work; an existing folder is written into, file by file
        if not args.out.is_dir():
            atomic_output_dir(args.out).check()
    except InputError as error:
        print(f"robustpca reproduce: error: {error}", file=sys.stderr)
        return 1
    if every and args.datasets:
        synthetic = [n for n in names if not EXPERIMENTS[n].datasets]
        names = [n for n in names if EXPERIMENTS[n].datasets]
        if synthetic:
            print(f"Skipping {', '.join(synthetic)}: synthetic data, no --datasets.\n")
    options = {key: getattr(args, key) for key in _RUN_OPTIONS}
    figures_available("reproduce")  # said once, not by every run's warning
    for name in names:
        try:
            with warnings.catch_warnings():
                warnings.filterwarnings("ignore", "matplotlib is not installed", UserWarning)
                result = run_experiment(name, progress=not args.no_progress, **options)
        except (OSError, ValueError) as error:  # a missing file or a failed download too
            print(f"robustpca reproduce {name}: error: {error}", file=sys.stderr)
            return 1
        print(result.markdown)
        print(f"Wrote {', '.join(str(f) for f in result.files)} in {result.seconds:.1f} s.\n")
    return 0
