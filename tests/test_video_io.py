"""Video in and out: video files, frame folders and CDnet clips written in tmp_path, every
error path, the writers, and the real CDnet clips (highway, fall)."""

from __future__ import annotations

import gc
import itertools
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from robustpca.datasets import (
    CDnetClip,
    VideoInfo,
    iter_cdnet,
    iter_video,
    load_cdnet,
    read_video,
    video_info,
    write_frames,
    write_masks,
    write_preview,
)
from robustpca.metrics import (
    best_threshold_f_measure,
    change_detection_counts,
    change_detection_measures,
    measures_from_counts,
)

av = pytest.importorskip("av")
Image = pytest.importorskip("PIL.Image")
iio = pytest.importorskip("imageio.v3")


@pytest.fixture(autouse=True)
def _collections_see_only_the_tests_objects(request):
    """imageio's PyAV plugin runs ``gc.collect()`` on every close (to free PyAV's filter
    graph on the calling thread), and a full collection walks every object of the test
    session: most of these tests' time. Objects older than the test are frozen out of
    the collections; what the test makes, PyAV's graphs included, is still collected.
    Not for a Hypothesis test: it looks for the referrers of its random generator
    (``gc.get_referrers``, which does not see frozen objects), and warns."""
    if getattr(request.function, "is_hypothesis_test", False):
        yield
        return
    gc.freeze()
    yield
    gc.unfreeze()


