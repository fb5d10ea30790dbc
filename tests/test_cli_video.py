"""``robustpca video``: outputs, CDnet's measures, errors naming the file, atomic output."""

from __future__ import annotations

import gc
import json
import os
from pathlib import Path

import numpy as np
import pytest

from robustpca.background_subtraction import METHODS, subtract_background
from robustpca.cli import main
from robustpca.datasets import write_frames

H, W, N = 24, 32, 60


def synthetic_clip(seed: int = 0, n: int = N) -> tuple[np.ndarray, np.ndarray]:
    """A static textured background with sensor noise and a bright block crossing it;
    the ground truth in CDnet's labels (255 on the block, 0 elsewhere)."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:H, 0:W]
    background = 100 + 40 * np.sin(xx / 5.0) * np.cos(yy / 4.0)
    frames = np.empty((n, H, W))
    labels = np.zeros((n, H, W), dtype=np.uint8)
    for t in range(n):
        frames[t] = background + 2.0 * rng.normal(size=(H, W))
        x0 = (t * 3) % (W - 6)
        frames[t, 8:16, x0 : x0 + 6] = 230.0
        labels[t, 8:16, x0 : x0 + 6] = 255
    return np.clip(frames, 0, 255), labels


def write_cdnet(folder: Path, frames: np.ndarray, labels: np.ndarray | None, first: int = 1):
    numbers = list(range(first, first + len(frames)))
    write_frames(folder / "input", frames, pattern="in{:06d}.png", frame_numbers=numbers)
    if labels is not None:
        write_frames(folder / "groundtruth", labels, pattern="gt{:06d}.png", frame_numbers=numbers)
    (folder / "temporalROI.txt").write_text(f"{first} {first + len(frames) - 1}\n")
    return folder


@pytest.fixture
def collections_see_only_the_tests_objects():
    """imageio's PyAV plugin runs ``gc.collect()`` on every close, which walks every
    object of the test session; objects older than the test are frozen out of the
    collections (test_video_io.py's autouse fixture)."""
    gc.freeze()
    yield
    gc.unfreeze()


@pytest.fixture
def clip(tmp_path) -> Path:
    frames, labels = synthetic_clip()
    return write_cdnet(tmp_path / "clip", frames, labels, first=101)


@pytest.mark.parametrize("method", METHODS)
def test_every_method_writes_masks_background_preview_and_measures(clip, tmp_path, method):
    out = tmp_path / f"out-{method}"
    args = ["video", str(clip), "--out", str(out), "--method", method, "--scale", "1"]
    assert main([*args, "--batch-size", "25", "--quiet"]) == 0
    summary = json.loads((out / "summary.json").read_text())
    for key in ("f_measure", "precision", "recall", "specificity", "fpr", "fnr", "pwc"):
        assert 0.0 <= summary[key] <= 100.0
    assert summary["n_frames"] == N and summary["n_scored_frames"] == N
    assert summary["first_frame"] == 101 and summary["last_frame"] == 100 + N
    masks = sorted((out / "masks").glob("bin*.png"))
    assert [m.name for m in masks[:2]] == ["bin000101.png", "bin000102.png"]
    assert len(masks) == N
    assert (out / "background.png").is_file() and (out / "preview.gif").is_file()
    # a bright block on a quiet background: every method finds it
    assert summary["f_measure"] > 0.7, summary


def test_measures_count_only_the_temporal_roi(tmp_path):
    frames, labels = synthetic_clip()
    clip = write_cdnet(tmp_path / "clip", frames, labels)
    (clip / "temporalROI.txt").write_text("31 60\n")
    out = tmp_path / "out"
    assert main(["video", str(clip), "--out", str(out), "--scale", "1", "--quiet"]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["n_scored_frames"] == 30 and summary["n_frames"] == N
    counts = summary["counts"]
    assert sum(counts.values()) == 30 * H * W


def test_frame_folder_without_truth_has_no_measures(tmp_path):
    frames, _ = synthetic_clip()
    folder = tmp_path / "frames"
    write_frames(folder, frames)
    out = tmp_path / "out"
    code = main(["video", str(folder), "--out", str(out), "--scale", "1", "--preview", "none"])
    assert code == 0
    summary = json.loads((out / "summary.json").read_text())
    assert "f_measure" not in summary and summary["n_frames"] == N
    assert not (out / "preview.gif").exists()


@pytest.mark.usefixtures("collections_see_only_the_tests_objects")
def test_video_file_input(tmp_path):
    pytest.importorskip("av")
    import imageio.v3 as iio

    frames, _ = synthetic_clip(n=30)
    path = tmp_path / "clip.mp4"
    rgb = np.repeat(frames.astype(np.uint8)[..., None], 3, axis=-1)
    iio.imwrite(path, rgb, plugin="pyav", codec="libx264", fps=25)
    out = tmp_path / "out"
    assert main(["video", str(path), "--out", str(out), "--scale", "1", "--quiet"]) == 0
    assert len(list((out / "masks").glob("*.png"))) == 30


def test_colour_and_backgrounds(clip, tmp_path):
    out = tmp_path / "out"
    args = ["video", str(clip), "--out", str(out), "--colour", "--write-backgrounds"]
    assert main([*args, "--scale", "1", "--quiet"]) == 0
    assert len(list((out / "background").glob("bg*.png"))) == N
    assert json.loads((out / "summary.json").read_text())["colour"] is True


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda p: p / "missing", "no such file or folder"),
        (lambda p: (p / "empty").mkdir() or p / "empty", "empty"),
    ],
)
def test_bad_input_is_an_error_naming_it(tmp_path, capsys, make, message):
    source = make(tmp_path)
    out = tmp_path / "out"
    assert main(["video", str(source), "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert str(source) in err
    assert not out.exists()


def test_frames_of_different_sizes_leave_no_output(tmp_path, capsys):
    frames, _ = synthetic_clip(n=10)
    folder = tmp_path / "frames"
    write_frames(folder, frames)
    write_frames(folder, np.zeros((1, H + 2, W)), pattern="z{:06d}.png")
    out = tmp_path / "out"
    assert main(["video", str(folder), "--out", str(out), "--quiet"]) == 1
    assert "z000000.png" in capsys.readouterr().err or not out.exists()
    assert not out.exists()


def test_ground_truth_that_does_not_match_is_an_error(tmp_path, capsys):
    frames, labels = synthetic_clip(n=20)
    clip = write_cdnet(tmp_path / "clip", frames, labels)
    os.remove(clip / "groundtruth" / "gt000005.png")
    out = tmp_path / "out"
    assert main(["video", str(clip), "--out", str(out), "--scale", "1", "--quiet"]) == 1
    assert "gt000005.png" in capsys.readouterr().err
    assert not out.exists()


@pytest.mark.usefixtures("collections_see_only_the_tests_objects")
def test_unreadable_video_names_the_file(tmp_path, capsys):
    bad = tmp_path / "broken.mp4"
    bad.write_bytes(b"not a video at all")
    assert main(["video", str(bad), "--out", str(tmp_path / "out")]) == 1
    assert "broken.mp4" in capsys.readouterr().err


def test_existing_output_needs_overwrite(clip, tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("x")
    assert main(["video", str(clip), "--out", str(out), "--quiet"]) == 1
    assert (out / "keep.txt").exists()
    assert main(["video", str(clip), "--out", str(out), "--quiet", "--overwrite"]) == 0
    assert not (out / "keep.txt").exists()


def test_subtract_background_checks_its_input():
    with pytest.raises(ValueError, match="method"):
        next(subtract_background([np.zeros((2, 4, 4))], method="mog2"))
    with pytest.raises(ValueError, match="same size"):
        list(subtract_background([np.zeros((2, 4, 4)), np.zeros((2, 4, 5))]))
    with pytest.raises(ValueError, match="no frame"):
        list(subtract_background([]))
    with pytest.raises(ValueError, match="infinite"):
        list(subtract_background([np.full((3, 4, 4), np.inf)]))
    for dtype in ("U1", complex, object):
        with pytest.raises(ValueError, match="must hold real numbers"):
            list(subtract_background([np.zeros((3, 4, 4), dtype=dtype)]))


@pytest.mark.parametrize("method", ["orpca", "pcp"])
def test_a_static_integer_clip_leaves_one_level_flicker_in_the_background(method):
    """A static uint8 scene (a render, a screen) whose left part flickers by one level
    after 300 frames: OR-PCA's residual was at float rounding level, so the flicker was
    32% foreground. The floor is now at least the frames' rounding; a real object (40
    levels) is still found. (GRASTA's basis is still turning at frame 350: the first
    gradients after a static stretch take large steps, by the authors' step rule.)"""
    rng = np.random.default_rng(0)
    F = np.repeat(rng.integers(20, 230, size=(32, 32))[None], 400, 0).astype(np.int16)
    F[300:, :, :12] += rng.choice([-1, 0, 1], size=(100, 32, 12)).astype(np.int16)
    F[350, 20:28, 20:28] += 40
    F = F.astype(np.uint8)
    masks = np.concatenate(
        [
            b.masks
            for b in subtract_background((F[s : s + 50] for s in range(0, 400, 50)), method=method)
        ]
    )
    assert masks[350, 21:27, 21:27].all()
    masks[350] = False
    assert not masks.any()


def test_binary_frames_are_split_as_zeros_and_ones():
    """Boolean frames (a binary video) are the 0/1 frames they stand for."""
    frames = np.zeros((12, 6, 6), dtype=bool)
    frames[5:8, 2:4, 2:4] = True
    for method in ("orpca", "pcp"):
        split = list(subtract_background(frames, method=method))
        ones = list(subtract_background(frames.astype(np.uint8), method=method))
        np.testing.assert_array_equal(split[0].masks, ones[0].masks)
        np.testing.assert_array_equal(split[0].background, ones[0].background)


@pytest.mark.parametrize("method", ["orpca", "grasta", "pcp", "accaltproj", "godec"])
def test_missing_pixels_are_filled_and_judged_by_their_neighbours(method):
    """Frames with NaN (a tenth of the pixels, and a dead 3 x 3 patch): every method
    fills them with a finite background, and the masks on the pixels seen are nearly
    those of the complete frames."""
    frames, labels = synthetic_clip()
    holes = np.random.default_rng(0).random(frames.shape) < 0.1
    holes[:, 5:8, 5:8] = True
    gappy = np.where(holes, np.nan, frames)
    full = np.concatenate([p.masks for p in subtract_background(frames, method=method)])
    parts = list(subtract_background((gappy[i : i + 20] for i in range(0, N, 20)), method=method))
    masks = np.concatenate([p.masks for p in parts])
    assert all(np.isfinite(np.asarray(p.background)).all() for p in parts)
    seen = ~holes
    assert np.mean(masks[seen] != full[seen]) < 0.01
    assert np.mean(masks[seen] == (labels[seen] == 255)) > 0.97


def test_online_and_batch_split_agree_on_a_static_scene():
    frames, labels = synthetic_clip()
    original = frames.copy()
    online = np.concatenate(
        [p.masks for p in subtract_background(frames[i : i + 20] for i in range(0, N, 20))]
    )
    batch = np.concatenate([p.masks for p in subtract_background(frames, method="pcp")])
    np.testing.assert_array_equal(frames, original)  # input not modified
    truth = labels == 255
    for masks in (online, batch):
        assert (masks & truth).sum() > 0.8 * truth.sum()
        assert (masks & ~truth).sum() < 0.05 * truth.sum()


@pytest.mark.parametrize("method", ["orpca", "grasta"])
def test_stream_equals_its_pieces_and_leaves_a_given_models_parts_alone(method):
    """The online pipeline (whose residual may take the memory of the model's sparse
    part) gives the masks of the model and the detector run by hand; with a model passed
    in, the parts it returns are left as they were (they might be its own state)."""
    from robustpca.background_subtraction import make_video_model
    from robustpca.foreground_stream import ForegroundDetector

    frames = synthetic_clip(3)[0].astype(np.float32)
    batches = [frames[i : i + 20] for i in range(0, N, 20)]
    by_hand, detector, model = [], ForegroundDetector(), make_video_model(method)
    for batch in batches:
        low, _ = model.partial_fit_decompose(batch.reshape(len(batch), -1))
        by_hand.append(detector.update(batch - low.reshape(batch.shape)))
    ours = [p.masks for p in subtract_background(batches, method=method)]
    np.testing.assert_array_equal(np.concatenate(ours), np.concatenate(by_hand))

    class Keeping:
        """A model returning arrays it keeps."""

        def __init__(self):
            self.inner, self.kept = make_video_model(method), []

        def partial_fit_decompose(self, X):
            low, sparse = self.inner.partial_fit_decompose(X)
            self.kept.append((sparse, sparse.copy()))
            return low, sparse

    keeping = Keeping()
    theirs = [p.masks for p in subtract_background(batches, method=method, model=keeping)]
    np.testing.assert_array_equal(np.concatenate(theirs), np.concatenate(by_hand))
    for sparse, before in keeping.kept:
        np.testing.assert_array_equal(sparse, before)


@pytest.mark.realdata
@pytest.mark.parametrize(
    ("dtype", "size", "scored"), [(np.uint8, 30, False), (np.float32, 25, True)]
)
def test_orpca_route_on_highway_equals_the_models_own_split(shared_data, dtype, size, scored):
    """OR-PCA's own route through the pipeline (the residual only; rows and residual
    written over the last batch's arrays; each background formed when first read) gives
    the masks, scores and backgrounds of the generic route (the same model passed in),
    on real frames, through a burn-in of several batches and a shorter last batch; the
    frames given are left alone."""
    from robustpca.background_subtraction import make_video_model
    from robustpca.datasets import load_cdnet

    clip = load_cdnet(shared_data / "video" / "highway", scale=0.25, numbers=(1050, 1169))
    frames = np.round(clip.frames).astype(dtype)
    before = frames.copy()
    batches = [frames[i : i + size] for i in range(0, len(frames), size)]
    ours = list(subtract_background(batches, method="orpca", return_scores=scored))
    theirs = list(
        subtract_background(batches, model=make_video_model("orpca"), return_scores=scored)
    )
    assert len(ours) == len(theirs) == len(batches)
    for a, b in zip(ours, theirs, strict=True):
        np.testing.assert_array_equal(a.masks, b.masks)
        np.testing.assert_array_equal(a.background, b.background)
        assert a.background.shape == a.frames.shape and a.background.dtype == np.float32
        if scored:
            np.testing.assert_array_equal(a.scores, b.scores)
    assert 0.001 < np.concatenate([p.masks for p in ours]).mean() < 0.2
    np.testing.assert_array_equal(frames, before)


@pytest.mark.realdata
def test_highway_slice_beats_a_fixed_threshold(shared_data, tmp_path):
    """100 frames of CDnet's highway at quarter size through the default method."""
    source = shared_data / "video" / "highway"
    clip = tmp_path / "highway"
    (clip / "input").mkdir(parents=True)
    (clip / "groundtruth").mkdir()
    for k in range(1050, 1150):
        os.symlink(source / "input" / f"in{k:06d}.jpg", clip / "input" / f"in{k:06d}.jpg")
        gt = f"gt{k:06d}.png"
        os.symlink(source / "groundtruth" / gt, clip / "groundtruth" / gt)
    os.symlink(source / "ROI.bmp", clip / "ROI.bmp")
    (clip / "temporalROI.txt").write_text("1050 1149\n")
    out = tmp_path / "out"
    assert main(["video", str(clip), "--out", str(out), "--scale", "0.25", "--quiet"]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["n_scored_frames"] == 100
    assert summary["f_measure"] > 0.7, summary


@pytest.mark.parametrize("ignore", [False, True])
def test_scaled_runs_write_cdnet_result_files_and_measure_them(clip, tmp_path, ignore):
    """At --scale 0.5 the masks are written at the clip's own size (CDnet's tools need
    it) and summary.json measures those files against the full-size ground truth, as
    CDnet's comparator would; the ignored pixels stay out of the counts at that size."""
    from PIL import Image

    from robustpca.datasets import load_cdnet
    from robustpca.metrics import change_detection_counts

    out = tmp_path / "out"
    args = ["video", str(clip), "--out", str(out), "--scale", "0.5", "--quiet"]
    ignored = np.zeros((H, W), dtype=bool)
    if ignore:
        ignored[6:18, 10:22] = True
        Image.fromarray(ignored.astype(np.uint8) * 255).save(tmp_path / "ignore.png")
        args += ["--ignore", str(tmp_path / "ignore.png")]
    assert main(args) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["frame_shape"] == [H // 2, W // 2] and summary["mask_shape"] == [H, W]
    masks = np.stack([np.asarray(Image.open(m)) for m in sorted((out / "masks").glob("*.png"))])
    assert masks.shape == (N, H, W) and set(np.unique(masks)) <= {0, 255}
    truth = load_cdnet(clip)
    expected = change_detection_counts(masks == 255, truth.labels, truth.roi & ~ignored)
    assert tuple(summary["counts"].values()) == expected
    assert summary["n_scored_frames"] == N and summary["f_measure"] > 0.7


def test_batch_method_gathers_batches_as_one_clip():
    """A batch method fed in pieces (gathered into one work space) gives the masks and
    backgrounds of the whole clip given at once; the pieces are left alone."""
    frames = synthetic_clip(4)[0].astype(np.float32)
    pieces = [frames[i : i + 25] for i in range(0, N, 25)]
    before = [p.copy() for p in pieces]
    whole = list(subtract_background(frames, method="pcp"))
    parts = list(subtract_background(pieces, method="pcp"))
    assert [p.start for p in parts] == [0, 25, 50]
    np.testing.assert_array_equal(np.concatenate([p.masks for p in parts]), whole[0].masks)
    np.testing.assert_array_equal(
        np.concatenate([p.background for p in parts]), whole[0].background
    )
    for piece, copy in zip(pieces, before, strict=True):
        np.testing.assert_array_equal(piece, copy)


def test_ignored_pixels_are_left_out_and_not_scored(clip, tmp_path, capsys):
    """--ignore: a mask over part of the block's path (a 'timestamp'); those pixels are
    missing in every frame, never foreground inside the mask, and not counted."""
    from PIL import Image

    mask = np.zeros((H, W), dtype=np.uint8)
    mask[6:18, 10:22] = 255
    Image.fromarray(mask).save(tmp_path / "ignore.png")
    out = tmp_path / "out"
    args = ["video", str(clip), "--out", str(out), "--scale", "1", "--quiet"]
    assert main([*args, "--ignore", str(tmp_path / "ignore.png")]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["ignored_pixels"] == 12 * 12
    assert sum(summary["counts"].values()) == N * (H * W - 12 * 12)
    assert summary["f_measure"] > 0.7
    inner = np.stack([np.asarray(Image.open(m)) for m in sorted((out / "masks").glob("*.png"))])
    assert not inner[:, 8:16, 12:20].any()  # deep inside the mask: nothing seen there
    # a mask of the wrong size names the file and both sizes
    Image.fromarray(np.zeros((5, 5), dtype=np.uint8)).save(tmp_path / "small.png")
    code = main([*args, "--overwrite", "--ignore", str(tmp_path / "small.png")])
    assert code == 1 and "--ignore" in capsys.readouterr().err


@pytest.mark.parametrize("method", ["orpca", "pcp"])
def test_a_dask_array_of_frames_streams_by_blocks(method):
    """A lazy clip (a dask array of frames): its blocks of frames are the batches, and
    the result is that of the same blocks given as NumPy batches."""
    da = pytest.importorskip("dask.array")
    frames, _ = synthetic_clip()
    lazy = da.from_array(frames, chunks=(20, 12, 16))
    got = list(subtract_background(lazy, method=method))
    want = list(subtract_background((frames[i : i + 20] for i in range(0, N, 20)), method=method))
    assert [p.start for p in got] == [0, 20, 40]
    for a, b in zip(got, want, strict=True):
        np.testing.assert_array_equal(a.masks, b.masks)
        np.testing.assert_array_equal(np.asarray(a.background), np.asarray(b.background))
    with pytest.raises(ValueError, match="dask array of frames"):
        next(subtract_background(lazy[0]))
