"""Corruption protocols of the papers: block occlusion, salt noise and appended outliers.

Every function takes a ``random_state``, never modifies its input, and returns the
corrupted copy together with a boolean mask of what it corrupted.

=============================== ========================================================
:func:`occlude_blocks`          one square block on a fraction of the images (Nie 2014
                                sec. 5.1; Zhang & Tong 2019 sec. 5.1 with random sizes)
:func:`occlude_half_width_squares` Nie & Huang sec. V.A: squares half the image width
:func:`add_salt_noise`          a fraction of the entries set to the maximum (Guo 2013)
:func:`append_outliers`         outlier images of another data set appended, resized to
                                the image shape (Nie & Huang sec. V.B, Palm images)
=============================== ========================================================
"""

from __future__ import annotations

import math
import numbers

import numpy as np
from sklearn.utils import check_array

from ..estimators._base import as_generator

__all__ = [
    "add_salt_noise",
    "append_outliers",
    "occlude_blocks",
    "occlude_half_width_squares",
]

_FILLS = ("max", "min", "noise")


def _round_half_up(x: float) -> int:
    return math.floor(x + 0.5)


def _check_fraction(value, name: str, *, allow_zero: bool) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__} ({value!r}).")
    value = float(value)
    low_ok = value >= 0 if allow_zero else value > 0
    if not (math.isfinite(value) and low_ok and value <= 1):
        interval = "[0, 1]" if allow_zero else "(0, 1]"
        raise ValueError(f"{name}={value!r} must lie in {interval}.")
    return value


def _check_block_fraction(value) -> tuple[float, float]:
    """``(low, high)`` of the block area fraction: a float gives ``low == high``."""
    if isinstance(value, tuple | list):
        if len(value) != 2:
            raise ValueError(
                f"block_fraction must be a float or a pair (low, high), got {value!r}."
            )
        low, high = (_check_fraction(v, "block_fraction", allow_zero=False) for v in value)
        if low > high:
            raise ValueError(f"block_fraction={tuple(value)!r} must have low <= high.")
        return low, high
    value = _check_fraction(value, "block_fraction", allow_zero=False)
    return value, value


def _block_side(fraction: float, h: int, w: int) -> int:
    return min(max(1, _round_half_up(math.sqrt(fraction * h * w))), h, w)


def _check_image_shape(image_shape, n_features: int) -> tuple[int, int]:
    try:
        h, w = (int(s) for s in image_shape)
    except (TypeError, ValueError):
        raise ValueError(
            f"image_shape must be a pair (height, width) of ints, got {image_shape!r}."
        ) from None
    if h <= 0 or w <= 0 or h * w != n_features:
        raise ValueError(
            f"image_shape={(h, w)} must be positive with height * width equal to the "
            f"number of columns of images ({n_features})."
        )
    return h, w