def moving_square(n=6, h=16, w=24, colour=False):
    """``n`` uint8 frames: a grey ramp with a bright square moving right (planted truth)."""
    frames = np.tile(np.linspace(40, 120, w, dtype=np.uint8), (n, h, 1))
    truth = np.zeros((n, h, w), dtype=bool)
    for i in range(n):
        truth[i, 4:10, 2 + 2 * i : 8 + 2 * i] = True
    frames[truth] = 230
    if colour:
        frames = np.stack([frames, frames // 2, 255 - frames], axis=-1)
    return frames, truth


def write_mp4(path, frames, fps=10):
    """An H.264 (or MPEG-4) file of uint8 RGB ``frames`` with PyAV."""
    codec = "libx264" if "libx264" in av.codecs_available else "mpeg4"
    with av.open(str(path), mode="w") as container:
        stream = container.add_stream(codec, rate=fps)
        stream.width, stream.height, stream.pix_fmt = frames.shape[2], frames.shape[1], "yuv420p"
        if codec == "libx264":
            stream.options = {"crf": "0"}
        for frame in frames:
            for packet in stream.encode(av.VideoFrame.from_ndarray(frame, format="rgb24")):
                container.mux(packet)
        for packet in stream.encode():
            container.mux(packet)
    return path


def make_cdnet(root, numbers=range(5, 11), temporal=(7, 20), h=12, w=16, roi=True, gt=True):
    """A CDnet clip folder: PNG frames ``inNNNNNN.png``, ground truth with every label,
    ``ROI.bmp`` (left column outside) and ``temporalROI.txt``. Returns the planted labels."""
    numbers = list(numbers)
    frames, truth = moving_square(len(numbers), h, w, colour=True)
    root.mkdir(parents=True, exist_ok=True)
    write_frames(root / "input", frames, pattern="in{:06d}.png", frame_numbers=numbers)
    labels = np.where(truth, 255, 0).astype(np.uint8)
    labels[:, 0, :] = 50
    labels[:, 1, :] = 170
    labels[:, :, 0] = 85
    if gt:
        write_frames(root / "groundtruth", labels, pattern="gt{:06d}.png", frame_numbers=numbers)
    if roi:
        inside = np.full((h, w), 255, dtype=np.uint8)
        inside[:, 0] = 0
        Image.fromarray(inside).save(root / "ROI.bmp")
    if temporal is not None:
        (root / "temporalROI.txt").write_text(f"{temporal[0]} {temporal[1]}\n")
    return frames, labels


# ----------------------------------------------------------------------------- reading
def test_read_frame_folder_grey_colour_scale_and_frames(tmp_path):
    frames, _ = moving_square(colour=True)
    write_frames(tmp_path, frames)
    colour = read_video(tmp_path, grey=False)
    assert colour.shape == (6, 16, 24, 3) and colour.dtype == np.float32
    np.testing.assert_array_equal(colour, frames)
    grey = read_video(tmp_path)
    expected = np.stack([np.asarray(Image.fromarray(f).convert("L")) for f in frames])
    np.testing.assert_array_equal(grey, expected)
    assert grey.min() >= 0 and grey.max() <= 255
    # a box filter: each pixel of the half-size frame is the mean of its 2x2 block
    half = read_video(tmp_path, scale=0.5, dtype=np.float64)
    assert half.shape == (6, 8, 12)
    blocks = expected.reshape(6, 8, 2, 12, 2).astype(float).mean(axis=(2, 4))
    assert np.abs(half - blocks).max() <= 0.5 + 1e-9
    np.testing.assert_array_equal(read_video(tmp_path, frames=slice(1, 5, 2)), grey[1:5:2])
    np.testing.assert_array_equal(read_video(tmp_path, frames=range(2, 4)), grey[2:4])
    np.testing.assert_array_equal(read_video(tmp_path, frames=slice(-2, None)), grey[-2:])
    assert read_video(tmp_path, dtype=np.uint8).dtype == np.uint8


@settings(max_examples=15)
@given(
    seed=st.integers(0, 2**32 - 1),
    shape=st.tuples(st.integers(1, 4), st.integers(1, 9), st.integers(1, 9)),
    colour=st.booleans(),
    scale=st.floats(0.1, 2.0),
)
def test_png_round_trip_and_scaled_shape(tmp_path_factory, seed, shape, colour, scale):
    """Frames written as PNG read back exactly; any scale gives the rounded shape."""
    frames = np.random.default_rng(seed).integers(0, 256, (*shape, 3) if colour else shape)
    folder = tmp_path_factory.mktemp("frames")
    write_frames(folder, frames.astype(np.uint8))
    np.testing.assert_array_equal(read_video(folder, grey=not colour), frames)
    resized = read_video(folder, grey=False, scale=scale)
    expected = (max(1, round(shape[1] * scale)), max(1, round(shape[2] * scale)))
    assert resized.shape == (shape[0], *expected, 3)
    assert video_info(folder, scale=scale).frame_shape == expected
    # a box filter keeps the levels within the frames' range
    assert frames.min() <= resized.min() and resized.max() <= frames.max()


def test_iter_video_batches_equal_read_video(tmp_path):
    frames, _ = moving_square(n=7)
    write_frames(tmp_path, frames)
    batches = list(iter_video(tmp_path, batch_size=3, scale=0.5, frames=slice(1, None)))
    assert [b.shape[0] for b in batches] == [3, 3]
    np.testing.assert_array_equal(
        np.concatenate(batches), read_video(tmp_path, scale=0.5, frames=slice(1, None))
    )


def test_video_file_reading_streams_and_matches_frames(tmp_path):
    frames, _ = moving_square(n=8, h=32, w=48, colour=True)
    path = write_mp4(tmp_path / "clip.mp4", frames)
    video = read_video(path, grey=False)
    assert video.shape == frames.shape
    # lossless H.264 in yuv420p: only the chroma subsampling differs
    assert np.abs(video - frames).mean() < 6
    grey = read_video(path)
    assert grey.shape == (8, 32, 48)
    np.testing.assert_array_equal(read_video(path, frames=slice(2, 7, 2)), grey[2:7:2])
    batches = list(iter_video(path, batch_size=3, scale=0.5))
    assert [b.shape for b in batches] == [(3, 16, 24), (3, 16, 24), (2, 16, 24)]
    info = video_info(path)
    assert info.frame_shape == (32, 48) and info.fps == pytest.approx(10)
    assert info.n_frames in (8, None)
    assert video_info(path, scale=0.5).frame_shape == (16, 24)


def test_iter_video_holds_one_batch(tmp_path, monkeypatch):
    """Taking one batch of a long video decodes only that batch's frames."""
    frames, _ = moving_square(n=40, h=16, w=16, colour=True)
    path = write_mp4(tmp_path / "long.mp4", frames)
    decoded = []
    real_imiter = iio.imiter

    def counting_imiter(*args, **kwargs):
        for frame in real_imiter(*args, **kwargs):
            decoded.append(1)
            yield frame

    monkeypatch.setattr(iio, "imiter", counting_imiter)
    first = next(iter_video(path, batch_size=4))
    assert first.shape == (4, 16, 16)
    assert len(decoded) == 4


def test_video_frames_of_different_sizes_or_broken_mid_stream(tmp_path, monkeypatch):
    path = tmp_path / "odd.mkv"
    path.write_bytes(b"stand-in")  # the decoder is replaced below

    def resizing(*args, **kwargs):
        yield np.zeros((8, 8, 3), np.uint8)
        yield np.zeros((8, 10, 3), np.uint8)

    monkeypatch.setattr(iio, "imiter", resizing)
    with pytest.raises(ValueError, match=r"odd\.mkv: frame 1 is 10x8.*different sizes"):
        read_video(path)

    def broken(*args, **kwargs):
        yield np.zeros((8, 8, 3), np.uint8)
        raise av.error.InvalidDataError(1094995529, "Invalid data found when processing input")

    monkeypatch.setattr(iio, "imiter", broken)
    with pytest.raises(ValueError, match=r"odd\.mkv: not a readable video.*Invalid data"):
        read_video(path)


@pytest.mark.parametrize("kind", ["folder", "mp4", "cdnet"])
def test_streaming_memory_does_not_grow_with_the_clip(tmp_path, kind):
    """The peak of a pass over 3x more frames stays that of one batch (tracemalloc).

    Frames of 64 x 96 make the whole clip large next to what a pass holds whatever the
    clip (imports, the list of the frames' paths: 3.13's paths are larger, and at
    32 x 48 a pass over the CDNet clip peaked at 52% of the whole clip as float32)."""
    from .conftest import peak_memory

    frames, _ = moving_square(n=96, h=64, w=96, colour=True)

    def clip(n):
        root = tmp_path / f"{kind}{n}"
        if kind == "mp4":
            return write_mp4(tmp_path / f"clip{n}.mp4", frames[:n])
        if kind == "cdnet":
            make_cdnet(root, numbers=range(1, n + 1), h=64, w=96)
            return root
        write_frames(root, frames[:n])
        return root

    def one_pass(path):
        if kind == "cdnet":
            return lambda: sum(b.n_frames for b in iter_cdnet(path, batch_size=8))
        return lambda: sum(len(b) for b in iter_video(path, batch_size=8))

    short, long = clip(32), clip(96)
    one_pass(long)()  # imports and caches out of the measure
    peaks = [peak_memory(one_pass(path)) for path in (short, long)]
    whole = 96 * 64 * 96 * 4  # the long clip as float32
    assert peaks[1] < 1.5 * peaks[0] + 50_000, peaks
    assert peaks[1] < whole / 2, peaks


def test_video_info_of_folders_and_cdnet_clips(tmp_path):
    make_cdnet(tmp_path / "clip")
    assert video_info(tmp_path / "clip") == VideoInfo(6, (12, 16), None)
    assert video_info(tmp_path / "clip", scale=0.25).frame_shape == (3, 4)
    # a CDnet clip folder reads its input/
    assert read_video(tmp_path / "clip").shape == (6, 12, 16)


@pytest.mark.parametrize("numbers", [(470,), (None, None), (470.9, 471.9), "470-471", 470])
def test_cdnet_numbers_must_be_a_pair_of_whole_numbers(tmp_path, numbers):
    """numbers=(470.9, 471.9) was cut to frames 470-471, (470,) and (None, None) raised
    unpacking and int() errors."""
    make_cdnet(tmp_path / "clip")
    with pytest.raises(ValueError, match="numbers must be \\(first, last\\)"):
        load_cdnet(tmp_path / "clip", numbers=numbers)
    assert load_cdnet(tmp_path / "clip", numbers=np.array([7, 8])).frames.shape[0] == 2


def test_errors_name_the_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="nowhere"):
        read_video(tmp_path / "nowhere.mp4")
    with pytest.raises(FileNotFoundError, match="nowhere"):
        video_info(tmp_path / "nowhere")
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "notes.txt").write_text("no frames here")
    with pytest.raises(ValueError, match="empty: no frames found"):
        read_video(empty)
    corrupt = tmp_path / "corrupt.mp4"
    corrupt.write_bytes(b"\x00\x00\x00\x18ftypmp42" + bytes(range(256)) * 4)
    with pytest.raises(ValueError, match=r"corrupt\.mp4: not a readable video"):
        read_video(corrupt)
    with pytest.raises(ValueError, match=r"corrupt\.mp4: not a readable video"):
        video_info(corrupt)
    with pytest.raises(ValueError, match=r"corrupt\.mp4: not a readable video"):
        next(iter_video(corrupt))
    # frames of different sizes
    sizes = tmp_path / "sizes"
    write_frames(sizes, np.zeros((2, 8, 8)))
    Image.fromarray(np.zeros((8, 9), np.uint8)).save(sizes / "bg000003.png")
    with pytest.raises(ValueError, match=r"bg000003.png: frame size 9x8 differs"):
        read_video(sizes)
    # a frame that is not an image
    broken = tmp_path / "broken"
    write_frames(broken, np.zeros((2, 8, 8)))
    (broken / "bg000002.png").write_bytes(b"not a png")
    with pytest.raises(ValueError, match=r"bg000002\.png: not a readable image"):
        read_video(broken)


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"scale": 0}, ValueError, "scale"),
        ({"scale": "half"}, TypeError, "scale"),
        ({"frames": [1, 2]}, TypeError, "frames"),
        ({"frames": slice(None, None, -1)}, ValueError, "frames"),
        ({"frames": slice(0.5, 2)}, TypeError, "frames"),
        ({"frames": slice(10, 20)}, ValueError, "selects none"),
        ({"dtype": np.int8}, ValueError, "dtype"),
    ],
)
def test_bad_parameters(tmp_path, kwargs, error, match):
    write_frames(tmp_path, np.zeros((3, 4, 4)))
    with pytest.raises(error, match=match):
        read_video(tmp_path, **kwargs)


