"""``robustpca video``: background subtraction of a video, with CDnet's measures.

INPUT is a video file, a folder of frames or a clip in CDnet 2014's layout (``input/``,
``groundtruth/``, ``ROI.bmp``, ``temporalROI.txt``). The frames stream through
:func:`robustpca.background_subtraction.subtract_background` in batches, and the masks,
the backgrounds and the preview are written as the batches come, so an online method
holds its model, its burn-in's frames and one batch whatever the clip's length. Where
INPUT has CDnet ground truth, the confusion counts accumulate batch by batch over the
scored frames (inside ``temporalROI.txt``, with ground truth) and ``summary.json`` holds
CDnet's measures (none where no pixel was scored: a ROI inside ``--ignore``), and for a
batch method whether its fit converged (``converged``, ``n_iter``).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from ._io import InputError, atomic_output_dir
from ._options import add_command, add_folder, int_at_least

__all__ = ["add_parser", "run"]

#: Frames of the preview at most (a longer clip is shown every k-th frame).
PREVIEW_FRAMES = 300


def add_parser(sub) -> None:
    """Add the ``video`` sub-command."""
    from ..background_subtraction import DEFAULT_METHOD, METHODS

    video = add_command(
        sub,
        "video",
        run,
        help="separate a video's background and foreground (masks, CDnet measures)",
        description=(
            "Split INPUT (a video file, a folder of frames, or a CDnet clip folder with "
            "input/ and groundtruth/) into a low-rank background and a sparse foreground, "
            "and write to --out: the foreground masks (masks/binNNNNNN.png, 0 and 255), the "
            "background (background.png, and background/ with --write-backgrounds), a "
            "side-by-side preview (frame | background | mask) and summary.json, with "
            "CDnet's measures where INPUT has ground truth. The folder appears only when "
            "everything is written. A folder's frames are read in the natural order of "
            "their names, numbers compared as numbers (2.png before 10.png), and their "
            "masks take the numbers that end their names (in000470.jpg: bin000470.png) "
            "where every name has one, else their positions from 1."
        ),
    )
    video.add_argument("input", type=Path, metavar="INPUT")
    add_folder(video, "--out", "output folder (created)", required=True)
    video.add_argument(
        "--method",
        choices=METHODS,
        default=DEFAULT_METHOD,
        help=f"online (orpca, grasta: constant memory) or batch (pcp, accaltproj, godec: "
        f"the whole clip in memory) low-rank plus sparse method; default {DEFAULT_METHOD}",
    )
    video.add_argument(
        "--scale",
        type=float,
        default=0.5,
        metavar="S",
        help="resize factor of the frames for the fit (default 0.5; 1 keeps their size); "
        "the masks are written at the input's size",
    )
    video.add_argument(
        "--n-components",
        "-k",
        type=int_at_least(1),
        default=None,
        metavar="K",
        help="rank of the background (default 1), below the number of frames for orpca "
        "and grasta; not with pcp, which sets its own by its penalty",
    )
    video.add_argument("--colour", action="store_true", help="fit colour frames (RGB)")
    video.add_argument(
        "--batch-size",
        type=int_at_least(1),
        default=100,
        help="frames per batch (100); the online methods' first batch sets each pixel's "
        "noise scale, so batches much smaller than about 64 frames give poorer masks",
    )
    video.add_argument(
        "--preview",
        choices=("gif", "mp4", "none"),
        default="gif",
        help=f"preview format (default gif, at most {PREVIEW_FRAMES} frames shown)",
    )
    video.add_argument(
        "--write-backgrounds",
        action="store_true",
        help="also write every frame's background (background/bgNNNNNN.png)",
    )
    video.add_argument(
        "--ignore",
        type=Path,
        default=None,
        metavar="MASK",
        help="an image of the frames' size whose non-zero pixels are left out (a "
        "timestamp, a dead patch): missing in every frame, not scored",
    )
    video.add_argument("--random-state", type=int_at_least(0), default=0)
    video.add_argument("--overwrite", action="store_true", help="replace a non-empty --out")
    video.add_argument("--quiet", action="store_true", help="no progress bar")


def run(args, parser: argparse.ArgumentParser) -> int:
    try:
        return _run(args)
    except InputError as error:
        print(f"robustpca video: error: {error}", file=sys.stderr)
        return 1


class _Source:
    """The input: frames in batches and, for a CDnet clip, the ground truth with them."""

    def __init__(self, path: Path, *, grey: bool, scale: float, batch_size: int):
        from ..datasets import video_info

        self.path, self.grey, self.scale, self.batch_size = path, grey, scale, batch_size
        self.cdnet = (path / "input").is_dir()
        try:
            info = video_info(path, scale=scale)
        except (FileNotFoundError, ValueError, ImportError) as error:
            raise InputError(str(error)) from None
        self.n_frames = info.n_frames
        self.frame_shape = info.frame_shape
        #: (h, w) of the input's own frames: the size of the masks written
        self.native_shape = tuple(video_info(path).frame_shape[:2])
        self.fps = info.fps or 25.0
        self.has_truth = self.cdnet and (path / "groundtruth").is_dir()
        #: a plain frame folder's numbers (``in000470.jpg``: 470), or None: by position
        self.file_numbers = None if self.cdnet or not path.is_dir() else _file_numbers(path)

    def numbers(self, seen: int, b: int) -> list[int]:
        """The numbers of the frames ``seen .. seen + b - 1`` of a stream without ground
        truth: their files' numbers where every name carries one, else from 1."""
        if self.file_numbers is not None:
            return self.file_numbers[seen : seen + b]
        return list(range(seen + 1, seen + b + 1))

    def batches(self) -> Iterator[tuple[np.ndarray, Any]]:
        """``(frames, clip)``: ``clip`` is the batch's :class:`CDnetClip` (ground truth,
        ROI, scored frames) for a CDnet folder, else None."""
        from ..datasets import iter_cdnet, iter_video

        options: dict[str, Any] = {
            "batch_size": self.batch_size,
            "grey": self.grey,
            "scale": self.scale,
        }
        try:
            if self.cdnet:
                for clip in iter_cdnet(self.path, **options):
                    yield clip.frames, clip
            else:
                for frames in iter_video(self.path, **options):
                    yield frames, None
        except (FileNotFoundError, ValueError, ImportError) as error:
            raise InputError(str(error)) from None