def occlude_blocks(
    images,
    image_shape,
    *,
    image_fraction: float = 0.2,
    block_fraction: float | tuple[float, float] = 0.25,
    fill="max",
    random_state=None,
):
    """Occlude a random subset of images, each with one square block.

    The protocol of Nie, Yuan & Huang (2014, sec. 5.1): ``round(image_fraction * n)``
    images, drawn without replacement, each receive one square block whose area is
    ``block_fraction`` of the image, at a uniformly random position inside the image.

    With ``block_fraction=(low, high)`` each block gets its own area fraction, drawn
    uniformly from ``[low, high]``: the "occlusions ... with random size (over 25% area)"
    of Zhang & Tong (2019, sec. 5.1), e.g. ``(0.25, 0.5)`` (they give no upper bound).

    Parameters
    ----------
    images : array-like of shape (n_samples, height * width)
        Images flattened in C order, one per row; never modified.
    image_shape : tuple of int
        ``(height, width)`` of one image.
    image_fraction : float in [0, 1], default=0.2
        Fraction of images to occlude; the count is rounded half up.
    block_fraction : float in (0, 1] or (float, float), default=0.25
        Area of the block as a fraction of the image area. The block side is
        ``round(sqrt(block_fraction * height * width))`` (half up, at least 1),
        clipped to ``min(height, width)`` so that it fits in non-square images. A pair
        ``(low, high)`` with ``0 < low <= high <= 1`` draws one fraction per block,
        uniformly in ``[low, high]``, and sizes that block by the same rule.
    fill : {'max', 'min', 'noise'} or float, default='max'
        Value of occluded pixels: the maximum or minimum of the whole array, uniform
        noise between them (independent per pixel), or the given number.
    random_state : int, Generator, RandomState or None, default=None
        Seed for the choice of images, block positions and noise.

    Returns
    -------
    corrupted : ndarray of shape (n_samples, height * width), float64
        A new array: ``images`` with the blocks filled in.
    mask : ndarray of shape (n_samples, height * width), bool
        True on occluded pixels. ``mask.any(axis=1)`` marks the occluded images.

    Raises
    ------
    ValueError
        If a parameter is out of range, ``images`` is not a finite 2-D array, or
        ``image_shape`` does not match its columns.

    References
    ----------
    F. Nie, J. Yuan and H. Huang, "Optimal mean robust principal component analysis",
    ICML 2014, sec. 5.1.

    R. Zhang and H. Tong, "Robust principal component analysis with adaptive neighbors",
    NeurIPS 2019, sec. 5.1.

    Examples
    --------
    >>> import numpy as np
    >>> from robustpca.datasets import occlude_blocks
    >>> X = np.zeros((10, 64))
    >>> Xc, mask = occlude_blocks(X, (8, 8), fill=1.0, random_state=0)
    >>> int(mask.any(axis=1).sum()), int(mask.sum(axis=1).max())
    (2, 16)
    >>> bool(np.all(X == 0))
    True
    >>> _, mask = occlude_blocks(X, (8, 8), block_fraction=(0.25, 0.5), random_state=0)
    >>> bool(np.all(mask.sum(axis=1)[mask.any(axis=1)] >= 16))
    True
    """
    X = np.array(images, dtype=np.float64, copy=True)
    if X.ndim != 2:
        raise ValueError(f"images must be 2-D (n_samples, height * width), got shape {X.shape}.")
    if not np.all(np.isfinite(X)):
        raise ValueError("images must be finite (no NaN or inf).")
    n, n_features = X.shape
    h, w = _check_image_shape(image_shape, n_features)
    image_fraction = _check_fraction(image_fraction, "image_fraction", allow_zero=True)
    low, high = _check_block_fraction(block_fraction)
    if isinstance(fill, str):
        if fill not in _FILLS:
            raise ValueError(f"fill must be one of {_FILLS} or a number, got {fill!r}.")
    elif isinstance(fill, bool) or not isinstance(fill, numbers.Real) or not math.isfinite(fill):
        raise ValueError(f"fill must be one of {_FILLS} or a finite number, got {fill!r}.")

    rng = as_generator(random_state)
    mask = np.zeros((n, h, w), dtype=bool)
    n_occluded = _round_half_up(image_fraction * n)
    if n_occluded == 0 or n == 0:
        return X, mask.reshape(n, n_features)

    lo, hi = float(X.min()), float(X.max())
    chosen = rng.choice(n, size=n_occluded, replace=False)
    if isinstance(block_fraction, tuple | list):
        fractions = rng.uniform(low, high, size=n_occluded)
        sides = np.array([_block_side(f, h, w) for f in fractions])
    else:  # one size for all (the draws of the original protocol, unchanged)
        sides = np.full(n_occluded, _block_side(low, h, w))
    tops = rng.integers(0, h - sides + 1)
    lefts = rng.integers(0, w - sides + 1)
    for i, top, left, side in zip(chosen, tops, lefts, sides, strict=True):
        mask[i, top : top + side, left : left + side] = True
    mask = mask.reshape(n, n_features)

    n_pixels = int(mask.sum())
    if fill == "max":
        values = hi
    elif fill == "min":
        values = lo
    elif fill == "noise":
        values = rng.uniform(lo, hi, size=n_pixels)
    else:
        values = float(fill)
    X[mask] = values
    return X, mask


def add_salt_noise(X, fraction: float, *, value=None, random_state=None):
    """Set a random ``fraction`` of the entries of ``X`` to ``value`` (Guo 2013, sec. 5).

    Guo's protocol: "randomly select a fraction of its pixels to add large errors to
    reach value 255", the maximum pixel value.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Clean matrix; never modified.
    fraction : float in [0, 1]
        The noise level :math:`\\sigma`; ``round(fraction * X.size)`` entries (half up)
        are drawn without replacement.
    value : float or None, default=None
        Value of the corrupted entries; ``None`` is the maximum of ``X``.
    random_state : int, Generator, RandomState or None, default=None

    Returns
    -------
    X_noisy : ndarray of shape (n_samples, n_features)
    mask : ndarray of bool, same shape
        The corrupted entries.

    References
    ----------
    Y. Guo, "Robust Transfer Principal Component Analysis with Rank Constraints",
    NIPS 2013, sec. 5.

    Examples
    --------
    >>> import numpy as np
    >>> from robustpca.datasets import add_salt_noise
    >>> noisy, mask = add_salt_noise(np.zeros((10, 10)), 0.05, value=1.0, random_state=0)
    >>> int(mask.sum()), float(noisy.sum())
    (5, 5.0)
    """
    X = check_array(X, dtype=np.float64, input_name="X", ensure_min_samples=1)
    if isinstance(fraction, bool) or not isinstance(fraction, numbers.Real):
        raise TypeError(f"fraction must be a real number, got {fraction!r}.")
    if not 0.0 <= fraction <= 1.0:
        raise ValueError(f"fraction={fraction!r} must lie in [0, 1].")
    fill = float(X.max()) if value is None else float(value)
    if not math.isfinite(fill):
        raise ValueError(f"value={value!r} must be finite.")
    rng = as_generator(random_state)
    count = _round_half_up(fraction * X.size)
    mask = np.zeros(X.size, dtype=bool)
    mask[rng.choice(X.size, size=count, replace=False)] = True
    mask = mask.reshape(X.shape)
    noisy = X.copy()
    noisy[mask] = fill
    return noisy, mask