def test_bad_batch_size_and_video_selections(tmp_path):
    frames, _ = moving_square(n=3, colour=True)
    path = write_mp4(tmp_path / "c.mp4", frames)
    with pytest.raises(ValueError, match="batch_size"):
        next(iter_video(path, batch_size=0))
    # mp4 gives its number of frames: counting from the end works (numpy ints too)
    np.testing.assert_array_equal(
        read_video(path, frames=slice(np.int64(-2), None)), read_video(path)[1:]
    )
    mkv = write_mp4(tmp_path / "c.mkv", frames)
    assert video_info(mkv).n_frames is None  # Matroska does not say
    with pytest.raises(ValueError, match="count from the end"):
        read_video(mkv, frames=slice(-2, None))
    with pytest.raises(ValueError, match="selects no frame"):
        read_video(path, frames=slice(5, 9))
    with pytest.raises(ValueError, match="selects no frame"):
        next(iter_video(path, frames=slice(5, 9)))


# ----------------------------------------------------------------------------- CDnet
def test_load_cdnet_planted_clip(tmp_path):
    frames, labels = make_cdnet(tmp_path / "clip", numbers=range(5, 11), temporal=(7, 20))
    (tmp_path / "clip/input/._in000005.png").write_bytes(b"macOS resource fork")
    clip = load_cdnet(tmp_path / "clip")
    assert isinstance(clip, CDnetClip) and clip.name == "clip"
    assert clip.frames.shape == (6, 12, 16) and clip.frames.dtype == np.float32
    assert clip.frame_numbers.tolist() == [5, 6, 7, 8, 9, 10]
    assert clip.temporal_roi == (7, 20)
    assert clip.scored.tolist() == [False, False, True, True, True, True]
    np.testing.assert_array_equal(clip.labels, labels)
    assert clip.labels.dtype == np.uint8
    assert not clip.roi[:, 0].any() and clip.roi[:, 1:].all()
    assert clip.n_frames == 6 and clip.frame_shape == (12, 16)
    colour = load_cdnet(tmp_path / "clip", grey=False, dtype=np.uint8)
    assert colour.frames.dtype == np.uint8
    np.testing.assert_array_equal(colour.frames, frames)
    # the planted foreground scores perfectly
    m = change_detection_measures(labels == 255, clip.labels, clip.roi, scored=clip.scored)
    assert m["f_measure"] == 1.0 and m["pwc"] == 0.0


