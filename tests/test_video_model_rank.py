"""``make_video_model``'s ``n_components`` reaches every
method's estimator that takes a rank (documented: "Rank of the background (not used by
PCP...)")."""

import pytest

from robustpca.background_subtraction import make_video_model


@pytest.mark.parametrize("method", ["orpca", "grasta", "accaltproj", "godec"])
def test_n_components_reaches_the_estimator(method):
    assert make_video_model(method, n_components=3).n_components == 3
