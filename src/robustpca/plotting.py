"""Figures for users: the image gallery and the outlier map.

Both return matplotlib objects built without pyplot (no global backend state), so they
work in scripts, notebooks and headless servers alike; ``fig.savefig(path)`` writes them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from ._validation import check_image_pair, check_positive_int, is_dask_collection

__all__ = ["montage", "plot_gallery", "plot_outlier_map"]


def matplotlib_installed() -> bool:
    """Whether matplotlib (an optional dependency: ``robustpca[plot]``) can be imported.

    Returns
    -------
    bool
    """
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def figure_class(caller: str) -> Any:
    """matplotlib's ``Figure``, or an ``ImportError`` saying that ``caller`` needs it
    and how to install it (matplotlib is an optional dependency).

    Parameters
    ----------
    caller : str
        The function or command that draws, named in the error.

    Returns
    -------
    type
        ``matplotlib.figure.Figure``.
    """
    try:
        from matplotlib.figure import Figure
    except ImportError as error:
        raise ImportError(
            f"{caller} draws with matplotlib, which is not installed: "
            "pip install 'robustpca[plot]'."
        ) from error
    return Figure


def montage(images, image_shape: tuple[int, int], gap: int = 1) -> np.ndarray:
    """Images side by side in one array, separated by ``gap`` pixels of NaN.

    Parameters
    ----------
    images : array-like of shape (n_images, height * width)
        Flattened images, C order.
    image_shape : (int, int)
        ``(height, width)``.
    gap : int, default=1
        Width of the NaN border (drawn in the colormap's "bad" colour).

    Returns
    -------
    ndarray of shape (height + 2 * gap, n_images * (width + gap) + gap)
    """
    images = np.asarray(images, dtype=float)
    if images.ndim != 2:
        raise ValueError(f"images must be 2-D (n_images, height * width), got {images.shape}.")
    h, w = check_image_pair(image_shape, images.shape[1])
    gap = check_positive_int(gap, "gap", minimum=0)
    strip = np.full((h + 2 * gap, len(images) * (w + gap) + gap), np.nan)
    for c, image in enumerate(images):
        left = gap + c * (w + gap)
        strip[gap : gap + h, left : left + w] = np.reshape(image, (h, w))
    return strip


def plot_gallery(
    panels: Mapping[str, object] | Sequence[tuple[str, object]],
    image_shape: tuple[int, int],
    *,
    indices=None,
    n_images: int = 8,
    title: str = "",
    cmap: str = "gray",
):
    """Rows of images: e.g. original / corrupted / reconstructed, one column per sample.

    Parameters
    ----------
    panels : mapping or sequence of (label, images)
        Each ``images`` is an array of shape (n_samples, height * width); all panels
        share the sample order. Rows are drawn in the given order on one grey scale,
        fixed by the first two panels (so a reconstruction's overshoot shows as such).
    image_shape : (int, int)
        ``(height, width)``; ``images[i].reshape(image_shape)`` is image ``i`` upright.
    indices : sequence of int, optional
        Which samples to show (default: the first ``n_images``).
    n_images : int, default=8
        Number of columns when ``indices`` is None.
    title : str, default=""
    cmap : str, default="gray"
        A matplotlib colormap name.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import numpy as np
    >>> from robustpca import OptimalMeanPCA
    >>> from robustpca.datasets import load_digits_images, occlude_blocks
    >>> from robustpca.plotting import plot_gallery
    >>> digits = load_digits_images()
    >>> X, mask = occlude_blocks(digits.data, digits.image_shape, random_state=0)
    >>> model = OptimalMeanPCA(n_components=10, random_state=0).fit(X)
    >>> rows = np.flatnonzero(mask.any(axis=1))[:6]
    >>> fig = plot_gallery({"original": digits.data, "occluded": X,
    ...                     "RPCA-OM": model.reconstruct(X)}, digits.image_shape,
    ...                    indices=rows)
    >>> len(fig.axes)
    3
    """
    Figure = figure_class("plot_gallery")
    from matplotlib import colormaps

    items = list(panels.items()) if isinstance(panels, Mapping) else list(panels)
    if not items:
        raise ValueError("panels must hold at least one (label, images) pair")
    arrays = [(str(label), np.asarray(images, dtype=float)) for label, images in items]
    for label, images in arrays:
        if images.ndim != 2:
            raise ValueError(
                f"panels[{label!r}] must be 2-D (n_samples, height * width), got shape "
                f"{images.shape}."
            )
    n_samples, n_features = arrays[0][1].shape
    image_shape = check_image_pair(image_shape, n_features)
    size = int(np.prod(image_shape))
    for label, images in arrays:
        if images.shape != (n_samples, size):
            raise ValueError(
                f"panels[{label!r}] must have shape ({n_samples}, {size}) for image_shape "
                f"{tuple(image_shape)}, got {images.shape}"
            )
    if cmap not in colormaps:
        raise ValueError(f"cmap={cmap!r} is not a matplotlib colormap name.")
    if indices is None:
        indices = np.arange(min(check_positive_int(n_images, "n_images"), n_samples))
    indices = np.asarray(indices)
    if indices.size and indices.dtype.kind not in "iu":
        raise ValueError(f"indices must be integers, got dtype {indices.dtype}.")
    indices = indices.astype(int, copy=False).ravel()
    if indices.size == 0 or indices.min() < -n_samples or indices.max() >= n_samples:
        raise ValueError(f"indices must be non-empty and within [0, {n_samples})")
    shown = [(label, images[indices]) for label, images in arrays]
    scale = np.concatenate([images.ravel() for _, images in shown[:2]])
    scale = scale[np.isfinite(scale)]
    vmin, vmax = (float(scale.min()), float(scale.max())) if scale.size else (0.0, 1.0)
    bad = colormaps[cmap].with_extremes(bad="0.85")
    n_cols = len(indices)
    fig = Figure(figsize=(1.4 + 0.9 * n_cols, 0.4 + 0.95 * len(shown)), layout="constrained")
    axes = fig.subplots(len(shown), 1, squeeze=False)[:, 0]
    for ax, (label, images) in zip(axes, shown, strict=True):
        ax.imshow(
            montage(images, image_shape), cmap=bad, vmin=vmin, vmax=vmax, interpolation="nearest"
        )
        ax.set_xticks([])
        ax.set_yticks([])
        for spine in ax.spines.values():
            spine.set_visible(False)
        ax.text(-0.01, 0.5, label, transform=ax.transAxes, ha="right", va="center", fontsize=9)
    if title:
        fig.suptitle(title, fontsize=10)
    return fig


def plot_outlier_map(diagnostics, *, ax=None, labels=None):
    """The outlier map: score distance against orthogonal distance, with the cutoffs.

    When the fit has no orthogonal distance cutoff (``n_components`` equal to the rank of
    the data, where the orthogonal distances are zero up to rounding), the score
    distances are drawn against the sample number instead, as rrcov's plot does. The
    title names the cutoffs: their quantile, or the adjusted boxplot of the skew rule
    (``ROBPCA(skew=True)``), whose cutoffs do not depend on the quantile.

    Parameters
    ----------
    diagnostics : OutlierDiagnostics
    ax : matplotlib Axes, optional
        Drawn on a new figure when omitted.
    labels : sequence of str, False or None, default=None
        Labels written next to the flagged samples; by default the diagnostics' row
        labels (a DataFrame's index, else 1-based row numbers, as rrcov's plot);
        ``False`` writes none.

    Returns
    -------
    matplotlib.axes.Axes
    """
    if ax is None:
        Figure = figure_class("plot_outlier_map")
        ax = Figure(figsize=(5.5, 4.2), layout="constrained").add_subplot()
    d = diagnostics
    if is_dask_collection(d.score_distances):  # lazy diagnostics: drawn computed
        lazy: Any = (d.score_distances, d.orthogonal_distances)
        sd, od = (np.asarray(a.compute()) for a in lazy)
        d = replace(d, score_distances=sd, orthogonal_distances=od)
    flagged = d.outliers
    if labels is not None and labels is not False:
        if isinstance(labels, (bool, str)) or np.ndim(labels) != 1:
            raise TypeError(f"labels must be a sequence of labels, False or None, got {labels!r}.")
        labels = list(np.asarray(labels, dtype=object))  # by position, not a Series' index
        if len(labels) != flagged.size:
            raise ValueError(
                f"labels must have one entry per sample ({flagged.size}), got {len(labels)}."
            )
    # k equal to the rank: the orthogonal distances are rounding noise (no OD cutoff), so
    # the map is the score distances by sample, as rrcov draws it in that case
    by_index = not d.orthogonal_cutoff > 0
    x = np.arange(1, flagged.size + 1) if by_index else d.score_distances
    y = d.score_distances if by_index else d.orthogonal_distances
    ax.scatter(x[~flagged], y[~flagged], s=12, color="0.4", label="regular")
    ax.scatter(x[flagged], y[flagged], s=16, color="tab:red", label="flagged")
    if by_index:
        ax.axhline(d.score_cutoff, color="tab:blue", linestyle="--", linewidth=1)
    else:
        ax.axvline(d.score_cutoff, color="tab:blue", linestyle="--", linewidth=1)
        ax.axhline(d.orthogonal_cutoff, color="tab:blue", linestyle="--", linewidth=1)
    if labels is None:
        labels = d.labels
    if labels is not False:
        for i in np.flatnonzero(flagged):
            ax.annotate(
                str(labels[i]),
                (x[i], y[i]),
                xytext=(3, 2),  # beside the point, not over it
                textcoords="offset points",
                fontsize=7,
            )
    ax.set_xlabel("sample" if by_index else "score distance")
    ax.set_ylabel("score distance" if by_index else "orthogonal distance")
    what = "Score distances (no orthogonal part: k = rank)" if by_index else "Outlier map"
    # the skew rule's cutoffs are adjusted-boxplot fences, whatever the quantile
    if d.rule == "skew":
        cutoffs = "adjusted-boxplot cutoffs (skew rule)"
    else:
        cutoffs = f"cutoffs at the {100 * d.quantile:g}% quantile"
    ax.set_title(f"{what}, {cutoffs}", fontsize=10)
    ax.legend(loc="best", fontsize=8)
    return ax
