"""Online background subtraction with pixels missing: OR-PCA against GRASTA.

Usage (from the repository root)::

    python benchmarks/bench_online_missing.py                  # highway300 and fall
    python benchmarks/bench_online_missing.py --quick          # 100 frames of highway
    python benchmarks/bench_online_missing.py --json gaps.json
    python benchmarks/bench_online_missing.py --clips traffic  # fetched with its checksums
    python benchmarks/bench_online_missing.py --gaps none random80 random90  # sparse samples

The clips of ``bench_video.py`` (CDnet 2014 highway frames 1050-1349 at half size, fall
at a quarter; grey), with pixels removed (NaN) before the stream sees them: none, 20%
and 50% at random (``default_rng(0)``), and a dead patch of the sensor (a rectangle of
a tenth of the frame, missing in every frame). Each method, at its defaults with
``random_state=0``, splits the clip by ``partial_fit_decompose`` in batches of 32 frames,
one BLAS thread. Measures, on the pixels seen (a missing pixel is scored as CDnet's
label 85, not counted):

- ``F default``: the masks of :class:`robustpca.foreground_stream.ForegroundDetector` on the
  residual ``x - l``, NaN at the missing pixels (:mod:`robustpca.foreground_gaps`);
  ``--zero-gaps`` sets it to 0 there instead, as a mask rule blind to gaps sees them;
- ``F best``: the F-measure at the best global threshold of ``|x - l|``;
- ``fill error``: the median absolute difference, in grey levels of 0..255, between the
  background the method gives a missing pixel of the road (label 0) and the background
  the same method gives it with every pixel seen (random gaps only); ``online`` the same
  over the frames after the method's burn-in (``burn_in``, 100 frames by default), where
  the background is the online model's alone (the burn-in's frames are split against a
  batch start from every frame so far); none where the clip ends within the burn-in;
- ``frames/s`` of the split alone.

Nothing is asserted: a measurement, not a test.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _harness import data_home, markdown_table

#: name -> (clip folder, CDnet frame numbers, scale), as in bench_video.py
CLIPS = {
    "highway300": ("highway", (1050, 1349), 0.5),
    "fall": ("fall", None, 0.25),
    "highway100": ("highway", (1050, 1149), 0.5),
    # camera jitter, a category no default was chosen on (fetched, as in bench_video.py)
    "traffic": ("traffic", None, 0.5),
}
GAPS = ("none", "random20", "random50", "dead patch")
METHODS = ("OnlineRobustPCA", "GRASTA")
BATCH = 32


def load(name: str):
    from robustpca.datasets import load_cdnet

    folder, numbers, scale = CLIPS[name]
    path = data_home("video") / "video" / folder
    if not path.is_dir():
        from robustpca.datasets import fetch_video

        path = fetch_video(folder)
    return load_cdnet(path, scale=scale, numbers=numbers)


def holes(shape: tuple[int, ...], kind: str) -> np.ndarray:
    """The missing pixels (n_frames, h, w) of one kind of gap."""
    if kind == "none":
        return np.zeros(shape, dtype=bool)
    if kind.startswith("random"):
        return np.random.default_rng(0).random(shape) < int(kind[len("random") :]) / 100
    _, h, w = shape
    out = np.zeros(shape, dtype=bool)  # a patch of h/4 x 2w/5, left of the centre
    top, left = h // 3, w // 4
    out[:, top : top + h // 4, left : left + 2 * w // 5] = True
    return out


def split(method: str, frames: np.ndarray) -> tuple[np.ndarray, float]:
    """The background of every frame, streamed in batches, and the seconds it took."""
    import robustpca

    model = getattr(robustpca, method)(random_state=0)
    rows = frames.reshape(frames.shape[0], -1)
    start = time.perf_counter()
    low = [model.partial_fit_decompose(rows[s : s + BATCH])[0] for s in range(0, len(rows), BATCH)]
    seconds = time.perf_counter() - start
    return np.concatenate(low).reshape(frames.shape), seconds


def measure(clip, method: str, kind: str, reference, zero_gaps: bool = False) -> dict:
    from robustpca.foreground_stream import ForegroundDetector
    from robustpca.metrics import best_threshold_f_measure, change_detection_measures

    missing = holes(clip.frames.shape, kind)
    frames = np.where(missing, np.float32(np.nan), clip.frames)
    background, seconds = split(method, frames)
    residual = (frames - background).astype(np.float32)  # NaN at the gaps
    if zero_gaps:
        residual[missing] = 0
    labels = np.where(missing, 85, clip.labels).astype(clip.labels.dtype)
    detector = ForegroundDetector()
    masks = np.concatenate(
        [detector.update(residual[s : s + BATCH]) for s in range(0, len(residual), BATCH)]
    )
    scored = {"scored": clip.scored}
    f_default = change_detection_measures(masks, labels, clip.roi, **scored)["f_measure"]
    size = np.nan_to_num(np.abs(residual))  # a gap is not counted (label 85)
    f_best, _ = best_threshold_f_measure(size, labels, clip.roi, **scored)
    row = {
        "method": method,
        "gaps": kind,
        "missing": float(missing.mean()),
        "f_default": f_default,
        "f_best": f_best,
        "frames_per_s": clip.frames.shape[0] / seconds,
        "fill_error": None,
        "fill_error_online": None,
    }
    if reference is not None and kind.startswith("random"):
        import robustpca

        road = missing & (clip.labels == 0)
        gap = np.abs(background - reference)
        row["fill_error"] = float(np.median(gap[road]))
        burn_in = getattr(robustpca, method)().burn_in
        if road[burn_in:].any():
            row["fill_error_online"] = float(np.median(gap[burn_in:][road[burn_in:]]))
    return row, background


def main(argv=None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="100 frames of highway")
    parser.add_argument("--clips", nargs="+", choices=sorted(CLIPS), help="instead of the default")
    parser.add_argument("--json", help="write the rows here")
    parser.add_argument("--zero-gaps", action="store_true", help="residual 0 at the gaps")
    parser.add_argument(
        "--gaps",
        nargs="+",
        default=list(GAPS),
        help="kinds of gaps: none, 'dead patch', randomNN (NN%% of the pixels at random); "
        "'none' first gives the fill error its reference",
    )
    args = parser.parse_args(argv)
    rows = []
    names = args.clips or (("highway100",) if args.quick else ("highway300", "fall"))
    for name in names:
        clip = load(name)
        for method in METHODS:
            reference = None
            for kind in args.gaps:
                row, background = measure(clip, method, kind, reference, args.zero_gaps)
                if kind == "none":
                    reference = background
                rows.append({"clip": name, **row})
    header = ["clip", "method", "gaps", "missing", "F default", "F best"]
    header += ["fill error", "online", "frames/s"]
    table = [
        [
            r["clip"],
            r["method"],
            r["gaps"],
            f"{r['missing']:.0%}",
            f"{r['f_default']:.3f}",
            f"{r['f_best']:.3f}",
            "-" if r["fill_error"] is None else f"{r['fill_error']:.2f}",
            "-" if r["fill_error_online"] is None else f"{r['fill_error_online']:.2f}",
            f"{r['frames_per_s']:.0f}",
        ]
        for r in rows
    ]
    print(markdown_table(header, table))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1), encoding="utf-8")
    return rows


if __name__ == "__main__":
    main()
