"""Work spaces: batch-sized arrays that a stream allocates once and then reuses.

A stream of equal batches (a video) needs the same few batch-sized arrays at every
batch: :func:`reusable` says whether the last batch's array can take the next one, and
:func:`work_space` allocates one where none can.

**Plain pages.** On Linux, NumPy advises transparent huge pages for every allocation of
4 MiB or more (``madvise(MADV_HUGEPAGE)``; ``NUMPY_MADVISE_HUGEPAGE`` turns it off).
Where the kernel's ``transparent_hugepage/defrag`` setting is ``madvise``, its default,
the first touch of each 2 MiB of such an array may wait for the kernel to compact memory,
for milliseconds on a busy machine. A work space touched once and then reused does not
repay that wait, so :func:`work_space` maps its memory without the advice (a private
anonymous :class:`mmap.mmap`, freed with the array). ``docs/design-notes/video.md`` has the
measurements.
"""

from __future__ import annotations

import math
import mmap
import sys

import numpy as np

__all__ = ["HUGE_PAGE_ADVICE_BYTES", "cast_kept", "reusable", "work_space"]

#: NumPy advises huge pages for allocations from this size on (Linux only).
HUGE_PAGE_ADVICE_BYTES = 1 << 22


def reusable(work: np.ndarray | None, like: np.ndarray) -> np.ndarray | None:
    """``work`` where it can take a new array of ``like``'s shape and dtype, else None.

    Parameters
    ----------
    work : ndarray or None
        The work space kept from the last call; it must have ``like``'s shape and dtype,
        be C-contiguous and writeable, and not overlap ``like``.
    like : ndarray
        The array whose shape and dtype the next result has.

    Returns
    -------
    ndarray or None
    """
    fits = (
        isinstance(work, np.ndarray)
        and work.shape == like.shape
        and work.dtype == like.dtype
        and work.flags.c_contiguous
        and work.flags.writeable
        and not np.may_share_memory(work, like)
    )
    return work if fits else None


def work_space(shape: tuple[int, ...], dtype, *, zeros: bool = False) -> np.ndarray:
    """A C-ordered array to keep as a work space: in plain pages where NumPy would advise
    huge pages for it (module docstring), else NumPy's own.

    Parameters
    ----------
    shape : tuple of int
        Shape of the array.
    dtype : data-type
        Its dtype.
    zeros : bool, default=False
        Whether NumPy's array is zeroed (else uninitialised); plain pages are always zero.

    Returns
    -------
    ndarray of shape ``shape``
    """
    dtype = np.dtype(dtype)
    shape = tuple(int(s) for s in shape)
    size = math.prod(shape)
    if size * dtype.itemsize >= HUGE_PAGE_ADVICE_BYTES and sys.platform.startswith("linux"):
        try:  # private (copy-on-write in a forked child, as NumPy's memory is); zero
            memory = mmap.mmap(-1, size * dtype.itemsize, flags=mmap.MAP_PRIVATE)
        except (OSError, ValueError):  # none to be had: NumPy's allocator
            pass
        else:
            return np.frombuffer(memory, dtype=dtype, count=size).reshape(shape)
    return np.zeros(shape, dtype=dtype) if zeros else np.empty(shape, dtype=dtype)


def cast_kept(value: np.ndarray, dtype) -> np.ndarray:
    """``value.astype(dtype)`` for an array that is kept (a fitted attribute of the data's
    size): in plain pages where :func:`work_space` would take them and ``value`` is
    C-ordered, else ``astype``'s (which keeps a Fortran order).

    Parameters
    ----------
    value : ndarray
        The array to cast (not modified).
    dtype : data-type
        The dtype of the copy.

    Returns
    -------
    ndarray
    """
    if (
        not value.flags.c_contiguous
        or value.size * np.dtype(dtype).itemsize < HUGE_PAGE_ADVICE_BYTES
    ):
        return value.astype(dtype)
    out = work_space(value.shape, dtype)
    np.copyto(out, value, casting="unsafe")
    return out
