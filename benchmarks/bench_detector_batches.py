"""The streaming foreground rule against its batch size.

Usage (from the repository root)::

    python benchmarks/bench_detector_batches.py                 # highway300 and fall
    python benchmarks/bench_detector_batches.py --clips traffic  # fetched with its checksums

The clips of ``bench_online_missing.py`` (grey). OR-PCA at its defaults
(``random_state=0``) splits each clip by ``partial_fit_decompose`` in batches of
``--split`` frames; :class:`robustpca.foreground_stream.ForegroundDetector` then judges
the residual in batches of each size of ``--batches``, and
:func:`robustpca.foreground.foreground_masks` judges it all at once. The first batch sets
each pixel's noise scale (its median residual over that batch), so an object that covers
a pixel in more than half of the first batch's frames raises the scale there. Prints the
F-measure over the clip and over its first 32 frames (``-`` where they show no motion).
Nothing is asserted: a measurement, not a test.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _harness import markdown_table
from bench_online_missing import CLIPS, load

HEAD = 32


def _f(clip, masks, frames=slice(None)) -> float | None:
    """The F-measure over ``frames``; None where their scored frames hold no motion."""
    from robustpca.metrics import change_detection_measures

    scored = None if clip.scored is None else clip.scored[frames]
    motion = clip.labels[frames] >= 170  # CDnet's motion label is 255
    if not np.any(motion if scored is None else motion[scored]):
        return None
    measures = change_detection_measures(
        masks[frames], clip.labels[frames], clip.roi, scored=scored
    )
    return float(measures["f_measure"])


def measure(name: str, split: int, batches: list[int]) -> list[dict]:
    from robustpca import OnlineRobustPCA
    from robustpca.foreground import foreground_masks
    from robustpca.foreground_stream import ForegroundDetector

    clip = load(name)
    frames = clip.frames
    rows = frames.reshape(len(frames), -1)
    model = OnlineRobustPCA(random_state=0)
    low = [model.partial_fit_decompose(rows[s : s + split])[0] for s in range(0, len(rows), split)]
    residual = (frames - np.concatenate(low).reshape(frames.shape)).astype(np.float32)
    out = []
    for size in batches:
        detector = ForegroundDetector()
        masks = np.concatenate(
            [detector.update(residual[s : s + size]) for s in range(0, len(residual), size)]
        )
        out.append({"clip": name, "detector batch": size, "F": _f(clip, masks),
                    f"F first {HEAD}": _f(clip, masks, slice(0, HEAD))})  # fmt: skip
    masks = foreground_masks(residual)
    out.append({"clip": name, "detector batch": "all (batch rule)", "F": _f(clip, masks),
                f"F first {HEAD}": _f(clip, masks, slice(0, HEAD))})  # fmt: skip
    return out


def _cell(value) -> str:
    return "-" if value is None else f"{value:.3f}" if isinstance(value, float) else str(value)


def main(argv=None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clips", nargs="+", default=["highway300", "fall"], choices=list(CLIPS))
    parser.add_argument("--split", type=int, default=64, help="frames per batch of the split")
    parser.add_argument("--batches", type=int, nargs="+", default=[32, 64, 100, 150])
    args = parser.parse_args(argv)
    rows = [row for name in args.clips for row in measure(name, args.split, args.batches)]
    headers = list(rows[0])
    cells = [[_cell(v) for v in row.values()] for row in rows]
    print(markdown_table(headers, cells))
    return rows


if __name__ == "__main__":
    main()
