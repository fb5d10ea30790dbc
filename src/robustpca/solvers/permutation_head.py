"""The head of ``rng.permutation(n)`` without holding ``n`` 64-bit indices twice.

robustbase's nested subsample for large ``n`` is the first rows of
``rng.permutation(n)``. The chunked MCD (:mod:`robustpca.solvers.chunked_mcd`) draws it
ahead from a copy of the generator, so that the first pass gathers those rows, and again
in the MCD itself, which must leave the generator where the permutation leaves it. At
150,000,000 rows an int64 permutation is 1.2 GB.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["permutation_head"]

#: The last heads drawn by :func:`permutation_head`, by generator state: the chunked
#: fits draw the same subsample ahead (for the first pass) and again in the MCD.
_HEADS: dict = {}


def permutation_head(rng, n: int, size: int) -> np.ndarray:
    """``rng.permutation(n)[:size]`` and its draws, shuffled in 32 bits where they fit
    (the shuffle's draws do not depend on the item size), and from the same state again
    without an ``n``-sized array: the head and the state after it are remembered.

    Parameters
    ----------
    rng : numpy.random.Generator
        The generator, left where ``rng.permutation(n)`` would leave it.
    n : int
        Number of items permuted.
    size : int
        Length of the head returned.

    Returns
    -------
    ndarray of int64 of shape (size,)
    """
    bits: Any = getattr(rng, "bit_generator", None)
    key = (n, size, repr(bits.state)) if bits is not None else None
    if key in _HEADS:
        head, after = _HEADS[key]
        bits.state = after
        return head.copy()
    order = np.arange(n, dtype=np.int32 if n <= np.iinfo(np.int32).max else np.int64)
    rng.shuffle(order)
    head = order[:size].astype(np.int64)
    if key is not None:
        while len(_HEADS) >= 8:
            _HEADS.pop(next(iter(_HEADS)))
        _HEADS[key] = (head.copy(), bits.state)
    return head
