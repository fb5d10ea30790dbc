r"""OR-PCA (:mod:`.orpca`) on the observed entries of a stream with missing values.

A sample :math:`z` observed on the coordinates :math:`\Omega` costs its loss on those
coordinates alone (problem (3) of Feng, Xu & Yan 2013 restricted to :math:`\Omega`),

.. math:: \ell_\Omega(z, L) = \min_{r, e}\ \tfrac12\lVert P_\Omega(z - Lr - e)\rVert_2^2
          + \tfrac{\lambda_\Omega}{2}\lVert r\rVert_2^2 + \lambda_2\lVert P_\Omega e\rVert_1 ,
          \qquad \lambda_\Omega = \lambda_1\sqrt{|\Omega|/p},

with the ridge in proportion to the norm of the noise on the entries seen
(:func:`observed_ridges`; the paper's is :math:`\lambda_1` whatever :math:`|\Omega|`,
which shrank a sample seen on a twentieth of its entries to half its size),

and the surrogate of the basis separates over the features: feature ``j`` is seen only
by the samples that observe it,

.. math:: g_t(L) = \frac1t\sum_j \Big[\tfrac12 L_j^\top(A_j + \lambda_1 I)L_j
          - L_j^\top B_j\Big] + \frac{c_t}{t}, \quad
          A_j = \sum_i \beta^{t-i}\omega_{ij} r_i r_i^\top, \quad
          B_j = \sum_i \beta^{t-i}\omega_{ij}(z_{ij} - e_{ij}) r_i

(:math:`L_j` the ``j``-th row of :math:`L`, :math:`\omega_{ij}` 1 where observed), whose
minimiser is one ``r x r`` solve per feature, :math:`L_j = (A_j + \lambda_1 I)^{-1}B_j`.
This is the exponentially weighted least squares of Mardani, Mateos & Giannakis (2015,
sec. III-B: one recursion per row of the basis, fed only where the row is observed)
with OR-PCA's sparse part, as in Mardani, Mateos & Giannakis (2013). With every entry
observed every :math:`A_j` is OR-PCA's :math:`A`, and the step is
:func:`~.orpca.orpca_update`'s. The split of a sample is Algorithm 2 on its observed
coordinates (:func:`orpca_project_observed`); its low-rank part :math:`Lr` fills the
gaps, and its sparse part is zero there (nothing was seen). A feature never observed
keeps a zero row of the basis.

The per-feature statistics cost ``p r^2`` numbers, against ``r^2`` for OR-PCA's
:math:`A`: a stream takes them on at its first missing entry
(:attr:`~.orpca.ORPCAState.A_rows`) and keeps them from then on.

References
----------
M. Mardani, G. Mateos, G. B. Giannakis, "Subspace learning and imputation for streaming
big data matrices and tensors", IEEE Transactions on Signal Processing 63(10), 2015.
M. Mardani, G. Mateos, G. B. Giannakis, "Dynamic anomalography: tracking network
anomalies via sparsity and low rank", IEEE Journal of Selected Topics in Signal
Processing 7(1), 2013.
"""

from __future__ import annotations

import numpy as np

from .orpca import ORPCAState, OrpcaStep, _left, _outer, _project_rank_one, _right

__all__ = [
    "accumulate_rows",
    "observed_ridges",
    "orpca_project_observed",
    "orpca_update_observed",
    "rows_basis_step",
]


def _row_grams(weights: np.ndarray, L: np.ndarray) -> np.ndarray:
    """``sum_j weights[i, j] L_j L_j'`` for every row ``i`` of ``weights`` (n, p): the
    (n, r, r) Gram matrices (float64) of the basis on each row's observed features (one
    matrix-vector product per pair of columns, no (n, p, r) temporary)."""
    r = L.shape[1]
    out = np.empty((weights.shape[0], r, r))
    for k in range(r):
        for m in range(k, r):
            out[:, k, m] = out[:, m, k] = weights @ (L[:, k] * L[:, m])
    return out


def _ridged(G: np.ndarray, lambda1) -> np.ndarray:
    """``G + lambda1 I`` for a stack of Gram matrices (``lambda1`` one value, or one per
    matrix), with a small ridge where it is 0, as :func:`~.orpca.basis_step` adds (a
    feature or row seen by no coefficient then gets zero, not a singular solve)."""
    eye = np.eye(G.shape[-1])
    lam = np.asarray(lambda1, dtype=np.float64)
    if np.all(lam > 0):
        return G + lam[..., None, None] * eye
    tiny = np.maximum(np.trace(G, axis1=-2, axis2=-1), 1.0) * 1e-12
    return G + np.where(lam > 0, lam, tiny)[..., None, None] * eye


def observed_ridges(lambda1: float, weights: np.ndarray) -> np.ndarray:
    r"""Each row's ridge in the split: :math:`\lambda_1\sqrt{|O_i|/p}`, with
    :math:`|O_i|` the row's observed entries. A penalty sized for a complete sample (the
    norm of its noise, 'auto') keeps that meaning on the entries a row has; a row with
    few of them would otherwise be shrunk towards zero, and the background with it.

    Parameters
    ----------
    lambda1 : float
        :math:`\lambda_1`, the ridge of a complete row.
    weights : ndarray of shape (n_samples, n_features)
        Nonzero (1) where observed, 0 at the gaps.
    """
    p = weights.shape[1]
    counts = np.count_nonzero(weights, axis=1).astype(np.float64)
    return float(lambda1) * np.sqrt(counts / max(p, 1))


