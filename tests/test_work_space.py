"""Work spaces kept between batches (``robustpca.linalg.work_space``)."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from robustpca.linalg.work_space import HUGE_PAGE_ADVICE_BYTES, reusable, work_space


@pytest.mark.parametrize("shape", [(0,), (3, 0), (5, 7), (600, 1000), (2, 300, 2000)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.bool_])
def test_work_space_is_a_writeable_c_ordered_array_of_its_shape(shape, dtype):
    a = work_space(shape, dtype)
    assert a.shape == shape and a.dtype == dtype
    assert a.flags.c_contiguous and a.flags.writeable
    a[...] = 1
    assert a.sum() == a.size
    assert reusable(a, np.empty(shape, dtype)) is a


def _vm_flags(array: np.ndarray) -> list[str]:
    """The ``VmFlags`` of the mapping that holds the middle of ``array`` (/proc/self/smaps;
    NumPy's advice starts at a page boundary)."""
    start = array.__array_interface__["data"][0] + array.nbytes // 2
    flags, inside = [], False
    with open("/proc/self/smaps", encoding="utf-8") as smaps:
        for line in smaps:
            head = line.split()[0]
            if "-" in head and ":" not in head:
                lo, hi = (int(x, 16) for x in head.split("-"))
                inside = lo <= start < hi
            elif inside and head == "VmFlags:":
                flags = line.split()[1:]
    return flags


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="huge-page advice is Linux's")
def test_large_work_space_has_no_huge_page_advice_where_numpy_gives_it():
    """The point of the module: a batch-sized work space is mapped without the advice
    NumPy gives its own allocations of that size (when NumPy gives it: the advice is off
    under NUMPY_MADVISE_HUGEPAGE=0 and on old kernels)."""
    shape = (HUGE_PAGE_ADVICE_BYTES // 8 + 4096,)
    theirs = np.empty(shape)
    ours = work_space(shape, np.float64)
    ours[...] = 0.0
    if "hg" in _vm_flags(theirs):
        assert "hg" not in _vm_flags(ours)
    assert "sh" not in _vm_flags(ours)  # private: a forked child's writes stay its own
    small = work_space((10,), np.float64)
    assert small.base is None  # below the advice's size: NumPy's own allocation


def test_reusable_refuses_what_cannot_take_the_next_batch():
    like = np.zeros((4, 5), dtype=np.float32)
    good = np.empty_like(like)
    assert reusable(good, like) is good
    for bad in (None, like, like.T.copy(), np.empty((4, 5)), np.empty((5, 4), np.float32)):
        assert reusable(bad, like) is None
    frozen = np.empty_like(like)
    frozen.flags.writeable = False
    assert reusable(frozen, like) is None
    assert reusable(np.empty((4, 10), np.float32)[:, ::2], like) is None


def test_zeros_and_kept_casts():
    """``zeros=True`` is zero at every size; ``cast_kept`` is ``astype`` (a Fortran-ordered
    array keeps its order)."""
    from robustpca.linalg.work_space import cast_kept

    for shape in [(3, 4), (700, 1000)]:
        assert not work_space(shape, np.float64, zeros=True).any()
    rng = np.random.default_rng(0)
    for value in (
        rng.normal(size=(700, 1000)),
        rng.normal(size=(5, 3)),
        rng.normal(size=(700, 1000)).T,
    ):
        got = cast_kept(value, np.float32)
        np.testing.assert_array_equal(got, value.astype(np.float32))
        assert (
            got.dtype == np.float32
            and got.flags.f_contiguous == value.astype(np.float32).flags.f_contiguous
        )
