"""``subtract_background``'s own OR-PCA route (the residual only, rows and residual
written over the last batch's arrays) against the generic route (the same model passed
in), on synthetic integer frames: through a burn-in that holds several batches and a
shorter last batch, with scores; frames of every integer type get the rounding floor;
and the frames given are never written, also in a stream whose batches change dtype."""

from __future__ import annotations

import numpy as np
import pytest

from robustpca.background_subtraction import make_video_model, subtract_background


def _clip(n: int = 167, dtype=np.uint8, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    scene = rng.uniform(40, 200, size=(18, 24))
    frames = scene + 2 * rng.normal(size=(n, 18, 24))
    for t in range(n):
        frames[t, 5:11, t % 18 : t % 18 + 6] += 60
    return np.round(frames).astype(dtype)


@pytest.mark.parametrize("scored", [False, True])
def test_the_orpca_route_is_the_models_own_split_on_integer_frames(scored):
    """Batches of 20 uint8 frames (OR-PCA's burn-in of 100 frames holds five of them) and
    a last batch of 7: masks, backgrounds and scores as with the model passed in."""
    frames = _clip()
    before = frames.copy()
    batches = [frames[s : s + 20] for s in range(0, len(frames), 20)]
    ours = list(subtract_background(batches, return_scores=scored))
    theirs = list(
        subtract_background(batches, model=make_video_model("orpca"), return_scores=scored)
    )
    assert [len(p.frames) for p in ours] == [20] * 8 + [7]
    for a, b in zip(ours, theirs, strict=True):
        np.testing.assert_array_equal(a.masks, b.masks)
        np.testing.assert_array_equal(a.background, b.background)
        if scored:
            np.testing.assert_array_equal(a.scores, b.scores)
    np.testing.assert_array_equal(frames, before)


@pytest.mark.parametrize("dtype", [np.int16, np.int32])
def test_a_static_integer_clip_leaves_one_level_flicker_in_the_background(dtype):
    """Integer frames of any signedness get the rounding floor (``subtract_background``'s
    Notes: "For integer frames the rule's noise floor is at least the scale of their
    rounding"): a one-level flicker of a static scene is background."""
    rng = np.random.default_rng(0)
    F = np.repeat(rng.integers(20, 230, size=(24, 24))[None], 200, 0).astype(dtype)
    F[100:, :, :10] += rng.choice([-1, 0, 1], size=(100, 24, 10)).astype(dtype)
    F[150, 14:20, 14:20] += 40
    masks = np.concatenate(
        [b.masks for b in subtract_background([F[s : s + 50] for s in range(0, 200, 50)])]
    )
    assert masks[150, 15:19, 15:19].all()
    masks[150] = False
    assert not masks.any()


def test_frames_are_left_alone_in_a_stream_that_changes_dtype():
    frames = _clip(120).astype(np.float32)
    batches = [
        frames[s : s + 20] if (s // 20) % 2 == 0 else frames[s : s + 20].astype(np.float64)
        for s in range(0, 120, 20)
    ]
    before = [b.copy() for b in batches]
    list(subtract_background(batches))
    for batch, copy in zip(batches, before, strict=True):
        np.testing.assert_array_equal(batch, copy)
