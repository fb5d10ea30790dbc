"""Where most of the residual is exact zeros (a
soft-thresholded sparse part) and no ``min_scale`` is given, the noise floor is the
*scale* of the nonzero magnitudes, 1.4826 times their median (the rule's MAD scale,
step 2-3 of :mod:`robustpca.foreground`), so that scores are in units of the noise's
standard deviation: a 6-sigma entry scores about 6 (below ``high = 8``)."""

import numpy as np

from robustpca.foreground import foreground_masks, foreground_score


def _sparse_residual():
    rng = np.random.default_rng(0)
    S = rng.normal(size=(40, 32, 32))  # sigma = 1 noise ...
    S[rng.random(S.shape) < 0.7] = 0.0  # ... kept on 30% of the entries only
    S[10, 5, 5] = 6.0  # a 6-sigma entry
    return S


def test_scores_of_a_mostly_zero_residual_are_in_noise_sigmas():
    z = foreground_score(_sparse_residual(), window=1)
    assert 5.0 < z[10, 5, 5] < 7.0


def test_a_six_sigma_entry_is_no_seed():
    masks = foreground_masks(_sparse_residual(), window=1)
    assert not masks[10, 5, 5]
