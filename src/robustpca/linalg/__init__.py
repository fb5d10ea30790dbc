r"""Linear algebra of the solvers: eigen-solvers, blocked passes, the weighted-PCA step.

* :mod:`robustpca.linalg.eigen`: :func:`top_eigh`, :class:`WarmStartEigh`,
  :func:`complete_orthonormal`, :func:`flip_component_signs`, ...;
* :mod:`robustpca.linalg.blocked`: the passes over blocks of rows or columns
  (:func:`weighted_row_sum`, :func:`row_sq_distances`, :func:`subspace_sq_residuals`,
  :func:`centred_gram`, :func:`gram_step`);
* :mod:`robustpca.linalg.weighted_pca`: :class:`WeightedPCAProblem`, the weighted PCA
  subproblem of RPCA-OM (Nie et al. 2014, problem 14) and every reweighting method.

Every name is importable from here, as before the split; the tuning constants live in
the submodule that reads them (patch them there).
"""

from __future__ import annotations

from .blocked import (
    BLOCK_BYTES as BLOCK_BYTES,
)
from .blocked import (
    EXTREME_WEIGHT_RATIO as EXTREME_WEIGHT_RATIO,
)
from .blocked import (
    MIN_BLOCK as MIN_BLOCK,
)
from .blocked import (
    RAW_GRAM_MAX_GAIN as RAW_GRAM_MAX_GAIN,
)
from .blocked import (
    SUSPICIOUS_RTOL as SUSPICIOUS_RTOL,
)
from .blocked import (
    GramStep,
    centred_gram,
    gram_basis,
    gram_step,
    raw_centred_gram,
    row_sq_distances,
    subspace_sq_residuals,
    weighted_row_sum,
)
from .blocked import (
    _block_length as _block_length,
)
from .blocked import (
    _blocked_centred_gram as _blocked_centred_gram,
)
from .blocked import (
    _centred_cols as _centred_cols,
)
from .blocked import (
    _centred_rows as _centred_rows,
)
from .blocked import (
    _col_slices as _col_slices,
)
from .blocked import (
    _dense_float64 as _dense_float64,
)
from .blocked import (
    _row_slices as _row_slices,
)
from .blocked import (
    _symmetric_from_upper as _symmetric_from_upper,
)
from .blocked import (
    _syrk_upper as _syrk_upper,
)
from .blocked import (
    _Workspace as _Workspace,
)
from .eigen import (
    QR_FIRST_ROWS_PER_COLUMN as QR_FIRST_ROWS_PER_COLUMN,
)
from .eigen import (
    RANK_RTOL as RANK_RTOL,
)
from .eigen import (
    TRIDIAGONAL_MAX as TRIDIAGONAL_MAX,
)
from .eigen import (
    TRIDIAGONAL_RTOL as TRIDIAGONAL_RTOL,
)
from .eigen import (
    WARM_EXTRA as WARM_EXTRA,
)
from .eigen import (
    WARM_MAX_STEPS as WARM_MAX_STEPS,
)
from .eigen import (
    WARM_RTOL as WARM_RTOL,
)
from .eigen import (
    WARM_START_MIN as WARM_START_MIN,
)
from .eigen import (
    WarmStartEigh,
    cholesky_qr,
    complete_orthonormal,
    eigh_index_range,
    flip_component_signs,
    positive_eigen_mask,
    single_blas_thread,
    svd_right,
    top_eigh,
    top_eigh_tridiagonal,
)
from .eigen import (
    _krylov_ritz as _krylov_ritz,
)
from .eigen import (
    _pad_rows as _pad_rows,
)
from .eigen import (
    _sytrd_lwork as _sytrd_lwork,
)
from .eigen import (
    _threadpool_controller as _threadpool_controller,
)
from .weighted_pca import (
    SMALL_GRAM as SMALL_GRAM,
)
from .weighted_pca import (
    WeightedPCAProblem,
    WeightedSubspace,
)

__all__ = [
    "GramStep",
    "WarmStartEigh",
    "WeightedPCAProblem",
    "WeightedSubspace",
    "centred_gram",
    "cholesky_qr",
    "complete_orthonormal",
    "eigh_index_range",
    "flip_component_signs",
    "gram_basis",
    "gram_step",
    "positive_eigen_mask",
    "raw_centred_gram",
    "row_sq_distances",
    "single_blas_thread",
    "subspace_sq_residuals",
    "svd_right",
    "top_eigh",
    "top_eigh_tridiagonal",
    "weighted_row_sum",
]