def _file_numbers(folder: Path) -> list[int] | None:
    """The numbers that end the names of a folder's frames (``in000470.jpg``, as CDnet's
    ``input/``, or ``frame_12.png``), in the order they are read, where every name is one
    prefix and a number and no two numbers are equal; else None."""
    from ..datasets._video_read import resolve_video_path

    _, files = resolve_video_path(folder)
    found = [re.fullmatch(r"(.*?)(\d+)", p.stem) for p in files or ()]
    if not found or any(m is None for m in found):
        return None
    matches = [m for m in found if m is not None]
    numbers = [int(m.group(2)) for m in matches]
    if len({m.group(1) for m in matches}) != 1 or len(set(numbers)) != len(numbers):
        return None
    return numbers


class _Truth:
    """What the measures need of a CDnet batch: numbers, labels, ROI, scored frames."""

    def __init__(self, frame_numbers, labels, roi, scored):
        self.frame_numbers, self.labels, self.roi, self.scored = frame_numbers, labels, roi, scored

    @classmethod
    def of(cls, clip: Any, ignored: np.ndarray | None = None) -> _Truth:
        """``clip``'s truth, the ``ignored`` pixels out of its ROI (not scored)."""
        roi = clip.roi if ignored is None else clip.roi & ~ignored
        return cls(clip.frame_numbers, clip.labels, roi, clip.scored)


def _progress(total: int | None, quiet: bool):
    from tqdm.auto import tqdm

    return tqdm(total=total, unit="frame", desc="robustpca video", disable=quiet, leave=False)


class _NativeTruth:
    """A CDnet clip's ground truth at its frames' own size, for the masks written at
    that size when ``--scale`` resized the frames: the measures are then those of CDnet's
    comparator on the result files (labels resized to the scaled frames would differ)."""

    def __init__(self, path: Path, ignored: np.ndarray | None):
        from ..datasets.video import _cdnet_index

        try:  # a bad temporalROI.txt, ROI.bmp or frame name: as the frames' reader says
            self.index = _cdnet_index(path, 1.0, None, None)
        except (FileNotFoundError, ValueError, ImportError) as error:
            raise InputError(str(error)) from None
        self.roi = self.index.roi if ignored is None else self.index.roi & ~ignored

    def counts(self, masks: np.ndarray, numbers: np.ndarray) -> tuple[np.ndarray, int]:
        """CDnet's counts of ``masks`` (at the native size) of frames ``numbers``, and the
        number of scored frames among them."""
        from ..datasets.video import _read_labels
        from ..metrics.change_detection import change_detection_counts

        index = self.index
        labels, present = _read_labels(
            index.path / "groundtruth", numbers, index.temporal_roi, index.native, index.native
        )
        first, last = index.temporal_roi
        scored = (numbers >= first) & (numbers <= last) & present
        if not scored.any():
            return np.zeros(4, dtype=np.int64), 0
        counts = change_detection_counts(masks, labels, self.roi, scored=scored)
        return np.asarray(counts, dtype=np.int64), int(scored.sum())