def test_iter_cdnet_batches_equal_the_whole_clip(tmp_path):
    make_cdnet(tmp_path / "clip", numbers=range(5, 12), temporal=(7, 20))
    whole = load_cdnet(tmp_path / "clip", scale=0.5, frames=slice(1, None))
    batches = list(iter_cdnet(tmp_path / "clip", batch_size=4, scale=0.5, frames=slice(1, None)))
    assert [b.n_frames for b in batches] == [4, 2]
    for name in ("frames", "labels", "frame_numbers", "scored"):
        np.testing.assert_array_equal(
            np.concatenate([getattr(b, name) for b in batches]), getattr(whole, name)
        )
    assert all(b.temporal_roi == (7, 20) and (b.roi == whole.roi).all() for b in batches)
    # counts summed over the batches give the clip's measures
    masks = whole.frames > 150
    counts = np.sum(
        [
            change_detection_counts(b.frames > 150, b.labels, b.roi, scored=b.scored)
            for b in batches
        ],
        axis=0,
    )
    expected = change_detection_measures(masks, whole.labels, whole.roi, scored=whole.scored)
    assert measures_from_counts(*(int(c) for c in counts)) == expected
    # the layout is checked at the call, before any batch
    with pytest.raises(FileNotFoundError, match="nowhere"):
        iter_cdnet(tmp_path / "nowhere")
    with pytest.raises(ValueError, match="batch_size"):
        iter_cdnet(tmp_path / "clip", batch_size=0)
    with pytest.raises(ValueError, match="dtype"):
        iter_cdnet(tmp_path / "clip", dtype=np.int8)
    assert next(iter_cdnet(tmp_path / "clip", dtype=np.uint8)).frames.dtype == np.uint8
    # a frame of another size in a later batch names its file
    Image.fromarray(np.zeros((3, 3, 3), np.uint8)).save(tmp_path / "clip/input/in000011.png")
    with pytest.raises(ValueError, match=r"in000011\.png: frame size 3x3"):
        list(iter_cdnet(tmp_path / "clip", batch_size=4))


