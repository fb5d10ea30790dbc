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

from .._validation import as_generator, check_image_pair
from ._local import _fill_doc

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


_IMAGES_DOC = """\
    images : array-like of shape (n_samples, height * width) or ImageDataset
        Images flattened in C order, one per row; never modified. An
        :class:`~robustpca.datasets.ImageDataset` brings its ``image_shape``.
    image_shape : tuple of int, optional
        ``(height, width)`` of one image; taken from an ``ImageDataset`` when omitted.
"""

_RAISES_DOC = """\
    Raises
    ------
    ValueError
        If a parameter is out of range, ``images`` is not a finite 2-D array, or
        ``image_shape`` does not match its columns.
"""


@_fill_doc(images=_IMAGES_DOC, raises=_RAISES_DOC)
def occlude_blocks(
    images,
    image_shape=None,
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
    {images}
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

    {raises}

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
    X, (h, w) = _check_images(images, image_shape)
    image_fraction = _check_fraction(image_fraction, "image_fraction", allow_zero=True)
    low, high = _check_block_fraction(block_fraction)
    _check_fill(fill)
    if isinstance(block_fraction, tuple | list):

        def draw_sides(rng, count):
            fractions = rng.uniform(low, high, size=count)
            return np.array([_block_side(f, h, w) for f in fractions])

    else:  # one size for all (the draws of the original protocol, unchanged)

        def draw_sides(rng, count):
            return np.full(count, _block_side(low, h, w))

    return _occlude_squares(X, h, w, image_fraction, draw_sides, fill, random_state)


@_fill_doc(images=_IMAGES_DOC, raises=_RAISES_DOC)
def occlude_half_width_squares(
    images, image_shape=None, *, image_fraction: float = 0.2, fill="max", random_state=None
):
    """Occlude a random subset of images with squares half as wide as the image.

    The protocol of Nie & Huang (sec. V.A): "we randomly select 10, 20, 30 percent
    images respectively, and each selected image is occluded with a randomly located
    square. The width of these squares are the half of the width of the images."
    ``round(image_fraction * n)`` images (half up), drawn without replacement, each get
    one square of side ``round(width / 2)`` (half up, at least 1, clipped to the height
    if it exceeds it) at a uniformly random position inside the image.

    On square images this is :func:`occlude_blocks` with ``block_fraction=0.25``; on the
    paper's non-square images (e.g. AT&T at 56x46, 2,576 pixels) the side follows the
    width, not the area. The paper does not say what the squares contain; ``fill``
    defaults to the maximum as in :func:`occlude_blocks`.

    Parameters
    ----------
    {images}
    image_fraction : float in [0, 1], default=0.2
        Fraction of images to occlude (the paper uses 0.1, 0.2 and 0.3).
    fill : {'max', 'min', 'noise'} or float, default='max'
        Value of occluded pixels, as in :func:`occlude_blocks`.
    random_state : int, Generator, RandomState or None, default=None
        Seed for the choice of images, square positions and noise.

    Returns
    -------
    corrupted : ndarray of shape (n_samples, height * width), float64
    mask : ndarray of shape (n_samples, height * width), bool
        True on occluded pixels.

    {raises}

    References
    ----------
    F. Nie and H. Huang, "Non-greedy L21-norm maximization for principal component
    analysis", arXiv:1603.08293, sec. V.A.

    Examples
    --------
    >>> import numpy as np
    >>> from robustpca.datasets import occlude_half_width_squares
    >>> X = np.zeros((10, 12 * 10))
    >>> Xc, mask = occlude_half_width_squares(X, (12, 10), image_fraction=0.3, fill=1.0,
    ...                                       random_state=0)
    >>> int(mask.any(axis=1).sum()), sorted(set(mask.sum(axis=1).tolist()))
    (3, [0, 25])
    """
    X, (h, w) = _check_images(images, image_shape)
    image_fraction = _check_fraction(image_fraction, "image_fraction", allow_zero=True)
    _check_fill(fill)
    side = min(max(1, _round_half_up(w / 2)), h)

    def draw_sides(rng, count):
        return np.full(count, side)

    return _occlude_squares(X, h, w, image_fraction, draw_sides, fill, random_state)


def _check_images(images, image_shape) -> tuple[np.ndarray, tuple[int, int]]:
    """A float64 copy of ``images`` (2-D, finite; an ``ImageDataset``'s data) and the
    validated ``(height, width)`` (an ``ImageDataset``'s when ``image_shape`` is None)."""
    X, shape_from_data = _as_images(images, "images")
    if image_shape is None:
        image_shape = shape_from_data
    return X, check_image_pair(image_shape, X.shape[1])


def _check_fill(fill) -> None:
    if isinstance(fill, str):
        if fill not in _FILLS:
            raise ValueError(f"fill must be one of {_FILLS} or a number, got {fill!r}.")
    elif isinstance(fill, bool) or not isinstance(fill, numbers.Real) or not math.isfinite(fill):
        raise ValueError(f"fill must be one of {_FILLS} or a finite number, got {fill!r}.")


def _occlude_squares(X, h, w, image_fraction, draw_sides, fill, random_state):
    """Fill one square per chosen image of ``X`` in place; ``draw_sides(rng, count)``."""
    n, n_features = X.shape
    rng = as_generator(random_state)
    mask = np.zeros((n, h, w), dtype=bool)
    n_occluded = _round_half_up(image_fraction * n)
    if n_occluded == 0 or n == 0:
        return X, mask.reshape(n, n_features)

    lo, hi = float(X.min()), float(X.max())
    chosen = rng.choice(n, size=n_occluded, replace=False)
    sides = draw_sides(rng, n_occluded)
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
    if value is not None and (isinstance(value, bool) or not isinstance(value, numbers.Real)):
        raise TypeError(f"value must be a real number or None, got {value!r}.")
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


def _as_images(value, name: str):
    """``(array, image_shape or None)`` from an array-like or an ``ImageDataset``."""
    shape = getattr(value, "image_shape", None)
    data = value.data if shape is not None and hasattr(value, "data") else value
    X = np.array(data, dtype=np.float64, copy=True)
    if X.ndim != 2:
        raise ValueError(f"{name} must be a 2-D array (n_samples, n_pixels), got shape {X.shape}.")
    if not np.all(np.isfinite(X)):
        raise ValueError(f"{name} must be finite (no NaN or inf).")
    return X, shape


def _resize_rows(rows: np.ndarray, source: tuple[int, int], target: tuple[int, int], order: int):
    """Resize each flattened ``source`` image to ``target`` with ``scipy.ndimage.zoom``."""
    from scipy.ndimage import zoom

    if source == target:
        return rows
    factors = (1.0, target[0] / source[0], target[1] / source[1])
    stack = rows.reshape(-1, *source)
    # zoom sizes the output as round(input * factor): exactly ``target`` here
    resized = zoom(stack, factors, order=order, mode="nearest", grid_mode=True)
    return np.ascontiguousarray(resized.reshape(rows.shape[0], target[0] * target[1]))


def append_outliers(
    images,
    outliers,
    n_outliers: int | None = None,
    *,
    fraction: float | None = None,
    image_shape=None,
    outlier_shape=None,
    order: int = 1,
    rescale: bool = False,
    random_state=None,
):
    """Append images of another data set as outliers, resized to the images' shape.

    The second protocol of Nie & Huang (sec. V.B, Fig. 5-6): images of an unrelated data
    set (Palm prints) are added to each face data set as "noise images"; a method is
    robust if the subspace learned from the mixture still reconstructs the original
    images well, measured by eq. (38) over the original images only (see
    :func:`robustpca.metrics.projection_reconstruction_error`). ``n_outliers`` rows are
    drawn without replacement from ``outliers``, resized to ``image_shape`` and stacked
    below ``images``.

    Parameters
    ----------
    images : array-like of shape (n_samples, height * width) or ImageDataset
        The data set to contaminate, one flattened image per row; never modified. An
        :class:`~robustpca.datasets.ImageDataset` brings its ``image_shape``.
    outliers : array-like of shape (n_pool, pool_height * pool_width) or ImageDataset
        The pool of outlier images (e.g. ``load_palm().data``); never modified.
    n_outliers : int, optional
        Number of outlier images to append; give this or ``fraction``.
    fraction : float >= 0, optional
        Number of outliers relative to the clean images: ``round(fraction * n_samples)``
        (half up) are appended, so ``fraction=0.2`` adds 20 outliers to 100 images (a
        share of 1/6 of the result).
    image_shape : tuple of int, optional
        ``(height, width)`` of ``images``; taken from an ``ImageDataset``. Needed only
        when the outliers must be resized.
    outlier_shape : tuple of int, optional
        ``(height, width)`` of the ``outliers``; taken from an ``ImageDataset``. When it
        differs from ``image_shape`` the chosen outliers are resized with
        :func:`scipy.ndimage.zoom` (spline of degree ``order``, pixel-area grid
        ``grid_mode=True``, edges extended); when it is not given the outliers must
        already have as many pixels as the images (they are then appended as they are).
    order : int in [0, 5], default=1
        Spline order of the resize: 1 (bilinear) keeps the values within the range of
        the originals, 0 is nearest neighbour, 3 is cubic (may overshoot).
    rescale : bool, default=False
        If True, map the outliers' value range (the pool's minimum and maximum) linearly
        onto that of ``images`` after resizing, e.g. for images scaled to [0, 1] and
        outliers in [0, 255]. The paper does not rescale (its images are all 8-bit).
        With no images (0 rows) there is no range to map onto: the outliers are appended
        as they are, as with False.
    random_state : int, Generator, RandomState or None, default=None
        Seed for the choice of outlier images.

    Returns
    -------
    stacked : ndarray of shape (n_samples + n_outliers, height * width), float64
        ``images`` followed by the resized outliers.
    is_outlier : ndarray of shape (n_samples + n_outliers,), bool
        True on the appended rows (the last ``n_outliers``).

    Raises
    ------
    ValueError
        If both or neither of ``n_outliers`` and ``fraction`` are given, more outliers
        are asked for than ``outliers`` holds, the shapes do not match the columns, or
        an input is not a finite 2-D array.

    Notes
    -----
    The available text of Nie & Huang loses the paragraph that sets up this experiment:
    what survives says that the n training images "not including the noise image data
    from the Palm data set" enter eq. (38) and Fig. 5 shows twenty Palm samples. How many
    Palm images were added, and how they were resized to each data set's image size, is
    therefore left to the caller (``n_outliers`` / ``fraction``) and to ``order``.

    References
    ----------
    F. Nie and H. Huang, "Non-greedy L21-norm maximization for principal component
    analysis", arXiv:1603.08293, sec. V.B, eq. (38).

    Examples
    --------
    >>> import numpy as np
    >>> from robustpca.datasets import append_outliers
    >>> faces = np.zeros((10, 8 * 8))
    >>> palms = np.ones((5, 4 * 4))
    >>> X, is_outlier = append_outliers(faces, palms, 3, image_shape=(8, 8),
    ...                                 outlier_shape=(4, 4), random_state=0)
    >>> X.shape, int(is_outlier.sum()), bool(np.all(X[is_outlier] == 1.0))
    ((13, 64), 3, True)
    """
    X, shape_from_data = _as_images(images, "images")
    P, pool_shape_from_data = _as_images(outliers, "outliers")
    n, d = X.shape
    if image_shape is None:
        image_shape = shape_from_data
    if outlier_shape is None:
        outlier_shape = pool_shape_from_data
    if (n_outliers is None) == (fraction is None):
        raise ValueError("give exactly one of n_outliers and fraction.")
    if fraction is not None:
        if isinstance(fraction, bool) or not isinstance(fraction, numbers.Real):
            raise TypeError(f"fraction must be a real number, got {fraction!r}.")
        if not (math.isfinite(fraction) and fraction >= 0):
            raise ValueError(f"fraction={fraction!r} must be a finite number >= 0.")
        n_outliers = _round_half_up(fraction * n)
    elif isinstance(n_outliers, bool) or not isinstance(n_outliers, numbers.Integral):
        raise TypeError(f"n_outliers must be an int, got {n_outliers!r}.")
    n_outliers = int(n_outliers)
    if not 0 <= n_outliers <= P.shape[0]:
        raise ValueError(
            f"n_outliers={n_outliers} must lie between 0 and the {P.shape[0]} images of outliers."
        )
    if isinstance(order, bool) or not isinstance(order, numbers.Integral) or not 0 <= order <= 5:
        raise ValueError(f"order must be an int in [0, 5], got {order!r}.")

    target = None if image_shape is None else check_image_pair(image_shape, d)
    source = (
        None
        if outlier_shape is None
        else check_image_pair(outlier_shape, P.shape[1], name="outlier_shape", of="outliers")
    )
    if target is not None and source is not None:
        resize = (source, target)
    elif P.shape[1] != d:
        raise ValueError(
            f"outliers have {P.shape[1]} pixels but images have {d}; give image_shape and "
            "outlier_shape to resize them."
        )
    else:
        resize = None

    rng = as_generator(random_state)
    chosen = rng.choice(P.shape[0], size=n_outliers, replace=False)
    extra = P[chosen]
    if resize is not None:
        extra = _resize_rows(extra, *resize, int(order))
    if rescale and n_outliers > 0 and n > 0:  # no images: no range to map onto
        p_lo, p_hi = float(P.min()), float(P.max())
        x_lo, x_hi = float(X.min()), float(X.max())
        scale = (x_hi - x_lo) / (p_hi - p_lo) if p_hi > p_lo else 0.0
        extra = x_lo + (extra - p_lo) * scale
    stacked = np.vstack([X, extra])
    is_outlier = np.zeros(n + n_outliers, dtype=bool)
    is_outlier[n:] = True
    return stacked, is_outlier
