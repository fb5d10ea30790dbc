"""``robustpca demo``: the methods side by side on occluded digits (no download).

``robustpca demo`` reproduces the occlusion protocol of Nie, Yuan & Huang (2014, sec.
5.1) on scikit-learn's bundled digits (no download): 20% of the images get a block of a
quarter of their area, every method is fitted on the occluded images, and the total
reconstruction error is measured against the clean images.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.exceptions import ConvergenceWarning

import robustpca

from ..datasets import load_digits_images, occlude_blocks
from ..metrics import total_reconstruction_error
from ._options import add_command, add_folder, add_seed, figures_available, int_at_least

__all__ = ["add_parser", "run"]

#: (label printed in the table, name of the estimator class in ``robustpca``)
METHODS = (
    ("PCA", "PCA"),
    ("PCA-L1", "L1PCA"),
    ("R1-PCA", "R1PCA"),
    ("PCA-L21", "L21PCA"),
    ("RPCA-OM", "OptimalMeanPCA"),
)

DEFAULT_COMPONENTS = (5, 10, 15, 20)
#: (samples, features) of the digits (:func:`robustpca.datasets.load_digits_images`),
#: known before they are loaded: ``--n-components`` is checked against it first.
DIGITS_SHAPE = (1797, 64)
FIGURE_NAME = "demo_reconstructions.png"


def _resolve_methods():
    """``[(label, estimator class)]`` for the methods of the demo."""
    return [(label, getattr(robustpca, name)) for label, name in METHODS]


def add_parser(sub) -> None:
    """Add the ``demo`` sub-command to the sub-parsers ``sub``."""
    demo = add_command(
        sub,
        "demo",
        run,
        help="compare the methods on occluded digits (no download)",
        description=(
            "Occlude 20% of scikit-learn's 8x8 digits with a block of a quarter of the "
            "image, fit each method on the occluded images, print the total reconstruction "
            "error against the clean images and save a figure of example reconstructions."
        ),
    )
    add_folder(
        demo, "--out", "folder for the figure (default: ./robustpca-demo)", default="robustpca-demo"
    )
    demo.add_argument(
        "--n-components",
        type=int_at_least(1),
        nargs="+",
        default=list(DEFAULT_COMPONENTS),
        metavar="K",
        help="subspace dimensions to compare (default: 5 10 15 20)",
    )
    add_seed(demo, "seed of the occlusion and of the estimators (default: 0)")
    demo.add_argument(
        "--n-examples",
        type=int_at_least(1),
        default=6,
        help="occluded images shown in the figure (default: 6)",
    )


def _format_table(row_labels, col_labels, cells) -> str:
    """Plain-text table: first column left-aligned, the others right-aligned."""
    first = max(len(s) for s in ["method", *row_labels])
    widths = [max(len(c), *(len(row[j]) for row in cells)) for j, c in enumerate(col_labels)]
    lines = [
        "  ".join(
            ["method".ljust(first), *(c.rjust(w) for c, w in zip(col_labels, widths, strict=True))]
        )
    ]
    for label, row in zip(row_labels, cells, strict=True):
        lines.append(
            "  ".join([label.ljust(first), *(c.rjust(w) for c, w in zip(row, widths, strict=True))])
        )
    return "\n".join(lines)


def _save_figure(path: Path, panels, image_shape, title: str) -> None:
    """One row of images per ``(label, images)`` entry of ``panels``, on a shared scale."""
    from ..plotting import plot_gallery

    fig = plot_gallery(panels, image_shape, title=title, cmap="gray_r", n_images=len(panels[0][1]))
    fig.savefig(path, dpi=100)


def _out_problem(folder: Path) -> str | None:
    """Why ``--out`` cannot become a folder (None if it can): it, or the nearest path
    above it that exists, is not a folder."""
    for path in (folder, *folder.parents):
        if path.exists():
            return None if path.is_dir() else f"{path} exists and is not a folder"
    return None


def run(args, parser: argparse.ArgumentParser) -> int:
    out = sys.stdout
    ks = sorted(set(args.n_components))
    if ks[-1] > min(DIGITS_SHAPE):  # before the digits are loaded and anything is fitted
        parser.error(
            f"--n-components must be at most {min(DIGITS_SHAPE)} for the digits "
            f"({DIGITS_SHAPE[0]} images of {DIGITS_SHAPE[1]} pixels), got {ks[-1]}"
        )
    problem = _out_problem(args.out)
    if problem is not None:  # before the work, as fit and video check theirs
        print(f"robustpca demo: error: --out {args.out}: {problem}", file=sys.stderr)
        return 1
    start = time.perf_counter()
    dataset = load_digits_images()
    clean = dataset.data
    n_samples = clean.shape[0]
    occluded, mask = occlude_blocks(
        clean,
        dataset.image_shape,
        image_fraction=0.2,
        block_fraction=0.25,
        fill="max",
        random_state=args.seed,
    )
    hit = np.flatnonzero(mask.any(axis=1))
    side = round(float(np.sqrt(mask[hit[0]].sum()))) if hit.size else 0
    h, w = dataset.image_shape
    print(
        f"robustpca {robustpca.__version__} demo: {n_samples} digits ({h}x{w}), "
        f"{hit.size} occluded ({100 * hit.size / n_samples:.0f}%) with a {side}x{side} block "
        f"set to the maximum, seed {args.seed}",
        file=out,
    )

    k_fig = ks[(len(ks) - 1) // 2]
    rng = np.random.default_rng(args.seed)
    examples = np.sort(rng.choice(hit, size=min(args.n_examples, hit.size), replace=False))

    methods = _resolve_methods()
    errors, seconds, converged, recon = {}, {}, {}, {}
    for label, cls in methods:
        for k in ks:
            estimator = cls(n_components=k, random_state=args.seed)
            tic = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                estimator.fit(occluded)
            seconds[label, k] = time.perf_counter() - tic
            converged[label, k] = bool(getattr(estimator, "converged_", True))
            reconstructed = estimator.reconstruct(occluded)
            errors[label, k] = total_reconstruction_error(reconstructed, clean)
            if k == k_fig:
                recon[label] = reconstructed[examples]

    labels = [label for label, _ in methods]
    best = {k: min((errors[label, k], label) for label in labels)[1] for k in ks}
    cols = [f"k={k}" for k in ks]

    all_converged = all(converged.values())

    def cell(label, k, value):
        # markers take a fixed width so that the decimal points stay aligned
        marks = ("*" if best[k] == label else "") + ("" if converged[label, k] else "+")
        return value + marks.ljust(1 if all_converged else 2)

    print(
        "\nTotal reconstruction error vs the clean images, sum_i ||x_rec_i - x_clean_i||_2 "
        "(lower is better)",
        file=out,
    )
    print(
        _format_table(
            labels,
            cols,
            [[cell(lb, k, f"{errors[lb, k]:.1f}") for k in ks] for lb in labels],
        ),
        file=out,
    )
    notes = "* = best in its column"
    if not all_converged:
        notes += "; + = stopped at max_iter"
    print(notes, file=out)

    print("\nFit time (seconds)", file=out)
    print(
        _format_table(
            labels,
            cols,
            [[f"{seconds[lb, k]:.3f}" for k in ks] for lb in labels],
        ),
        file=out,
    )

    if figures_available("demo"):
        try:
            args.out.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            print(
                f"robustpca demo: error: --out {args.out} cannot be made ({error.strerror})",
                file=sys.stderr,
            )
            return 1
        path = args.out / FIGURE_NAME
        panels = [("clean", clean[examples]), ("occluded", occluded[examples])]
        panels += [(label, recon[label]) for label in labels]
        _save_figure(
            path,
            panels,
            dataset.image_shape,
            f"Occluded digits reconstructed with k={k_fig} components",
        )
        print(f"\nFigure: {path}", file=out)
    print(f"Done in {time.perf_counter() - start:.1f} s.", file=out)
    return 0