def test_load_cdnet_scale_keeps_label_values(tmp_path):
    make_cdnet(tmp_path / "clip", h=12, w=16)
    clip = load_cdnet(tmp_path / "clip", scale=0.5)
    assert clip.frames.shape == (6, 6, 8) and clip.labels.shape == (6, 6, 8)
    assert clip.roi.shape == (6, 8)
    assert set(np.unique(clip.labels).tolist()) <= {0, 50, 85, 170, 255}


def test_load_cdnet_selections(tmp_path):
    make_cdnet(tmp_path / "clip", numbers=range(5, 11))
    clip = load_cdnet(tmp_path / "clip", frames=slice(1, 3))
    assert clip.frame_numbers.tolist() == [6, 7]
    assert clip.scored.tolist() == [False, True]
    assert load_cdnet(tmp_path / "clip", numbers=(8, 9)).frame_numbers.tolist() == [8, 9]
    with pytest.raises(ValueError, match="selects none"):
        load_cdnet(tmp_path / "clip", numbers=(100, 200))
    with pytest.raises(ValueError, match="not both"):
        load_cdnet(tmp_path / "clip", numbers=(5, 6), frames=slice(0, 2))


def test_load_cdnet_without_optional_files(tmp_path):
    make_cdnet(tmp_path / "clip", roi=False, temporal=None, gt=False)
    clip = load_cdnet(tmp_path / "clip")
    assert clip.roi.shape == (12, 16) and clip.roi.all()
    assert clip.temporal_roi == (5, 10)
    assert clip.labels is None and not clip.scored.any()


