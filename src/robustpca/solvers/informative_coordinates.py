r"""Which observed coordinates inform a fit on the observed entries: the rows fitted
exactly, constant columns, and the degrees of freedom of an observed residual.

**Rows fitted exactly.** A row with at most ``k`` observed coordinates has a zero
observed residual at almost every subspace, so it carries no information on the
subspace (:mod:`robustpca.solvers.missing`, "Rows fitted exactly"):
:func:`rows_fitted_exactly` names these rows, :func:`informative_rows` the others.

**Constant columns.** An entry of a column whose observed entries are all equal (a dead
sensor) carries nothing either: the centred fits put their mean at that value and give
the column no loading, so its residual is 0 in every row, and a row whose other
observed coordinates number at most ``k`` is fitted exactly too. The rules above count
the *informative* coordinates (:func:`constant_columns`, :func:`uninformative_entries`).
Counted as observed, the constant entries kept such rows in the steps. On hbk with 15%
of its cells missing and a constant fourth column (three masks, ``k = 2``):

- PCA's EM stopped at ``max_iter``, its subspace 0.47 from the fit without the column
  (the largest entry of the difference of the projectors);
- the eight estimators of that loop (PCA, RPCA-OM, PCA-L21, PCA-L1, R1-PCA, PCA-GM,
  HQ-PCA and RWL-AN) moved by 0.04-0.65 and changed 1-14 flags;
- PCP, outlier pursuit, CRPCA-OM, ROBPCA and CovariancePCA kept their subspaces, but
  their diagnostics counted the rows as informative and changed up to 11 flags.

Counting the informative coordinates, the fits and flags of these thirteen are those of
the table without the column (to 2e-13 in the projectors; SphericalPCA's, whose
spatial-median tolerance grows with the dimension, to 2e-6). The estimators store the
training constants that their model does not use (:func:`model_constants`), so that
the diagnostics count the same coordinates on the training data and on new rows.

**Degrees of freedom.** :func:`od_correction` puts an observed residual norm on the
scale of a complete row's, counting the informative coordinates
(:func:`informative_counts`); :func:`observed_od` adds a new row's deviations from the
training constants as they are.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = [
    "ConstantColumns",
    "constant_columns",
    "informative_counts",
    "informative_rows",
    "model_constants",
    "observed_od",
    "od_correction",
    "rows_fitted_exactly",
    "uninformative_entries",
]


@dataclass(frozen=True, eq=False)
class ConstantColumns:
    """The columns of a data set whose observed entries are one value each.

    Attributes
    ----------
    mask : ndarray of bool, shape (n_features,)
        The constant columns.
    values : ndarray of shape (n_features,)
        Their values (float64), 0 in the other columns.
    """

    mask: np.ndarray
    values: np.ndarray

    @property
    def count(self) -> int:
        """The number of constant columns."""
        return int(np.count_nonzero(self.mask))

    def only(self, keep: np.ndarray) -> ConstantColumns | None:
        """These constants restricted to the columns of ``keep`` (None if none is left).

        Parameters
        ----------
        keep : ndarray of bool, shape (n_features,)
            The columns to keep.

        Returns
        -------
        ConstantColumns or None
        """
        mask = self.mask & keep
        return ConstantColumns(mask, np.where(mask, self.values, 0.0)) if mask.any() else None


def constant_columns(
    X: np.ndarray,
    missing: np.ndarray | None = None,
    ranges: tuple[np.ndarray, np.ndarray] | None = None,
) -> ConstantColumns | None:
    """The columns of ``X`` whose observed entries are all equal (not one with no
    observed entry), or None where none is (module docstring, "Constant columns").

    Two NaN-ignoring reductions (``np.fmin``, ``np.fmax``), or none where ``ranges``
    gives the column minima and maxima of an ``X`` with no NaN and no ``missing``.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        The data; NaN entries are unobserved.
    missing : ndarray of bool, shape (n_samples, n_features) or None, default=None
        Entries treated as unobserved, besides the NaN ones.
    ranges : tuple of two ndarrays of shape (n_features,) or None, default=None
        The column minima and maxima of ``X``
        (:func:`~robustpca._validation.column_ranges`), where the caller has them.

    Returns
    -------
    ConstantColumns or None
    """
    X = np.asarray(X)
    if missing is not None and missing.any():
        X, ranges = np.where(missing, np.nan, X), None
    if ranges is not None:
        low, high = ranges
    else:
        low, high = np.fmin.reduce(X, axis=0), np.fmax.reduce(X, axis=0)
    constant = low == high  # False for a column with no observed entry (NaN)
    if not constant.any():
        return None
    return ConstantColumns(constant, np.where(constant, low, 0.0).astype(np.float64))


def uninformative_entries(missing: np.ndarray, constants: ConstantColumns | None) -> np.ndarray:
    """The entries that carry nothing on the subspace: ``missing``, and every entry of
    the ``constants``.

    Parameters
    ----------
    missing : ndarray of bool, shape (n_samples, n_features)
        The unobserved entries.
    constants : ConstantColumns or None
        :func:`constant_columns` of the training data, or :func:`model_constants`.

    Returns
    -------
    ndarray of bool, shape (n_samples, n_features)
        ``missing`` itself when ``constants`` is None.
    """
    if constants is None:
        return missing
    return missing | constants.mask


def informative_counts(
    missing: np.ndarray, constants: ConstantColumns | None
) -> tuple[np.ndarray, int]:
    """The informative coordinates of each row (:func:`uninformative_entries`) and of a
    complete row (``p`` less the constant columns): the ``p_O`` and ``p`` of
    :func:`od_correction` and of the diagnostics' reference rows.

    Parameters
    ----------
    missing : ndarray of bool, shape (n_samples, n_features)
        The unobserved entries.
    constants : ConstantColumns or None
        The constant columns, whose entries do not count.

    Returns
    -------
    counts : ndarray of shape (n_samples,)
    n_features : int
    """
    entries = uninformative_entries(missing, constants)
    n_features = missing.shape[1] - (0 if constants is None else constants.count)
    return missing.shape[1] - np.count_nonzero(entries, axis=1), n_features


def observed_od(
    r: np.ndarray,
    X: np.ndarray,
    missing: np.ndarray,
    constants: ConstantColumns | None,
    n_components: int,
) -> np.ndarray:
    """Orthogonal distances of rows with gaps from their observed residual norms ``r``.

    The residual of the informative coordinates is put on a complete row's scale by
    :func:`od_correction`; the deviations of observed entries from their column's
    constant (``constants``, :func:`model_constants`), which the model's residual holds
    whole (no component loads on those columns), are added as they are, since the
    training data had none. A complete row's distance is therefore its residual norm,
    and a new row fitted exactly on its informative coordinates keeps its deviation
    from a constant column as its distance.

    Parameters
    ----------
    r : ndarray of shape (n_samples,)
        Observed residual norms of the rows.
    X : ndarray of shape (n_samples, n_features)
        The rows (read at the constant columns only).
    missing : ndarray of bool, shape (n_samples, n_features)
        The unobserved entries.
    constants : ConstantColumns or None
        Constant columns that the model does not use (:func:`model_constants`).
    n_components : int
        Subspace dimension ``k``.

    Returns
    -------
    ndarray of shape (n_samples,)
    """
    counts, n_features = informative_counts(missing, constants)
    factor = od_correction(counts, n_features, n_components)
    if constants is None:
        return r * factor
    const = constants.mask
    dev = np.where(missing[:, const], 0.0, X[:, const] - constants.values[const])
    dev2 = np.einsum("ij,ij->i", dev, dev)
    informative = np.maximum(r * r - dev2, 0.0)
    return np.sqrt(factor * factor * informative + dev2)


def model_constants(
    constants: ConstantColumns | None, mean: np.ndarray, components: np.ndarray
) -> ConstantColumns | None:
    """The training ``constants`` (:func:`constant_columns`) that a fitted model does not
    use (None if none): its ``mean`` there is the constant and no component loads on the
    column, both to the square root of the components' precision (relative to the
    largest constant or mean entry). The centred fits meet this; an uncentred one (PCP
    without ``center``, GoDec, AccAltProj) keeps a nonzero constant column as a
    direction of the data, whose entries then inform the residuals.

    Parameters
    ----------
    constants : ConstantColumns or None
        :func:`constant_columns` of the training data.
    mean : ndarray of shape (n_features,)
        The fitted mean.
    components : ndarray of shape (n_components, n_features)
        The fitted components, as rows.

    Returns
    -------
    ConstantColumns or None
    """
    if constants is None:
        return None
    comps = np.asarray(components)
    mean = np.asarray(mean, dtype=np.float64)
    dtype = comps.dtype if comps.dtype.kind == "f" else np.dtype(np.float64)
    tol = float(np.sqrt(np.finfo(dtype).eps))
    loads = np.abs(comps).max(axis=0) if comps.shape[0] else np.zeros(comps.shape[1])
    values = constants.values
    scale = max(float(np.abs(values).max()), float(np.abs(mean).max()))
    return constants.only((loads <= tol) & (np.abs(mean - values) <= tol * scale))


def od_correction(n_observed: np.ndarray, n_features: int, n_components: int) -> np.ndarray:
    r"""Factor that puts an observed residual norm on the scale of a complete one.

    A least-squares fit of ``k`` scores to ``p_O`` coordinates leaves ``p_O - k``
    degrees of freedom in the residual; with noise of equal variance :math:`\sigma^2`
    per coordinate, :math:`E\,r_O^2 = (p_O - k)\sigma^2` against :math:`(p - k)
    \sigma^2` for a complete row. The orthogonal distance of a row with ``p_O``
    observed coordinates is therefore :math:`r_O \sqrt{(p - k) / (p_O - k)}` (1 for
    a complete row), so that it is comparable with the training cutoff; ``sqrt(p /
    p_O)`` would ignore the ``k`` coordinates the scores absorb. A row with
    :math:`p_O \le k` is fitted exactly (no residual information): factor 0.

    Parameters
    ----------
    n_observed : ndarray of shape (n_samples,)
        Observed (informative) coordinates ``p_O`` of each row.
    n_features : int
        Coordinates ``p`` of a complete row.
    n_components : int
        Subspace dimension ``k``.

    Returns
    -------
    ndarray of shape (n_samples,)
    """
    n_observed = np.asarray(n_observed, dtype=np.float64)
    free = n_observed - n_components
    total = max(n_features - n_components, 0)
    out = np.zeros_like(free)
    np.divide(total, free, out=out, where=free > 0)
    return np.sqrt(out)


def rows_fitted_exactly(missing: np.ndarray, n_components: int) -> np.ndarray:
    """Rows with at most ``n_components`` observed entries: their observed residual is
    zero for almost every subspace, so they carry no information on it (module
    docstring, "Rows fitted exactly").

    Parameters
    ----------
    missing : ndarray of bool, shape (n_samples, n_features)
        The unobserved entries; pass :func:`uninformative_entries` to count the
        informative entries.
    n_components : int
        Subspace dimension ``k``.

    Returns
    -------
    ndarray of bool, shape (n_samples,)
    """
    return missing.shape[1] - np.count_nonzero(missing, axis=1) <= n_components


def informative_rows(X: np.ndarray, missing: np.ndarray, n_components: int) -> np.ndarray | None:
    """The indices of the rows not fitted exactly (:func:`rows_fitted_exactly` of the
    informative entries: constant columns do not count) where some rows are and some
    are not, else None: the EM of the arithmetic-mean-centred methods (R1-PCA, PCA-L21,
    PCA-L1) runs on these rows alone, since the completions of the others, free along
    the subspace, dragged its mean and pinned its subspace.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        The data (for their constant columns, :func:`constant_columns`).
    missing : ndarray of bool, shape (n_samples, n_features)
        The unobserved entries.
    n_components : int
        Subspace dimension ``k``.

    Returns
    -------
    ndarray of int or None
    """
    entries = uninformative_entries(missing, constant_columns(X, missing))
    exact = rows_fitted_exactly(entries, n_components)
    return np.flatnonzero(~exact) if exact.any() and not exact.all() else None
