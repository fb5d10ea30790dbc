"""A residual without frames or without pixels is refused with a ValueError that names
it (``holds no frames``), by the batch rule, its scores and the stream alike, rather
than by an error from deep inside (a division by zero, a reshape, an empty reduction)."""

from __future__ import annotations

import numpy as np
import pytest

from robustpca.foreground import foreground_masks, foreground_score
from robustpca.foreground_stream import ForegroundDetector


@pytest.mark.parametrize("shape", [(0, 4, 4), (3, 0, 4), (3, 4, 0, 3), (0, 4, 4, 3)])
@pytest.mark.parametrize(
    "rule",
    [foreground_masks, foreground_score, lambda R: ForegroundDetector().update(R)],
    ids=["masks", "score", "stream"],
)
def test_an_empty_residual_is_named(rule, shape):
    with pytest.raises(ValueError, match="no frames"):
        rule(np.zeros(shape))
