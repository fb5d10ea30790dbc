"""Fetchers, from the mutation audit: their defaults are the loaders', and their names.

``fetch_<name>`` documents that it returns what ``load_<name>`` returns for the same
options; called with no option it must therefore equal the loader called with none.
Downloads go to conftest's local mirror of the real data (127.0.0.1 only).
"""

from __future__ import annotations

import numpy as np
import pytest

from robustpca import datasets
from robustpca.datasets import DatasetDownloadError, fetch_dataset, fetch_fei, fetch_video

from .test_fetch import _dead_url

pytestmark = pytest.mark.realdata


@pytest.fixture(autouse=True)
def _never_the_internet(monkeypatch, tmp_path):
    monkeypatch.setenv("ROBUSTPCA_MIRROR", _dead_url())
    monkeypatch.setenv("ROBUSTPCA_CACHE", str(tmp_path / "default-cache"))
    monkeypatch.delenv("ROBUSTPCA_DATA", raising=False)  # a verified copy there is read


def _assert_same(a, b):
    np.testing.assert_array_equal(a.data, b.data)
    np.testing.assert_array_equal(a.target, b.target)
    assert a.image_shape == b.image_shape and a.name == b.name


#: the data sets whose fetcher takes an option (resolution, subset, variant, ...)
WITH_OPTIONS = ["orl", "yale", "feret", "ar", "jaffe", "mnist", "fei"]


@pytest.mark.parametrize("name", WITH_OPTIONS)
def test_a_fetcher_without_options_returns_the_loaders_default(
    name, data_mirror, shared_data, tmp_path
):
    """``fetch_<name>()`` and ``fetch_dataset(name)`` load what ``load_<name>()`` loads:
    the two functions document one default."""
    fetcher = getattr(datasets, f"fetch_{name}")
    loader = getattr(datasets, f"load_{name}")
    expected = loader(shared_data)
    _assert_same(fetcher(tmp_path, base_url=data_mirror.url), expected)
    _assert_same(fetch_dataset(name, tmp_path, base_url=data_mirror.url), expected)


def test_fetch_fei_passes_drop_non_faces(data_mirror, shared_data, tmp_path):
    """``drop_non_faces=False`` keeps the non-face images, as ``load_fei`` does."""
    kept = fetch_fei(tmp_path, drop_non_faces=False, base_url=data_mirror.url)
    _assert_same(kept, datasets.load_fei(shared_data, drop_non_faces=False))
    assert kept.n_samples > fetch_fei(tmp_path, base_url=data_mirror.url).n_samples


def test_an_unhashable_name_is_the_documented_value_error():
    """``fetch_dataset`` raises ValueError for a name it does not know, a list included."""
    with pytest.raises(ValueError, match="is not one of"):
        fetch_dataset(["orl"])


def test_traffic_is_a_clip_fetch_video_downloads(tmp_path):
    """``fetch_video("traffic")`` (documented) is accepted and downloads ``video/traffic``:
    offline, that is a DatasetDownloadError naming the clip's folder, not a ValueError."""
    with pytest.raises(DatasetDownloadError) as info:
        fetch_video("traffic", tmp_path, base_url=_dead_url())
    assert not isinstance(info.value, ValueError)
    assert str(tmp_path / "video" / "traffic") in str(info.value)
