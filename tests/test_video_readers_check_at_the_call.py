"""The video readers check ``grey`` as a flag, and ``iter_video`` checks its arguments,
path and selection at the call, as ``iter_cdnet`` does.

``load_cdnet(grey="no")`` read the clip in grey (any truthy value was taken), and
``iter_video`` was a generator: a wrong path or argument raised only at the first batch.
"""

from __future__ import annotations

import pytest

from robustpca.datasets import iter_cdnet, iter_video, load_cdnet, read_video


@pytest.fixture(scope="module")
def highway(shared_data):
    return shared_data / "video" / "highway"


@pytest.mark.parametrize("reader", [load_cdnet, iter_cdnet, read_video, iter_video])
@pytest.mark.parametrize("grey", ["no", 1, None])
def test_grey_is_a_flag(highway, reader, grey):
    with pytest.raises(TypeError, match="grey must be a bool"):
        reader(highway, grey=grey, frames=slice(0, 2))


def test_iter_video_checks_its_path_and_selection_at_the_call(highway, tmp_path):
    with pytest.raises(FileNotFoundError, match="no such video"):
        iter_video(tmp_path / "absent")
    with pytest.raises(ValueError, match="selects none"):
        iter_video(highway / "input", frames=slice(5, 5))
    batches = iter_video(highway / "input", frames=slice(0, 3), batch_size=2, scale=0.25)
    assert [b.shape[0] for b in batches] == [2, 1]
