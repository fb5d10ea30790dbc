"""``subtract_background``'s arguments (audit of the video API).

- A batch method given a model without ``low_rank_`` read and fitted the whole clip,
  then raised a bare AttributeError: now a TypeError naming ``model`` before any frame
  is read where the model's kind tells (robustpca's and scikit-learn's classes), and
  one naming it after the fit where only the fit tells (another's class).
- The function was a generator, so that bad arguments raised nothing until the first
  ``next``: they are now checked at the call, and the result is still an iterator of
  ``VideoBatch``, which reads the frames only as it is iterated.
- An empty batch in a list or a generator was an error, where a dask array's empty
  blocks were skipped: every empty batch is now skipped; one whose frames have another
  shape stays an error.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.decomposition import PCA as SklearnPCA

import robustpca
from robustpca import PCA, AccAltProj, OnlineRobustPCA
from robustpca.background_subtraction import VideoBatch, subtract_background
from robustpca.foreground_stream import ForegroundDetector


def _clip(n=24, shape=(10, 12), seed=0):
    rng = np.random.default_rng(seed)
    frames = 100 + 40 * rng.random(shape) + 2 * rng.normal(size=(n, *shape))
    for t in range(n):
        frames[t, 2:6, t % 8 : t % 8 + 4] += 80
    return frames.astype(np.float32)


class _Watched:
    """Batches that record whether any was read."""

    def __init__(self, batches):
        self.batches, self.read = batches, False

    def __iter__(self):
        for batch in self.batches:
            self.read = True
            yield batch


@pytest.mark.parametrize("method", ["pcp", "accaltproj", "godec"])
@pytest.mark.parametrize(
    "model", [PCA(n_components=1), OnlineRobustPCA(random_state=0), SklearnPCA(1)]
)
def test_a_batch_method_refuses_a_model_without_low_rank_before_reading(method, model):
    stream = _Watched([_clip()])
    with pytest.raises(TypeError, match=r"^model: \w+ sets no low_rank_ at fit"):
        subtract_background(stream, method=method, model=model)
    assert not stream.read


class _Foreign:
    """Another's batch model: only its fit shows whether it sets ``low_rank_``."""

    def __init__(self, sets_low_rank):
        self.sets_low_rank = sets_low_rank

    def fit(self, X):
        if self.sets_low_rank:
            self.low_rank_ = np.repeat(np.median(X, axis=0, keepdims=True), len(X), axis=0)
        return self


def test_another_kind_of_model_is_judged_by_its_fit():
    frames = _clip()
    with pytest.raises(TypeError, match=r"^model: _Foreign has no low_rank_ after fit"):
        list(subtract_background(frames, method="pcp", model=_Foreign(False)))
    (part,) = subtract_background(frames, method="pcp", model=_Foreign(True))
    assert part.masks.any()
    (part,) = subtract_background(frames, method="accaltproj", model=AccAltProj(n_components=1))
    assert part.masks.any()  # a class documenting low_rank_ passes


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"method": "bogus"}, ValueError, "method must be one of"),
        ({"return_scores": "yes"}, TypeError, "return_scores must be a bool"),
        ({"detector": 42}, TypeError, "detector must be a ForegroundDetector"),
        ({"model": object()}, TypeError, "model: object has no partial_fit_decompose"),
        ({"method": "pcp", "detector": ForegroundDetector()}, ValueError, "detector applies"),
        ({"n_components": 0}, ValueError, "n_components must be at least 1"),
    ],
)
def test_bad_arguments_are_refused_at_the_call(kwargs, error, match):
    stream = _Watched([_clip()])
    with pytest.raises(error, match=match):
        subtract_background(stream, **kwargs)
    assert not stream.read


def test_batches_that_are_not_iterable_are_refused_at_the_call():
    with pytest.raises(TypeError, match="batches must be an array of frames or an iterable"):
        subtract_background(None)


@pytest.mark.parametrize("method", ["orpca", "pcp"])
def test_the_result_is_an_iterator_that_reads_the_frames_as_it_goes(method):
    frames = _clip()
    stream = _Watched([frames[:12], frames[12:]])
    parts = subtract_background(stream, method=method)
    assert not stream.read and iter(parts) is parts
    assert all(isinstance(part, VideoBatch) for part in parts) and stream.read


@pytest.mark.parametrize("method", ["orpca", "grasta", "pcp"])
@pytest.mark.parametrize("container", [list, iter])
def test_an_empty_batch_is_skipped(method, container):
    frames = _clip()
    pieces = [frames[:0], frames[:10], frames[10:10], frames[10:], frames[:0]]
    parts = list(subtract_background(container(pieces), method=method, return_scores=True))
    whole = list(subtract_background([frames[:10], frames[10:]], method=method, return_scores=True))
    assert [p.start for p in parts] == [p.start for p in whole] == [0, 10]
    for a, b in zip(parts, whole, strict=True):
        np.testing.assert_array_equal(a.frames, b.frames)
        np.testing.assert_array_equal(a.masks, b.masks)
        np.testing.assert_array_equal(a.scores, b.scores)
        np.testing.assert_array_equal(a.background, b.background)


@pytest.mark.parametrize("method", ["orpca", "pcp"])
def test_empty_batches_of_the_wrong_shape_and_a_stream_of_them_only_are_errors(method):
    frames = _clip()
    with pytest.raises(ValueError, match=r"frame 24 has shape \(5, 5\), the first frames"):
        list(subtract_background([frames, np.zeros((0, 5, 5))], method=method))
    with pytest.raises(ValueError, match=r"batch at frame 24 has shape \(0,\)"):
        list(subtract_background([frames, np.zeros((0,))], method=method))
    with pytest.raises(ValueError, match="holds no frame"):
        list(subtract_background([frames[:0], frames[:0]], method=method))


@pytest.mark.parametrize("name", robustpca.ESTIMATOR_NAMES)
def test_the_classes_that_say_they_set_low_rank_do(name):
    """``_sets_low_rank``, what the early check reads, is what a fit sets."""
    kw = {"n_components": 1}
    if name in ("TwoDPCA", "GLRAM", "Robust2DPCA", "CappedRobust2DPCA", "L21TwoDPCA"):
        kw["image_shape"] = (2, 3)
    if name == "RobustTransferPCA":
        kw = {"n_shared": 1, "n_source": 1, "n_target": 1}
    cls = getattr(robustpca, name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = cls(**kw).fit(np.random.default_rng(0).normal(size=(30, 6)))
    assert getattr(cls, "_sets_low_rank", False) == hasattr(model, "low_rank_")
