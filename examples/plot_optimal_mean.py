"""
Optimal mean against arithmetic mean
====================================

Outliers drag the arithmetic mean and, with it, the subspace PCA fits around it. RPCA-OM
(:class:`~robustpca.OptimalMeanPCA`, Nie, Yuan & Huang 2014) optimises the mean jointly
with the subspace under the :math:`\\ell_{2,1}` loss: the outliers' weights fall and the
mean stays with the bulk of the data.
"""

import matplotlib.pyplot as plt
import numpy as np

from robustpca import PCA, OptimalMeanPCA

rng = np.random.default_rng(0)
t = rng.normal(size=200)
inliers = np.c_[4 * t, 1.5 * t] + 0.3 * rng.normal(size=(200, 2)) + [2.0, 1.0]
outliers = rng.normal(size=(40, 2)) * 0.7 + [6.0, 9.0]
X = np.vstack([inliers, outliers])

pca = PCA(n_components=1).fit(X)
om = OptimalMeanPCA(n_components=1).fit(X)

fig, ax = plt.subplots(figsize=(6, 5))
ax.scatter(*X.T, c=om.weights_, s=18, cmap="viridis")
for model, name, colour in [(pca, "PCA", "tab:red"), (om, "RPCA-OM", "tab:blue")]:
    line = model.mean_ + np.outer(np.linspace(-12, 12, 2), model.components_[0])
    ax.plot(*line.T, color=colour, label=f"{name} line")
    ax.plot(*model.mean_, "X", color=colour, ms=12, mec="k", label=f"{name} mean")
ax.set_aspect("equal")
ax.legend(loc="lower right")
ax.set_title("colour: RPCA-OM's learned sample weights")
plt.show()