def _resized(masks: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """``masks`` (n, h, w) at ``shape`` (H, W) by the nearest neighbour."""
    h, w = masks.shape[1:3]
    H, W = shape
    if (h, w) == (H, W):
        return masks
    rows = np.minimum(((np.arange(H) + 0.5) * h / H).astype(np.intp), h - 1)
    cols = np.minimum(((np.arange(W) + 0.5) * w / W).astype(np.intp), w - 1)
    return masks[:, rows[:, None], cols[None, :]]


def _ignored(path: Path | None, source: _Source) -> tuple[Any, Any]:
    """The pixels ``--ignore`` leaves out, at the frames' scaled size (h, w) and at their
    native size (each None where it has none): the non-zero pixels of an image of the
    frames' size, scaled or not, resized by the nearest neighbour."""
    if path is None:
        return None, None
    from ..datasets import video_info
    from ..datasets._video_read import _pil

    try:
        Image = _pil()
        with Image.open(path) as image:
            grey = image.convert("L")
    except (OSError, ImportError) as error:
        raise InputError(f"--ignore {path}: {error}") from None
    h, w = source.frame_shape[:2]
    native = video_info(source.path).frame_shape[:2]
    if (grey.height, grey.width) not in ((h, w), tuple(native)):
        raise InputError(
            f"--ignore {path}: {grey.width}x{grey.height} is neither the frames' size "
            f"{native[1]}x{native[0]} nor their scaled size {w}x{h}"
        )
    ignored = np.asarray(grey.resize((w, h), Image.Resampling.NEAREST)) > 0
    if ignored.all():  # every pixel missing in every frame: nothing to fit or score
        at = "" if (h, w) == tuple(native) else f" at --scale {source.scale:g} ({w}x{h})"
        raise InputError(
            f"--ignore {path}: its non-zero pixels cover every pixel of the frames{at}, so "
            "no pixel is left to fit or score; make the pixels to keep black (0)"
        )
    at_native = np.asarray(grey.resize(native[::-1], Image.Resampling.NEAREST)) > 0
    # a thin mask that the downscaling misses is still left out where the truth is judged
    return (ignored if ignored.any() else None), (at_native if at_native.any() else None)


class _PreviewFrames:
    """The preview's frames: every ``every``-th frame of the clip, at most ``limit``.
    Where the clip's length is unknown (a container that does not state it), the stride
    doubles and the frames kept are thinned whenever they would exceed ``limit``, so
    that the preview stays evenly spaced and its memory bounded."""

    def __init__(self, every: int, limit: int = PREVIEW_FRAMES):
        self.every, self.limit = every, limit
        # (positions in the clip, frames, backgrounds, masks) of each batch
        self.rows: list[tuple[np.ndarray, ...]] = []

    def wanted(self, first: int, size: int) -> np.ndarray:
        """The rows of a batch of ``size`` frames from position ``first`` to keep."""
        return np.flatnonzero((first + np.arange(size)) % self.every == 0)

    def add(self, positions: np.ndarray, *arrays: np.ndarray) -> None:
        self.rows.append((positions, *arrays))
        while sum(len(row[0]) for row in self.rows) > self.limit:
            self.every *= 2
            kept = ((row[0] % self.every == 0, row) for row in self.rows)
            self.rows = [tuple(a[sel] for a in row) for sel, row in kept if sel.any()]


def _grey(frames: np.ndarray) -> np.ndarray:
    return frames if frames.ndim == 3 else frames.mean(axis=-1)


def _run(args) -> int:
    from ..background_subtraction import (
        BATCH_METHODS,
        _NoModel,
        make_video_model,
        subtract_background,
    )
    from ..datasets import write_frames, write_masks, write_preview
    from ..foreground import WINDOW
    from ..metrics.change_detection import change_detection_counts, measures_from_counts

    if not 0 < args.scale <= 4:
        raise InputError(f"--scale must be in (0, 4], got {args.scale}")
    if not args.input.exists():
        raise InputError(f"{args.input}: no such file or folder")
    if args.method == "pcp" and args.n_components is not None:
        raise InputError(
            f"-k {args.n_components}: --method pcp sets the background's rank by its "
            "penalty and takes no -k; leave -k out, or choose accaltproj or godec for a "
            "rank of your own"
        )
    # what --overwrite would delete (the input, the --ignore mask) is refused before reading
    inputs = tuple(path for path in (args.input, args.ignore) if path is not None)
    output = atomic_output_dir(args.out, overwrite=args.overwrite, inputs=inputs)
    output.check()
    source = _Source(args.input, grey=not args.colour, scale=args.scale, batch_size=args.batch_size)
    if min(source.frame_shape[:2]) < WINDOW:  # the mask rule's window must fit a frame
        h, w = source.frame_shape[:2]
        raise InputError(
            f"--scale {args.scale:g} makes {w}x{h} frames, smaller than the mask rule's "
            f"{WINDOW}x{WINDOW} window; choose a larger --scale"
        )
    _check_rank(args, source)
    ignored, ignored_native = _ignored(args.ignore, source)
    resized = source.native_shape != tuple(source.frame_shape[:2])
    native_truth = (
        _NativeTruth(args.input, ignored_native) if resized and source.has_truth else None
    )
    model = make_video_model(
        args.method, n_components=args.n_components, random_state=args.random_state
    )
    every = 1
    if source.n_frames is not None and source.n_frames > PREVIEW_FRAMES:
        every = -(-source.n_frames // PREVIEW_FRAMES)
    shown = _PreviewFrames(every)

    counts = np.zeros(4, dtype=np.int64)
    n_scored = 0
    numbers: list[int] = []
    background_sum: np.ndarray | None = None
    n_seen = 0
    clips: list[Any] = []

    def frames_only() -> Iterator[np.ndarray]:
        for frames, clip in source.batches():
            # the ground truth of the batch, without its frames (a batch method holds
            # every batch's until the fit ends)
            clips.append(None if clip is None else _Truth.of(clip, ignored))
            if ignored is not None:  # missing in every frame (NaN): not fitted, not judged
                frames = np.array(frames, dtype=np.float32)
                frames[:, ignored] = np.nan
            yield frames

    start_time = time.perf_counter()
    with output as out, warnings.catch_warnings():
        # no warning breaks the progress bar: summary.json and the line printed say
        # whether a batch method's fit converged
        warnings.simplefilter("ignore")
        bar = _progress(source.n_frames, args.quiet)
        try:
            for part in subtract_background(frames_only(), method=args.method, model=model):
                clip = clips.pop(0)  # the batches come back with the input's boundaries
                b = part.masks.shape[0]
                ids = (
                    [int(v) for v in clip.frame_numbers]
                    if clip is not None
                    else source.numbers(n_seen, b)
                )
                numbers.extend(ids)
                masks = _resized(part.masks, source.native_shape)  # CDnet's: the input's size
                write_masks(out / "masks", masks, frame_numbers=ids)
                if args.write_backgrounds:
                    write_frames(
                        out / "background",
                        np.clip(part.background, 0, 255),
                        pattern="bg{:06d}.png",
                        frame_numbers=ids,
                    )
                # the mean background in the frames' own channels (grey or colour)
                total = part.background.sum(axis=0, dtype=np.float64)
                background_sum = total if background_sum is None else background_sum + total
                if native_truth is not None:
                    batch_counts, batch_scored = native_truth.counts(masks, np.asarray(ids))
                    counts += batch_counts
                    n_scored += batch_scored
                elif clip is not None and clip.labels is not None and clip.scored.any():
                    counts += change_detection_counts(
                        part.masks, clip.labels, clip.roi, scored=clip.scored
                    )
                    n_scored += int(clip.scored.sum())
                keep = shown.wanted(n_seen, b)
                if args.preview != "none" and keep.size:
                    shown.add(
                        n_seen + keep,
                        np.nan_to_num(_grey(part.frames)[keep]),
                        np.clip(_grey(part.background)[keep], 0, 255),
                        part.masks[keep],
                    )
                n_seen += b
                bar.update(b)
        except InputError:
            raise
        except _NoModel:  # a clip of unknown length (otherwise _check_rank refuses it)
            raise InputError(_no_model(args, n_seen)) from None
        except ValueError as error:
            raise InputError(f"{args.input}: {error}") from None
        finally:
            bar.close()
        seconds = time.perf_counter() - start_time
        if n_seen == 0 or background_sum is None:
            raise InputError(f"{args.input}: no frames")
        mean_background = background_sum / n_seen
        write_frames(out, np.clip(mean_background, 0, 255)[None], pattern="background.png")
        preview = None
        if shown.rows:
            preview = out / f"preview.{args.preview}"
            write_preview(
                preview,
                (r[1] for r in shown.rows),
                (r[2] for r in shown.rows),
                (r[3] for r in shown.rows),
                fps=source.fps / shown.every,
            )
        summary: dict[str, Any] = {
            "input": str(args.input),
            "method": args.method,
            "model": type(model).__name__,
            "params": {k: _jsonable(v) for k, v in model.get_params().items()},
            "n_frames": n_seen,
            "frame_shape": list(source.frame_shape),
            "mask_shape": list(source.native_shape),
            "colour": bool(args.colour),
            "scale": args.scale,
            "seconds": round(seconds, 3),
            "frames_per_second": round(n_seen / seconds, 1) if seconds > 0 else None,
            "first_frame": numbers[0],
            "last_frame": numbers[-1],
            "preview": None if preview is None else preview.name,
            "ignored_pixels": 0 if ignored is None else int(ignored.sum()),
        }
        converged = getattr(model, "converged_", None)
        if args.method in BATCH_METHODS and converged is not None:  # online: one pass
            summary["converged"] = bool(converged)
            summary["n_iter"] = int(model.n_iter_)
        if source.has_truth:
            summary["n_scored_frames"] = n_scored
            if n_scored:
                tp, fp, fn, tn = (int(v) for v in counts)
                if counts.sum():  # no pixel counted (ROI inside --ignore): no measures
                    summary.update(measures_from_counts(tp, fp, fn, tn))
                summary["counts"] = {"tp": tp, "fp": fp, "fn": fn, "tn": tn}
        (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    _report(summary, args.out)
    return 0


def _check_rank(args, source: _Source) -> None:
    """Refuse a rank that the clip's frames (where their number is known) or values
    cannot give a model: an online one starts once it has more frames than its rank,
    and a batch one takes at most as many directions as frames or values per frame."""
    from ..background_subtraction import DEFAULT_RANK, ONLINE_METHODS

    n, k = source.n_frames, args.n_components
    if args.method in ONLINE_METHODS and n is not None and (k or DEFAULT_RANK) >= n:
        raise InputError(_no_model(args, n))
    values = int(np.prod(source.frame_shape[:2])) * (3 if args.colour else 1)
    if k is not None and k > min(values, n or values):
        frames = "frames" if n is None else f"{n} frames"
        raise InputError(
            f"-k {k}: {args.input} has {frames} of {values} values (at --scale "
            f"{args.scale:g}), and the background's rank is at most the number of either; "
            "choose a lower -k"
        )


def _no_model(args, n_frames: int) -> str:
    """The error of a clip of ``n_frames`` that never lets an online model start."""
    from ..background_subtraction import DEFAULT_RANK

    start = f"--method {args.method} starts its model once it has more frames than"
    if args.n_components is None:
        return (
            f"{args.input} has {n_frames} frame(s): {start} its rank ({DEFAULT_RANK}, -k), "
            f"so no mask would be made; give it at least {DEFAULT_RANK + 1} frames"
        )
    return (
        f"-k {args.n_components}: {start} -k, and {args.input} has {n_frames} frame(s), so "
        f"no mask would be made; choose -k below {n_frames}"
    )


def _jsonable(value: Any) -> Any:
    if isinstance(value, bool | int | float | str) or value is None:
        return value
    if isinstance(value, np.generic):
        return value.item()
    return repr(value)


def _report(summary: dict[str, Any], out: Path) -> None:
    line = (
        f"{summary['method']}: {summary['n_frames']} frames "
        f"{summary['frame_shape'][1]}x{summary['frame_shape'][0]} in {summary['seconds']} s "
        f"({summary['frames_per_second']} frames/s)"
    )
    if "f_measure" in summary:
        line += (
            f"; F-measure {summary['f_measure']:.3f} (precision {summary['precision']:.3f}, "
            f"recall {summary['recall']:.3f}) over {summary['n_scored_frames']} scored frames"
        )
    elif summary.get("n_scored_frames"):
        line += (
            f"; no measures: no pixel of the {summary['n_scored_frames']} scored frames was "
            "scored (the ROI lies inside --ignore, or its labels are all unknown)"
        )
    if summary.get("converged") is False:
        line += f"; the fit did not converge in {summary['n_iter']} iterations"
    print(line)
    print(f"wrote {out}")
