"""The methods ``robustpca fit`` runs and how it builds, scales and fits them (shared by
the in-memory and the chunked routes)."""

from __future__ import annotations

import time
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from ._io import PARQUET_SUFFIXES, TEXT_SUFFIXES, InputError

__all__ = [
    "DEFAULT_METHOD",
    "METHOD_ALIASES",
    "build_model",
    "check_missing",
    "check_scales",
    "default_method",
    "fit_model",
    "parse_shape",
    "resolve_method",
    "scale_columns",
    "supports_missing",
]

#: Short names accepted by ``--method`` (any estimator class name works too).
METHOD_ALIASES = {
    "robpca": "ROBPCA",
    "spherical-pca": "SphericalPCA",
    "locantore": "SphericalPCA",
    "pp-pca": "ProjectionPursuitPCA",
    "pcagrid": "ProjectionPursuitPCA",
    "cov-pca": "CovariancePCA",
    "pca": "PCA",
    "rpca-om": "OptimalMeanPCA",
    "pca-l21": "L21PCA",
    "pca-l1": "L1PCA",
    "r1-pca": "R1PCA",
    "pca-gm": "GeneralizedMeanPCA",
    "hq-pca": "HQPCA",
    "rwl-an": "AdaptiveNeighborsPCA",
    "pcp": "PrincipalComponentPursuit",
    "outlier-pursuit": "OutlierPursuit",
    "crpca-om": "ConvexOptimalMeanPCA",
    "orpca": "OnlineRobustPCA",  # the name `robustpca video` takes
    "or-pca": "OnlineRobustPCA",
    "rank-rpca": "RankConstrainedRobustPCA",
    "2dpca": "TwoDPCA",
    "glram": "GLRAM",
    "r2dpca": "Robust2DPCA",
    "capped-r2dpca": "CappedRobust2DPCA",
    "l21-2dpca": "L21TwoDPCA",
}
#: Estimators ``fit`` cannot run: they need more than one data matrix, or are not linear.
UNSUPPORTED = {
    "RobustTransferPCA": "it needs a source data set as well as the target",
    "KernelL21PCA": "it is a kernel method without linear components or a mean",
}
TWO_D = {"TwoDPCA", "GLRAM", "Robust2DPCA", "CappedRobust2DPCA", "L21TwoDPCA"}
#: ``--method`` default, by input (the evidence is in docs/which-method.md, measured by
#: benchmarks/which_method.py). Tables: the high-breakdown ROBPCA, the only method that
#: keeps its subspace under a tight cluster of bad leverage points (every l2,1/M-type
#: method of ours breaks there at small shares); RPCA-OM in a build without ROBPCA.
#: Images: RWL-AN (AdaptiveNeighborsPCA), which on the occluded AT&T faces finds the
#: occluded images best and reconstructs them best, in a fraction of a second.
DEFAULT_METHOD = {
    "table": ("ROBPCA", "OptimalMeanPCA"),
    "images": ("AdaptiveNeighborsPCA", "OptimalMeanPCA"),
}
SCALES = ("none", "standard", "robust")
TABLE_SUFFIXES = {*TEXT_SUFFIXES, *PARQUET_SUFFIXES}
#: Above this many values the reconstructions are written as .npy only (not CSV too).
CSV_LIMIT = 2_000_000
#: The MAD's factor, consistent for the normal standard deviation (R's ``mad``).
MAD_FACTOR = 1.482602218505602


def resolve_method(name: str):
    """The estimator class for ``--method`` (alias or class name, case-insensitive)."""
    import robustpca

    available = tuple(robustpca.ESTIMATOR_NAMES)
    by_lower = {n.lower(): n for n in available}
    key = name.strip().lower()
    cls_name = METHOD_ALIASES.get(key) or by_lower.get(key)
    if cls_name is None or cls_name not in available:
        aliases = [a for a, c in METHOD_ALIASES.items() if c in available]
        choices = ", ".join([*aliases, *available])
        raise InputError(f"--method: unknown method {name!r}; choose from {choices}")
    if cls_name in UNSUPPORTED:
        raise InputError(f"--method {cls_name} is not available in `fit`: {UNSUPPORTED[cls_name]}")
    return getattr(robustpca, cls_name)


def supports_missing(cls) -> bool:
    """Whether the estimator class fits data with missing (NaN) entries."""
    return bool(getattr(cls, "_supports_missing", False))


def default_method(is_images: bool, has_missing: bool = False) -> str:
    """The ``--method`` used when none is given (:data:`DEFAULT_METHOD`); with missing
    entries, the first candidate whose class fits them (``_supports_missing``)."""
    import robustpca

    candidates = DEFAULT_METHOD["images" if is_images else "table"]
    available = [c for c in candidates if c in robustpca.ESTIMATOR_NAMES]
    if has_missing:
        usable = [c for c in available if supports_missing(getattr(robustpca, c))]
        available = usable or available
    return available[0]


