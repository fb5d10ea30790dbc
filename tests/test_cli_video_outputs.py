"""``robustpca video``'s outputs beyond the masks: ``background.png`` is the mean of the
frames' backgrounds (docs/video.md), the model gets ``-k`` and ``--random-state``, the
frames are fitted at half size by default (``--scale``'s help: default 0.5) while the
masks keep the input's size, and a batch must hold a frame."""

from __future__ import annotations

import json

import numpy as np
import pytest

from robustpca.cli import main
from robustpca.datasets import write_frames

PIL = pytest.importorskip("PIL.Image")

H, W, N = 16, 20, 20


def moving_block_frames(seed: int = 0) -> np.ndarray:
    """A static textured scene with sensor noise and a bright block crossing it."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:H, 0:W]
    scene = 100 + 40 * np.sin(xx / 5.0) * np.cos(yy / 4.0)
    frames = scene + 2.0 * rng.normal(size=(N, H, W))
    for t in range(N):
        frames[t, 4:10, t % (W - 5) : t % (W - 5) + 5] = 230.0
    return np.clip(frames, 0, 255)


def read_png(path) -> np.ndarray:
    with PIL.open(path) as image:
        return np.asarray(image, dtype=np.float64)


@pytest.mark.parametrize("batch_size", ["7", "100"])
def test_background_png_is_the_mean_of_the_frames_backgrounds(tmp_path, batch_size):
    """``background.png`` is the mean background over all frames (not the last batch's,
    nor a sum): the mean of the per-frame backgrounds written by ``--write-backgrounds``,
    to the rounding of the 8-bit files (half a level each)."""
    folder = tmp_path / "frames"
    write_frames(folder, moving_block_frames())
    out = tmp_path / "out"
    argv = ["video", str(folder), "--out", str(out), "--scale", "1", "--quiet"]
    assert main([*argv, "--write-backgrounds", "--batch-size", batch_size]) == 0
    each = np.stack([read_png(p) for p in sorted((out / "background").glob("bg*.png"))])
    assert each.shape == (N, H, W)
    mean = read_png(out / "background.png")
    np.testing.assert_allclose(mean, each.mean(axis=0), atol=1.0)


@pytest.mark.parametrize("method", ["grasta", "godec"])
def test_rank_and_seed_options_reach_the_model(tmp_path, method):
    """``-k`` and ``--random-state`` are the fitted model's parameters, as summary.json
    records them."""
    folder = tmp_path / "frames"
    write_frames(folder, moving_block_frames(1))
    out = tmp_path / "out"
    argv = ["video", str(folder), "--out", str(out), "--method", method, "--quiet"]
    assert main([*argv, "-k", "2", "--random-state", "7", "--preview", "none"]) == 0
    params = json.loads((out / "summary.json").read_text())["params"]
    assert params["n_components"] == 2 and params["random_state"] == 7


def test_frames_are_fitted_at_half_size_by_default_and_masks_keep_the_input_size(tmp_path):
    """Without ``--scale`` the frames are fitted at half their size (the help's default)
    and the masks are written at the input's size."""
    folder = tmp_path / "frames"
    write_frames(folder, moving_block_frames(2))
    out = tmp_path / "out"
    assert main(["video", str(folder), "--out", str(out), "--quiet", "--preview", "none"]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["scale"] == 0.5
    assert summary["frame_shape"] == [H // 2, W // 2] and summary["mask_shape"] == [H, W]
    assert read_png(next((out / "masks").glob("bin*.png"))).shape == (H, W)


def test_a_batch_of_no_frames_is_a_usage_error(tmp_path, capsys):
    """``--batch-size 0`` is refused by the parser (exit status 2, nothing written)."""
    folder = tmp_path / "frames"
    write_frames(folder, moving_block_frames(3)[:4])
    out = tmp_path / "out"
    with pytest.raises(SystemExit) as stop:
        main(["video", str(folder), "--out", str(out), "--batch-size", "0"])
    assert stop.value.code == 2 and "--batch-size" in capsys.readouterr().err
    assert not out.exists()


def test_scale_accepts_up_to_four_and_refuses_zero_or_more(tmp_path, capsys):
    """``--scale`` lies in (0, 4]: 4 fits the frames at four times their size (masks still
    at the input's size); 0 and 4.5 are errors naming the range, with nothing written."""
    folder = tmp_path / "frames"
    write_frames(folder, moving_block_frames(4)[:6, :6, :8])
    out = tmp_path / "out"
    argv = ["video", str(folder), "--quiet", "--preview", "none"]
    assert main([*argv, "--out", str(out), "--scale", "4"]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["frame_shape"] == [24, 32] and summary["mask_shape"] == [6, 8]
    for bad in ("0", "4.5"):
        assert main([*argv, "--out", str(tmp_path / bad), "--scale", bad]) == 1
        assert "(0, 4]" in capsys.readouterr().err
        assert not (tmp_path / bad).exists()


def test_colour_frames_are_fitted_grey_unless_colour_is_given(tmp_path):
    """RGB frames are fitted as grey frames by default (one channel: the backgrounds
    written are grey images) and in colour with ``--colour`` (RGB backgrounds)."""
    grey = moving_block_frames(5)
    rgb = np.stack([grey, 0.5 * grey, 255 - grey], axis=-1)
    folder = tmp_path / "frames"
    write_frames(folder, rgb)
    argv = ["video", str(folder), "--scale", "1", "--quiet", "--preview", "none"]
    for extra, shape in (((), (H, W)), (("--colour",), (H, W, 3))):
        out = tmp_path / f"out{len(extra)}"
        assert main([*argv, "--out", str(out), "--write-backgrounds", *extra]) == 0
        assert json.loads((out / "summary.json").read_text())["colour"] is bool(extra)
        assert read_png(next((out / "background").glob("bg*.png"))).shape == shape


def test_background_png_of_a_colour_fit_is_the_colour_mean_background(tmp_path):
    """With ``--colour`` the backgrounds are RGB and ``background.png`` is their mean
    over the frames, in colour too (it was written grey), to 8-bit rounding."""
    grey = moving_block_frames(6)
    rgb = np.stack([grey, 0.5 * grey, 255 - grey], axis=-1)
    folder = tmp_path / "frames"
    write_frames(folder, rgb)
    out = tmp_path / "out"
    argv = ["video", str(folder), "--out", str(out), "--scale", "1", "--quiet", "--colour"]
    assert main([*argv, "--write-backgrounds", "--preview", "none"]) == 0
    each = np.stack([read_png(p) for p in sorted((out / "background").glob("bg*.png"))])
    assert each.shape == (N, H, W, 3)
    np.testing.assert_allclose(read_png(out / "background.png"), each.mean(axis=0), atol=1.0)


@pytest.mark.parametrize("method", ["orpca", "godec"])
def test_a_rank_the_frames_cannot_hold_is_a_one_line_error(tmp_path, capsys, method):
    """``-k`` above the pixels of a frame (or the frames of the clip) is a one-line
    error naming ``-k`` and the input (exit status 1, no traceback, nothing written)."""
    folder = tmp_path / "frames"
    write_frames(folder, moving_block_frames(7)[:10, :4, :5])
    out = tmp_path / "out"
    argv = ["video", str(folder), "--out", str(out), "--scale", "1", "--quiet"]
    assert main([*argv, "--method", method, "-k", "30"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("robustpca video: error: ") and str(folder) in err
    assert "-k 30" in err and not out.exists()


def test_the_printed_line_gives_the_fitted_size_as_width_by_height(tmp_path, capsys):
    """The last lines name the method, the frames and their fitted size as WxH (the
    order of the ``--ignore`` message and of image tools), and the output folder."""
    folder = tmp_path / "frames"
    write_frames(folder, moving_block_frames(8))
    out = tmp_path / "out"
    assert main(["video", str(folder), "--out", str(out), "--scale", "1", "--quiet"]) == 0
    printed = capsys.readouterr().out
    assert f"orpca: {N} frames {W}x{H} in " in printed and f"wrote {out}" in printed
