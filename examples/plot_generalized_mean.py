r"""
PCA-GM: the exponent of the generalized mean
============================================

PCA-GM (Oh & Kwak) minimises the generalized (power) mean of the squared reconstruction
errors, :math:`\bigl(\frac1n \sum_i e_i(W)^p\bigr)^{1/p}` with
:math:`e_i(W) = \lVert x_i - m \rVert^2 - \lVert W^\top (x_i - m) \rVert^2`, centred on the
generalized sample mean :math:`m`. With :math:`p = 1` it is PCA; smaller :math:`p` give
the samples with large errors (outliers) less say. The data are synthetic: inliers
along the diagonal, outliers along the vertical axis. The first component of the inliers
alone is at 45 degrees to the horizontal axis.
"""

import matplotlib.pyplot as plt
import numpy as np

from robustpca import PCA, GeneralizedMeanPCA, generalized_sample_mean

rng = np.random.default_rng(0)
t = rng.uniform(-10, 10, 200)
inliers = np.c_[t, t] + rng.normal(scale=0.7, size=(200, 2))
outliers = np.c_[rng.normal(scale=0.7, size=30), rng.uniform(0, 25, 30)]
X = np.vstack([inliers, outliers])


def angle(model):
    v = model.components_[0]
    return np.degrees(np.arctan2(abs(v[1]), abs(v[0])))


ps = [0.1, 0.2, 0.3, 0.5, 0.7, 1.0]
angles = [angle(GeneralizedMeanPCA(n_components=1, p=p, random_state=0).fit(X)) for p in ps]
print("angle of PCA's component:", round(angle(PCA(n_components=1).fit(X)), 1))

# %%
# Left: the data, PCA's line and PCA-GM's for p = 0.3 through their centres. Right: the
# angle of the first component as p goes from 0.1 to 1 (p = 1 is PCA).
fig, axes = plt.subplots(1, 2, figsize=(11, 4.5))
ax = axes[0]
ax.scatter(*inliers.T, s=10, label="inliers")
ax.scatter(*outliers.T, s=10, color="tab:orange", label="outliers")
for model, name, colour in [
    (PCA(n_components=1).fit(X), "PCA", "tab:red"),
    (GeneralizedMeanPCA(n_components=1, p=0.3, random_state=0).fit(X), "PCA-GM, p=0.3", "k"),
]:
    line = model.mean_ + np.outer([-14, 14], model.components_[0])
    ax.plot(*line.T, color=colour, label=name)
m = generalized_sample_mean(X, p=0.3)
ax.plot(*m, "X", color="k", ms=10, label="generalized mean")
ax.plot(*X.mean(axis=0), "X", color="tab:red", ms=10, label="sample mean")
ax.set_aspect("equal")
ax.legend(fontsize=8, loc="lower right")
axes[1].plot(ps, angles, "o-")
axes[1].axhline(45, ls="--", color="gray", label="inliers' direction")
axes[1].set_xlabel("p")
axes[1].set_ylabel("angle of the first component (degrees)")
axes[1].legend()
fig.tight_layout()
plt.show()
