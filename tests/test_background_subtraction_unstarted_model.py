"""``subtract_background`` with an online model that has no more frames than its rank
(audit of the video pipeline): OR-PCA's batches before its model starts come back with
a background of the frames' shape (``VideoBatch.background``), and a stream that ends
before any model started is a ValueError naming ``n_components`` (its masks were all
empty), for OR-PCA and GRASTA alike. Real frames: CDnet highway at a quarter size."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from robustpca.background_subtraction import subtract_background
from robustpca.datasets import load_cdnet


@pytest.fixture(scope="module")
def frames(shared_data) -> np.ndarray:
    clip = load_cdnet(shared_data / "video" / "highway", scale=0.25, numbers=(1050, 1089))
    return clip.frames  # (40, 60, 80)


def split(frames: np.ndarray, sizes: tuple[int, ...]) -> list[np.ndarray]:
    """``frames`` in consecutive batches of ``sizes`` frames."""
    return [frames[a:b] for a, b in itertools.pairwise(np.cumsum((0, *sizes)))]


@pytest.mark.parametrize("method", ["orpca", "grasta"])
@pytest.mark.parametrize(("sizes", "rank"), [((1, 39), 1), ((2, 2, 2, 34), 3)])
def test_batches_before_the_model_have_the_frames_shape(frames, method, sizes, rank):
    batches = split(frames, sizes)
    parts = list(subtract_background(batches, method=method, n_components=rank))
    assert [p.background.shape for p in parts] == [b.shape for b in batches]
    assert [p.masks.shape for p in parts] == [b.shape for b in batches]
    # before the model, each frame is its own background; after it, the cars are found
    np.testing.assert_allclose(parts[0].background, batches[0], atol=1e-3)
    assert not parts[0].masks.any() and parts[-1].masks.any()


@pytest.mark.parametrize("method", ["orpca", "grasta"])
@pytest.mark.parametrize(("sizes", "rank"), [((20,), 500), ((20, 20), 40), ((1,), 1)])
def test_a_stream_that_never_starts_the_model_is_an_error(frames, method, sizes, rank):
    batches = split(frames, sizes)
    stream = subtract_background(batches, method=method, n_components=rank)
    with pytest.raises(ValueError, match=f"n_components={rank}: the online model never"):
        for _ in stream:
            pass


def test_a_model_that_starts_late_is_no_error(frames):
    """Rank 30 over batches of 20 frames: the first batch has no model, the second
    starts it; the stream ends normally."""
    parts = list(subtract_background([frames[:20], frames[20:]], method="grasta", n_components=30))
    assert not parts[0].masks.any() and parts[1].masks.any()
