"""robustpca: robust principal component analysis with a scikit-learn API.

Estimators
----------
OptimalMeanPCA  RPCA-OM (Nie, Yuan & Huang 2014): l2,1 loss, mean optimised jointly.
PCA             classical PCA with sample weights and the same diagnostics.

Solvers (usable on their own) live in :mod:`robustpca.solvers`, robust losses in
:mod:`robustpca.losses`.
"""

from .estimators import PCA, OptimalMeanPCA

__version__ = "0.1.0.dev0"

__all__ = ["PCA", "OptimalMeanPCA", "__version__"]