def check_scales(center, scale, how: str, names: list[str]) -> None:
    """A column whose scale is zero cannot be scaled: InputError names it."""
    zero = np.flatnonzero(~(scale > 1e-12 * np.maximum(1.0, np.abs(center))))
    if zero.size:
        which = ", ".join(repr(names[j]) for j in zero[:5]) + (" ..." if zero.size > 5 else "")
        rule = "standard deviation" if how == "standard" else "MAD (median absolute deviation)"
        other = "none" if how == "standard" else "standard / none"
        raise InputError(
            f"--scale {how}: the {rule} of column(s) {which} is zero, so they cannot be "
            f"scaled; --drop them, or use --scale {other}"
        )


def scale_columns(X: np.ndarray, how: str, names: list[str]):
    """Centre and scale the columns: ``standard`` (mean/sd) or ``robust`` (median/MAD).

    The MAD is multiplied by 1.4826 (consistent for the normal sd), as R's ``mad`` that
    rrcov users pass as ``scale=mad``. A column whose scale is zero (constant, or for the
    MAD more than half its values equal) cannot be scaled: InputError names it.
    Returns the scaled copy, the centres and the scales (None for ``none``).
    """
    if how == "none":
        return X, None, None
    if how == "standard":  # on the observed values of each column (NaN is missing)
        center = np.nanmean(X, axis=0)
        scale = np.nanstd(X, axis=0, ddof=1)
    else:
        center = np.nanmedian(X, axis=0)
        scale = MAD_FACTOR * np.nanmedian(np.abs(X - center), axis=0)
    check_scales(center, scale, how, names)
    return (X - center) / scale, center, scale


def parse_shape(text: str | None, n_features: int) -> tuple[int, int] | None:
    if text is None:
        return None
    try:
        h, w = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise InputError(f"--image-shape must look like 32x32, got {text!r}") from None
    if h < 1 or w < 1 or h * w != n_features:
        raise InputError(f"--image-shape {h}x{w} does not match the {n_features} features")
    return h, w


def check_missing(cls, n_missing: int, path) -> None:
    """Missing cells need a method that fits them: InputError names those that do."""
    if n_missing and not supports_missing(cls):
        import robustpca

        able = [n for n in robustpca.ESTIMATOR_NAMES if supports_missing(getattr(robustpca, n))]
        raise InputError(
            f"{path}: {n_missing} cell(s) are missing (empty or NaN), and --method "
            f"{cls.__name__} cannot fit missing entries; use one of {', '.join(able)}, or "
            "fill them first"
        )


def build_model(cls, args, shape: tuple[int, int], image_shape):
    """The estimator of ``--method`` with the options' parameters, and those parameters;
    InputError for options the method or the data's shape do not allow."""
    k = args.n_components
    if isinstance(k, int) and not 1 <= k <= min(shape):
        raise InputError(
            f"--n-components must be between 1 and {min(shape)} "
            f"(samples x features = {shape[0]} x {shape[1]}), got {k}"
        )
    if not isinstance(k, int) and not cls._supports_auto_rank and cls.__name__ not in TWO_D:
        if k == "auto" and not cls._n_components_is_rank:
            k = None  # the penalty of PCP, outlier pursuit and CRPCA-OM sets the rank
        else:
            also = "" if cls._n_components_is_rank else " or auto (its penalty sets the rank)"
            raise InputError(f"--method {cls.__name__} needs a whole number -k{also}; got {k}")
    params = {"n_components": k}
    model = cls()
    if "random_state" in model.get_params():
        params["random_state"] = args.random_state
    if args.max_iter is not None:
        if "max_iter" not in model.get_params():
            raise InputError(f"--max-iter: {cls.__name__} has no iteration cap")
        params["max_iter"] = args.max_iter
    if cls.__name__ in TWO_D:
        if image_shape is None:
            raise InputError(
                f"--method {cls.__name__} works on images: give a folder of "
                "images or --image-shape HxW"
            )
        if not isinstance(k, int):
            raise InputError(f"--method {cls.__name__} needs a whole number -k (got {k})")
        # 2DPCA is one-sided (k columns of the images); the others take k x k
        params["n_components"] = k if cls.__name__ == "TwoDPCA" else (k, k)
        params["image_shape"] = image_shape
    model.set_params(**params)
    return model, params


def fit_model(model, X) -> tuple[float, bool]:
    """Fit, timed; returns the seconds and whether a ConvergenceWarning was raised."""
    start = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        try:
            model.fit(X)
        except (ValueError, TypeError) as error:
            raise InputError(f"fitting {type(model).__name__} failed: {error}") from None
    seconds = time.perf_counter() - start
    return seconds, any(issubclass(w.category, ConvergenceWarning) for w in caught)