def _solve(G: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """The solutions (n, r) of the positive definite systems ``G[i] x = rhs[i]``."""
    if G.shape[-1] == 1:
        return rhs / G[..., 0]
    return np.linalg.solve(G, rhs[..., None])[..., 0]


def orpca_project_observed(
    Z: np.ndarray,
    observed: np.ndarray,
    basis: np.ndarray,
    lambda1: float,
    lambda2: float,
    *,
    max_iter: int = 20,
    tol: float = 1e-4,
) -> OrpcaStep:
    r"""Algorithm 2 on the observed coordinates of every row of ``Z`` at once.

    Alternates :math:`r_i \leftarrow (L^\top\Omega_iL + \lambda_{\Omega_i} I)^{-1}
    L^\top\Omega_i(z_i - e_i)` (:math:`\Omega_i` the diagonal of row ``i``'s observed
    coordinates, :math:`\lambda_{\Omega_i}` its ridge, :func:`observed_ridges`) with
    :math:`e_i \leftarrow \mathcal S_{\lambda_2}(\Omega_i(z_i - Lr_i))`, from the ridge
    coefficients, with :func:`~.orpca.orpca_project`'s stopping rule (every row's
    low-rank part moves by at most ``tol`` times the norm of its observed entries) and
    at most ``max_iter`` iterations, written, as there, on the clipped residual
    :math:`c_i`: :math:`L^\top\Omega_i(z_i - e_i) = L^\top\Omega_iLr_i + L^\top c_i`,
    one product with ``r`` columns and three passes over the batch per iteration. With
    one component the minimiser is found as there, as the root of a scalar function
    (:func:`~.orpca._project_rank_one` with its sums over the observed entries;
    ``max_iter`` bounds its evaluations). Returns the :class:`~.orpca.OrpcaStep` of the
    batch in ``Z``'s dtype: the low-rank part on every entry (it fills the gaps), the
    sparse part and the clipped residual zero at the gaps.

    Parameters
    ----------
    Z : ndarray of shape (n_samples, n_features)
        The batch (not modified); its entries off ``observed`` are ignored (NaN or any
        value).
    observed : ndarray of shape (n_samples, n_features)
        Boolean, True where an entry is observed.
    basis : ndarray of shape (n_features, n_components)
        :math:`L`.
    lambda1 : float
        :math:`\lambda_1`, the ridge of a complete row (:func:`observed_ridges`).
    lambda2 : float
        :math:`\lambda_2`, the l1 penalty of the sparse part.
    max_iter : int, default=20
        The most iterations.
    tol : float, default=1e-4
        The stopping rule's tolerance (above).
    """
    dtype = Z.dtype
    weights = observed.astype(dtype)
    ridges = observed_ridges(lambda1, weights)
    Z0 = np.where(observed, Z, dtype.type(0))
    L = basis.astype(dtype)
    Lt = np.ascontiguousarray(L.T)
    lo, hi = dtype.type(-lambda2), dtype.type(lambda2)
    C = np.empty_like(Z0)
    if L.shape[1] == 1:  # the root of a scalar function per row, as without gaps
        R, n_iter = _project_rank_one(Z0, L, ridges, lambda2, max_iter, tol, C, weights)
        return _observed_step(Z0, weights, R.astype(np.float64), Lt, lo, hi, C, n_iter)
    gram0 = _row_grams(weights, L)
    G = _ridged(gram0, ridges)
    gram = (L.T @ L).astype(np.float64)
    limit = (tol * tol) * np.einsum("ij,ij->i", Z0, Z0, dtype=np.float64)
    R = _solve(G, _right(Z0, Lt).astype(np.float64))
    n_iter = 0
    for n_iter in range(1, max_iter + 1):  # noqa: B007 (n_iter is returned)
        _clipped_residual(Z0, weights, R, Lt, lo, hi, C)
        R_new = _solve(G, np.einsum("ikm,im->ik", gram0, R) + _right(C, Lt))
        delta = R_new - R
        R = R_new
        if np.all(np.einsum("ij,jk,ik->i", delta, gram, delta) <= limit):
            break
    return _observed_step(Z0, weights, R, Lt, lo, hi, C, n_iter)


def _observed_step(Z0, weights, R, Lt, lo, hi, C, n_iter: int) -> OrpcaStep:
    """The step of the coefficients ``R``: the two parts and the clipped residual (into
    ``C``), zero at the gaps but for the low-rank part."""
    dtype = Z0.dtype
    low = _outer(R.astype(dtype), Lt, np.empty_like(Z0))
    sparse = np.subtract(Z0, low)
    sparse *= weights
    np.clip(sparse, lo, hi, out=C)
    sparse -= C
    return OrpcaStep(R.astype(dtype), low, sparse, C, n_iter)


def _clipped_residual(Z0, weights, R, Lt, lo, hi, out) -> np.ndarray:
    """``out = clip(weights * (Z0 - R L'), lo, hi)``: the clipped residual, zero at the
    gaps."""
    _outer(R.astype(Z0.dtype), Lt, out)
    np.subtract(Z0, out, out=out)
    out *= weights
    return np.clip(out, lo, hi, out=out)


def rows_basis_step(A_rows: np.ndarray, B: np.ndarray, lambda1: float) -> np.ndarray:
    r"""The minimiser of the per-feature surrogate: row ``j`` is
    :math:`(A_j + \lambda_1 I)^{-1}B_j` (float64, (p, r)).

    Parameters
    ----------
    A_rows : ndarray of shape (n_features, n_components, n_components)
        The per-feature :math:`A_j`.
    B : ndarray of shape (n_features, n_components)
        The rows :math:`B_j`.
    lambda1 : float
        :math:`\lambda_1` (a small ridge where it is 0).
    """
    return _solve(_ridged(A_rows, lambda1), B)


def accumulate_rows(A_rows: np.ndarray, observed: np.ndarray, R: np.ndarray) -> None:
    """Add ``sum_i observed[i, j] r_i r_i'`` to each feature's ``A_rows[j]``, in place.

    Parameters
    ----------
    A_rows : ndarray of shape (n_features, n_components, n_components)
        Float64; updated in place.
    observed : ndarray of shape (n_samples, n_features)
        Boolean or 0/1 weights.
    R : ndarray of shape (n_samples, n_components)
        The rows' coefficients :math:`r_i`.
    """
    weights = observed.astype(np.float64, copy=False)
    r = R.shape[1]
    for k in range(r):
        for m in range(k, r):
            A_rows[:, k, m] += (R[:, k] * R[:, m]) @ weights
            if m != k:
                A_rows[:, m, k] = A_rows[:, k, m]


def orpca_update_observed(
    state: ORPCAState,
    Z: np.ndarray,
    observed: np.ndarray,
    *,
    forgetting: float = 1.0,
    max_iter: int = 20,
    tol: float = 1e-4,
) -> tuple[ORPCAState, OrpcaStep, float]:
    r"""One step of Algorithm 1 on the observed entries of the batch ``Z``.

    The batch is split with the current basis (:func:`orpca_project_observed`); then
    :math:`A_j \leftarrow \beta^b A_j + \sum_i \omega_{ij} r_ir_i^\top`,
    :math:`B \leftarrow \beta^b B + (\Omega \circ (Z - E))^\top R` and every row of the
    basis is its surrogate's minimiser (:func:`rows_basis_step`). OR-PCA's :math:`A`
    (every row's coefficients, which order the fitted directions), the constant, the
    weight and the count follow as in :func:`~.orpca.orpca_update`. A state without
    per-feature statistics takes OR-PCA's :math:`A` for every feature first. ``state``
    is updated in place and returned with the batch's step and its loss
    :math:`\sum_i \ell_\Omega(z_i, L_{t-1})`.

    Parameters
    ----------
    state : ORPCAState
        Updated in place.
    Z : ndarray of shape (n_samples, n_features)
        The batch; its entries off ``observed`` are ignored.
    observed : ndarray of shape (n_samples, n_features)
        Boolean, True where an entry is observed.
    forgetting : float, default=1.0
        :math:`\beta`, the decay of the statistics per sample, as in
        :func:`~.orpca.orpca_update`.
    max_iter : int, default=20
        As in :func:`orpca_project_observed`.
    tol : float, default=1e-4
        As in :func:`orpca_project_observed`.
    """
    L = state.basis
    step = orpca_project_observed(
        Z, observed, L, state.lambda1, state.lambda2, max_iter=max_iter, tol=tol
    )
    R = step.coefficients.astype(np.float64)
    low, sparse = step.parts()
    C = step.clipped
    fitted = low * observed  # z - e = L r + c where seen, 0 elsewhere
    fitted += C
    decay = forgetting ** Z.shape[0]
    if state.A_rows is None:
        state.A_rows = np.repeat(state.A[None], L.shape[0], axis=0)
    state.A_rows *= decay
    accumulate_rows(state.A_rows, observed, R)
    ridge = 0.5 * float(observed_ridges(state.lambda1, observed) @ np.sum(R * R, axis=1))
    l1 = state.lambda2 * float(np.abs(sparse).sum(dtype=np.float64))
    clip_sq = float(np.einsum("ij,ij->", C, C, dtype=np.float64))
    constant = 0.5 * float(np.einsum("ij,ij->", fitted, fitted, dtype=np.float64)) + ridge + l1
    state.A = decay * state.A + R.T @ R
    state.B = decay * state.B + _left(step.coefficients, fitted)
    state.c = decay * state.c + constant
    state.weight = decay * state.weight + Z.shape[0]
    state.n_seen += Z.shape[0]
    # the stream's dtype: float64 once a batch was
    state.basis = rows_basis_step(state.A_rows, state.B, state.lambda1).astype(np.result_type(L, Z))
    return state, step, 0.5 * clip_sq + ridge + l1
