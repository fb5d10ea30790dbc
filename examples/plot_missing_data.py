"""
Missing entries: occlusions marked as missing
=============================================

When you know *which* entries are corrupted (a detector found the occlusion, a sensor
reported a dropout), mark them as missing, ``np.nan``, rather than leaving them in: the
estimators that support missing entries fit the subspace on the observed entries only
(a majorize-minimize loop, :mod:`robustpca.solvers.missing`), and ``reconstruct`` fills
the gaps with the fitted values. Here: scikit-learn's digits with 20% of the images
occluded by a block, fitted by RPCA-OM once with the blocks left in (white pixels) and
once with the blocks marked missing.
"""

import warnings

import matplotlib.pyplot as plt
import numpy as np
from sklearn.exceptions import ConvergenceWarning

from robustpca import PCA, OptimalMeanPCA
from robustpca.datasets import load_digits_images, occlude_blocks

digits = load_digits_images()
clean = digits.data / 16.0
occluded, mask = occlude_blocks(clean, digits.image_shape, random_state=0)
mask = mask.reshape(clean.shape)
marked = np.where(mask, np.nan, occluded)  # the same images, the blocks as NaN
hit = np.flatnonzero(mask.any(axis=1))
print(f"{np.isnan(marked).sum()} missing entries in {len(hit)} images")

# %%
# Fit on the occluded images and on the marked ones; measure every reconstruction
# against the clean digits, on the occluded images
fits = {
    "PCA, blocks left in": (PCA(n_components=10), occluded),
    "RPCA-OM, blocks left in": (OptimalMeanPCA(n_components=10), occluded),
    "PCA, blocks missing": (PCA(n_components=10), marked),
    "RPCA-OM, blocks missing": (OptimalMeanPCA(n_components=10), marked),
}
reconstructions = {}
with warnings.catch_warnings():
    warnings.simplefilter("ignore", ConvergenceWarning)
    for name, (model, data) in fits.items():
        model.fit(data)
        reconstructions[name] = model.reconstruct(data)
        error = np.linalg.norm(reconstructions[name][hit] - clean[hit]) / np.linalg.norm(clean[hit])
        print(f"{name:24s} n_missing_ = {model.n_missing_:5d}   relative error {error:.3f}")

# %%
# Eight occluded digits: clean, as fitted (missing entries in red), and the two RPCA-OM
# reconstructions
shown = hit[:8]
rows = {
    "clean": clean,
    "blocks missing": marked,
    "RPCA-OM,\nblocks left in": reconstructions["RPCA-OM, blocks left in"],
    "RPCA-OM,\nblocks missing": reconstructions["RPCA-OM, blocks missing"],
}
cmap = plt.get_cmap("gray").with_extremes(bad="tab:red")
fig, axes = plt.subplots(len(rows), len(shown), figsize=(8, 4.6))
for row, (label, images) in zip(axes, rows.items(), strict=True):
    for ax, i in zip(row, shown, strict=True):
        ax.imshow(images[i].reshape(digits.image_shape), cmap=cmap, vmin=0, vmax=1)
        ax.set_xticks([])
        ax.set_yticks([])
    row[0].set_ylabel(label, rotation=0, ha="right", va="center")
fig.tight_layout()
plt.show()
