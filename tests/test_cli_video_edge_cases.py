"""``robustpca video`` at its edges, on a few real CDnet highway frames copied to a
temporary folder (audit of the video pipeline):

- ``--overwrite`` never deletes what the command reads: an ``--out`` that is the input,
  holds it or holds the ``--ignore`` mask is refused, as ``robustpca fit`` refuses it;
- OR-PCA's first batch of no more frames than its rank (``--batch-size 1``) gives masks
  and a background of the frames' shape;
- a rank that never lets an online model start (``-k`` not below the number of frames, or
  a one-frame clip) is an error naming ``-k``, not a run whose masks are all empty;
- ``-k`` with ``--method pcp`` (whose penalty sets its rank) is refused;
- ``summary.json`` says whether a batch method's fit converged.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from robustpca.cli import main

#: highway frames 1050-1069 (people-free road with cars): 320x240 JPEGs
NUMBERS = range(1050, 1070)


@pytest.fixture
def frames(shared_data, tmp_path) -> Path:
    """A folder of 20 real highway frames, copied out of the data folder."""
    folder = tmp_path / "frames"
    folder.mkdir()
    source = shared_data / "video" / "highway" / "input"
    for k in NUMBERS:
        shutil.copy(source / f"in{k:06d}.jpg", folder)
    return folder


def video(*argv: object) -> int:
    return main(["video", *map(str, argv), "--scale", "0.25", "--quiet", "--preview", "none"])


def listing(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


@pytest.mark.parametrize("where", ["parent", "input"])
def test_overwrite_never_deletes_the_input_clip(frames, capsys, where):
    project = frames.parent
    out = project if where == "parent" else frames
    before = listing(project)
    assert video(frames, "--out", out, "--overwrite") == 1
    err = capsys.readouterr().err
    assert err.startswith("robustpca video: error: --out ")
    assert f"holds the input {frames}, which --overwrite would delete" in err
    assert listing(project) == before  # nothing deleted, nothing written


def test_overwrite_never_deletes_the_ignore_mask(frames, tmp_path, capsys):
    from PIL import Image

    out = tmp_path / "out"
    out.mkdir()
    mask = np.zeros((240, 320), dtype=np.uint8)
    mask[:20, :80] = 255  # a timestamp
    Image.fromarray(mask).save(out / "timestamp.png")
    assert video(frames, "--out", out, "--ignore", out / "timestamp.png", "--overwrite") == 1
    err = capsys.readouterr().err
    assert "holds the input" in err and "timestamp.png" in err
    assert listing(out) == ["timestamp.png"]


def test_a_first_batch_of_one_frame_gives_masks_and_a_background(frames, tmp_path, capsys):
    """OR-PCA's first batch of one frame (no more frames than the rank: no model yet)
    comes back with a background of the frames' shape, and the model starts at the
    second batch."""
    from PIL import Image

    out = tmp_path / "out"
    assert video(frames, "--out", out, "--batch-size", "1", "--write-backgrounds") == 0
    assert "wrote" in capsys.readouterr().out
    masks = sorted((out / "masks").glob("bin*.png"))
    assert len(masks) == len(NUMBERS)
    assert np.asarray(Image.open(out / "background.png")).shape == (60, 80)
    assert len(list((out / "background").glob("bg*.png"))) == len(NUMBERS)
    # the model starts at the second frame, and the masks after it find the cars
    assert sum(int((np.asarray(Image.open(p)) > 0).sum()) for p in masks[1:]) > 0


@pytest.mark.parametrize(
    ("method", "k"), [("orpca", 20), ("grasta", 20), ("grasta", 500), ("orpca", 500)]
)
def test_a_rank_that_never_starts_the_model_is_an_error_naming_k(
    frames, tmp_path, capsys, method, k
):
    out = tmp_path / "out"
    assert video(frames, "--out", out, "--method", method, "-k", k) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"robustpca video: error: -k {k}: ")
    assert "choose" in err and "-k" in err and "Traceback" not in err
    assert not out.exists()


def test_a_one_frame_clip_is_an_error_for_an_online_method(frames, tmp_path, capsys):
    one = tmp_path / "one"
    one.mkdir()
    shutil.copy(frames / "in001050.jpg", one)
    out = tmp_path / "out"
    assert video(one, "--out", out) == 1
    err = capsys.readouterr().err
    assert err.startswith("robustpca video: error: ") and "1 frame" in err
    assert "-k" in err and "at least 2 frames" in err and not out.exists()


def test_k_with_pcp_is_refused(frames, tmp_path, capsys):
    out = tmp_path / "out"
    assert video(frames, "--out", out, "--method", "pcp", "-k", "3") == 1
    err = capsys.readouterr().err
    assert err.startswith("robustpca video: error: -k 3: --method pcp")
    assert "penalty" in err and not out.exists()


def test_summary_says_whether_a_batch_fit_converged(frames, tmp_path):
    out = tmp_path / "out"
    assert video(frames, "--out", out, "--method", "accaltproj") == 0
    summary = json.loads((out / "summary.json").read_text())
    assert isinstance(summary["converged"], bool) and summary["n_iter"] >= 1
    online = tmp_path / "online"
    assert video(frames, "--out", online) == 0
    assert "converged" not in json.loads((online / "summary.json").read_text())


def test_a_clip_of_unknown_length_that_never_starts_the_model(
    frames, tmp_path, capsys, monkeypatch
):
    """Where the container does not give the number of frames (``video_info``'s
    ``n_frames`` None), the end of the stream says it, naming ``-k`` all the same."""
    import dataclasses

    import robustpca.datasets as datasets

    known = datasets.video_info
    monkeypatch.setattr(
        datasets, "video_info", lambda *a, **k: dataclasses.replace(known(*a, **k), n_frames=None)
    )
    out = tmp_path / "out"
    assert video(frames, "--out", out, "--method", "grasta", "-k", "20") == 1
    err = capsys.readouterr().err
    assert err.startswith("robustpca video: error: -k 20: --method grasta starts its model")
    assert "has 20 frame(s)" in err and not out.exists()
