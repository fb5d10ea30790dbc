"""``make_video_model`` and ``subtract_background``'s documented parameters and checks:
``random_state`` reaches every estimator, ``n_components`` below 1 and empty batches are
refused with errors that name them, and PCP's video model (``center="median"``) gives a
static camera's background without the shrinkage of the nuclear norm."""

from __future__ import annotations

import numpy as np
import pytest

from robustpca.background_subtraction import METHODS, make_video_model, subtract_background


@pytest.mark.parametrize("method", METHODS)
def test_random_state_reaches_the_estimator(method):
    assert make_video_model(method, random_state=7).get_params()["random_state"] == 7


@pytest.mark.parametrize("method", METHODS)
def test_a_rank_below_one_is_refused(method):
    with pytest.raises(ValueError, match="n_components"):
        make_video_model(method, n_components=0)


def test_pcps_background_of_a_static_scene_is_not_shrunk():
    """A static scene, two levels of noise, an object crossing it: the median-centred
    PCP background is the scene to within a quarter of the noise on average; the nuclear
    norm's shrinkage of an uncentred fit darkens it by about half the noise."""
    rng = np.random.default_rng(0)
    n = 60
    scene = rng.uniform(40, 200, size=(24, 32))
    frames = scene + 2 * rng.normal(size=(n, 24, 32))
    for t in range(n):
        frames[t, 8:14, t % 24 : t % 24 + 8] += 60
    (part,) = subtract_background(frames.astype(np.float32), method="pcp")
    bias = float(np.mean(part.background - scene))
    assert abs(bias) < 0.5


def test_method_names_are_read_in_any_case():
    """Method names are matched in any case (``_check_method`` lower-cases them)."""
    frames = np.random.default_rng(0).normal(size=(6, 4, 5))
    assert type(make_video_model("OrPCA")) is type(make_video_model("orpca"))
    (part,) = subtract_background(frames, method="PCP")
    assert part.masks.shape == (6, 4, 5)