@pytest.mark.parametrize("level", [1, 100, 255])
def test_load_cdnet_roi_is_every_pixel_not_black(tmp_path, level):
    """CDnet's comparator counts every ROI pixel that is not black; a ROI.bmp of grey
    100 inside had been read as empty (a cut at 127)."""
    make_cdnet(tmp_path / "clip")
    inside = np.full((12, 16), level, dtype=np.uint8)
    inside[:, 0] = 0
    Image.fromarray(inside).save(tmp_path / "clip/ROI.bmp")
    clip = load_cdnet(tmp_path / "clip")
    assert not clip.roi[:, 0].any() and clip.roi[:, 1:].all()


def test_load_cdnet_ground_truth_outside_the_temporal_roi_may_be_missing(tmp_path):
    make_cdnet(tmp_path / "clip", numbers=range(5, 11), temporal=(7, 20))
    (tmp_path / "clip" / "groundtruth" / "gt000005.png").unlink()
    clip = load_cdnet(tmp_path / "clip")
    assert (clip.labels[0] == 85).all()
    assert clip.scored.tolist() == [False, False, True, True, True, True]


def test_load_cdnet_errors_name_the_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="nowhere"):
        load_cdnet(tmp_path / "nowhere")
    (tmp_path / "noinput").mkdir()
    with pytest.raises(FileNotFoundError, match="input"):
        load_cdnet(tmp_path / "noinput")

    make_cdnet(tmp_path / "missing", temporal=(7, 20))
    (tmp_path / "missing" / "groundtruth" / "gt000008.png").unlink()
    with pytest.raises(ValueError, match=r"gt000008\.png: ground truth missing"):
        load_cdnet(tmp_path / "missing")

    make_cdnet(tmp_path / "size")
    Image.fromarray(np.zeros((12, 15), np.uint8)).save(tmp_path / "size/groundtruth/gt000009.png")
    with pytest.raises(ValueError, match=r"gt000009\.png: ground truth size 15x12"):
        load_cdnet(tmp_path / "size")

    make_cdnet(tmp_path / "values")
    Image.fromarray(np.ones((12, 16), np.uint8)).save(tmp_path / "values/groundtruth/gt000006.png")
    with pytest.raises(ValueError, match=r"gt000006.png: labels \[1\]"):
        load_cdnet(tmp_path / "values")

    make_cdnet(tmp_path / "roi")
    Image.fromarray(np.zeros((5, 5), np.uint8)).save(tmp_path / "roi/ROI.bmp")
    with pytest.raises(ValueError, match=r"ROI\.bmp: ROI size 5x5"):
        load_cdnet(tmp_path / "roi")

    make_cdnet(tmp_path / "troi")
    (tmp_path / "troi/temporalROI.txt").write_text("first last")
    with pytest.raises(ValueError, match=r"temporalROI\.txt"):
        load_cdnet(tmp_path / "troi")

    make_cdnet(tmp_path / "names")
    Image.fromarray(np.zeros((12, 16), np.uint8)).save(tmp_path / "names/input/frame1.png")
    with pytest.raises(ValueError, match=r"frame1\.png: not a CDnet file name"):
        load_cdnet(tmp_path / "names")

    make_cdnet(tmp_path / "frames")
    Image.fromarray(np.zeros((11, 16), np.uint8)).save(tmp_path / "frames/input/in000008.png")
    with pytest.raises(ValueError, match=r"in000008\.png: frame size 16x11"):
        load_cdnet(tmp_path / "frames")


