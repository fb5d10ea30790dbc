"""
Choosing the number of components
=================================

``n_components`` takes an ``int``, a share of the variance in ``(0, 1)``, or ``"auto"``:
R's rrcov rule (Hubert, Rousseeuw & Vanden Branden 2005, sec. 3.1), the smallest ``k``
explaining at least 80% of the variance, at most ``kmax = 10``, stopping at eigenvalues
below :math:`10^{-3}` of the first. The robust estimators take the shares of a robust
spectrum (spherical PCA's, :func:`~robustpca.rank_selection.spherical_spectrum`), so that
outliers do not inflate the variance they are shares of; :class:`~robustpca.PCA` uses its
own eigenvalues. ``n_components_`` holds the ``k`` chosen.
"""

import matplotlib.pyplot as plt
import numpy as np

from robustpca import PCA, OptimalMeanPCA
from robustpca.rank_selection import select_n_components, spherical_spectrum

# 400 samples near a 4-dimensional subspace of 30 dimensions, and 10% gross outliers
rng = np.random.default_rng(1)
basis = np.linalg.qr(rng.normal(size=(30, 4)))[0]
X = rng.normal(size=(400, 4)) * [6.0, 5.0, 4.0, 3.0] @ basis.T + 0.3 * rng.normal(size=(400, 30))
X[:40] = 25 * rng.normal(size=(40, 30))

# %%
# The two spectra: classical eigenvalues are dominated by the outliers' variance, spread
# over all 30 directions; the spherical (robust) spectrum shows the 4 directions.
classical = PCA().fit(X).explained_variance_
robust, rank = spherical_spectrum(X)
fig, axes = plt.subplots(1, 2, figsize=(11, 4))
spectra = [("classical", classical), ("robust (spherical)", robust)]
for ax, (name, ev) in zip(axes, spectra, strict=True):
    share = np.cumsum(ev) / ev.sum()
    ax.bar(np.arange(1, 16), ev[:15] / ev.sum(), color="tab:blue", label="share per component")
    ax.plot(np.arange(1, 16), share[:15], "o-", color="tab:orange", label="cumulative share")
    ax.axhline(0.8, ls="--", color="gray")
    k = select_n_components(ev, "auto")
    ax.axvline(k, color="tab:red", label=f'"auto": k = {k}')
    ax.set_title(f"{name} spectrum")
    ax.set_xlabel("component")
    ax.legend(loc="center right")
fig.tight_layout()

# %%
# The estimators resolve ``n_components`` at fit time
for n_components in [3, 0.9, "auto"]:
    pca = PCA(n_components=n_components).fit(X)
    om = OptimalMeanPCA(n_components=n_components).fit(X)
    print(
        f"n_components={n_components!r:7}  PCA: k = {pca.n_components_:2d}   "
        f"RPCA-OM: k = {om.n_components_}"
    )
plt.show()