# ----------------------------------------------------------------------------- writing
def test_write_masks_cdnet_names_and_values(tmp_path):
    _, truth = moving_square(n=3)
    paths = write_masks(tmp_path / "out" / "masks", truth, frame_numbers=[470, 471, 472])
    assert [p.name for p in paths] == ["bin000470.png", "bin000471.png", "bin000472.png"]
    back = np.stack([np.asarray(Image.open(p)) for p in paths])
    assert set(np.unique(back).tolist()) == {0, 255}
    np.testing.assert_array_equal(back == 255, truth)
    # batches, numbered from 1
    paths = write_masks(tmp_path / "batches", iter([truth[:2], truth[2:]]))
    assert [p.name for p in paths] == ["bin000001.png", "bin000002.png", "bin000003.png"]
    with pytest.raises(ValueError, match="fewer"):
        write_masks(tmp_path / "few", truth, frame_numbers=[1, 2])
    with pytest.raises(ValueError, match="more numbers"):
        write_masks(tmp_path / "many", truth, frame_numbers=[1, 2, 3, 4])
    with pytest.raises(ValueError, match="no frames"):
        write_masks(tmp_path / "none", iter([]))
    with pytest.raises(ValueError, match="batches of shape"):
        write_masks(tmp_path / "flat", truth[0, 0])


def test_write_frames_round_trip_and_rounding(tmp_path):
    frames = np.array([[[-3.0, 0.4, 254.6, 300.0]]])
    (path,) = write_frames(tmp_path, frames, pattern="background{:03d}.png", frame_numbers=[7])
    assert path.name == "background007.png"
    np.testing.assert_array_equal(np.asarray(Image.open(path)), [[0, 0, 255, 255]])
    with pytest.raises(ValueError, match="NaN"):
        write_frames(tmp_path / "nan", np.full((1, 2, 2), np.nan))
    colour, _ = moving_square(n=2, colour=True)
    write_frames(tmp_path / "colour", colour, pattern="{:04d}.png")
    np.testing.assert_array_equal(read_video(tmp_path / "colour", grey=False), colour)


@pytest.mark.parametrize("suffix", [".gif", ".mp4", ".avi", ".mkv"])
def test_write_preview_side_by_side(tmp_path, suffix):
    frames, truth = moving_square(n=5, h=16, w=24)
    background = np.tile(np.linspace(40, 120, 24), (16, 1))
    batches = (frames[i : i + 2] for i in range(0, 5, 2))
    mask_batches = (truth[i : i + 2] for i in range(0, 5, 2))
    path = write_preview(tmp_path / f"preview{suffix}", batches, background, mask_batches, fps=5)
    video = read_video(path)
    assert video.shape == (5, 16, 72)
    expected = np.concatenate(
        [frames, np.broadcast_to(np.rint(background), (5, 16, 24)), 255.0 * truth], axis=2
    )
    if suffix == ".gif":
        np.testing.assert_array_equal(video, expected)
    else:  # lossy codecs: close on average, and the mask panel still shows the square
        assert np.abs(video - expected).mean() < 8
        assert ((video[:, :, 48:] > 127) == truth).mean() > 0.95


def test_write_preview_pads_odd_sizes_for_video(tmp_path):
    frames, truth = moving_square(n=2, h=15, w=9, colour=True)
    path = write_preview(tmp_path / "odd.mp4", frames, frames, truth)
    assert read_video(path).shape == (2, 16, 28)


def test_write_preview_errors(tmp_path):
    frames, truth = moving_square(n=3)
    with pytest.raises(ValueError, match="cannot write a preview"):
        write_preview(tmp_path / "p.txt", frames, frames, truth)
    with pytest.raises(ValueError, match="fps"):
        write_preview(tmp_path / "p.gif", frames, frames, truth, fps=0)
    with pytest.raises(ValueError, match="different numbers of frames"):
        write_preview(tmp_path / "p.gif", frames, frames, truth[:2])
    with pytest.raises(ValueError, match="different numbers of frames"):
        write_preview(tmp_path / "p.gif", frames[:2], frames, truth[:2])
    with pytest.raises(ValueError, match="differ in size"):
        write_preview(tmp_path / "p.gif", frames, frames[:, :8], truth)
    with pytest.raises(ValueError, match="no frames"):
        write_preview(tmp_path / "p.mp4", iter([]), iter([]), iter([]))


def test_inputs_are_not_modified(tmp_path):
    frames, truth = moving_square(n=2)
    floats = frames.astype(float) + 0.3
    before = floats.copy(), truth.copy()
    write_frames(tmp_path / "f", floats)
    write_masks(tmp_path / "m", truth)
    write_preview(tmp_path / "p.gif", floats, floats[0], truth)
    np.testing.assert_array_equal(floats, before[0])
    np.testing.assert_array_equal(truth, before[1])


# ----------------------------------------------------------------------------- real data
@pytest.fixture(scope="module")
def video_data() -> Path:
    """The CDnet clips of the shared data; missing is an error, never a silent skip."""
    from _harness import data_home

    path = data_home("video") / "video"
    if not (path / "highway" / "input").is_dir():
        pytest.fail(f"video clips not found at {path}; set ROBUSTPCA_DATA (see SOURCES.md)")
    return path


@pytest.mark.realdata
def test_highway_slice(video_data):
    clip = load_cdnet(video_data / "highway", scale=0.5, numbers=(1050, 1349))
    assert clip.frames.shape == (300, 120, 160)
    assert clip.frame_numbers[0] == 1050 and clip.frame_numbers[-1] == 1349
    assert clip.temporal_roi == (470, 1700)
    assert clip.scored.all() and clip.roi.all()
    assert set(np.unique(clip.labels).tolist()) <= {0, 50, 85, 170, 255}
    assert (clip.labels == 255).any()
    # a temporal median background and a fixed threshold find the cars
    residual = np.abs(clip.frames - np.median(clip.frames, axis=0))
    m = change_detection_measures(residual > 25, clip.labels, clip.roi, scored=clip.scored)
    assert m["f_measure"] > 0.7, m
    f, t = best_threshold_f_measure(residual, clip.labels, clip.roi, scored=clip.scored)
    assert m["f_measure"] <= f < 1.0 and np.isfinite(t)
    # the same frames by position and through read_video
    np.testing.assert_array_equal(
        read_video(video_data / "highway", scale=0.5, frames=slice(580, 582)), clip.frames[:2]
    )
    info = video_info(video_data / "highway")
    assert info == VideoInfo(1231, (240, 320), None)


@pytest.mark.realdata
def test_fall_slice(video_data):
    clip = load_cdnet(video_data / "fall", scale=0.25, frames=slice(50, 110, 3), grey=False)
    assert clip.frames.shape == (20, 120, 180, 3)
    assert clip.frame_numbers.tolist() == list(range(1451, 1510, 3))
    assert clip.temporal_roi == (1000, 4000)
    assert clip.scored.all() and clip.roi.all()
    assert set(np.unique(clip.labels).tolist()) <= {0, 50, 85, 170, 255}
    assert 0 <= clip.frames.min() and clip.frames.max() <= 255


def test_frames_of_written_clip_stream_in_order(tmp_path):
    frames, _ = moving_square(n=9)
    write_frames(tmp_path, frames)
    streamed = np.concatenate(list(iter_video(tmp_path, batch_size=4, dtype=np.uint8)))
    np.testing.assert_array_equal(streamed, frames)
    # a second pass of the iterator starts over
    again = itertools.islice(iter_video(tmp_path, batch_size=4), 1)
    assert next(again).shape == (4, 16, 24)
