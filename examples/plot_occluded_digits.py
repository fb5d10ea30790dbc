"""
Occluded digits and their reconstructions
=========================================

The occlusion protocol of Nie, Yuan & Huang (2014, sec. 5.1) on scikit-learn's bundled
digits: 20% of the images get a white block covering a quarter of their area. Every
method is fitted on the *occluded* images, and its reconstructions are compared with the
*clean* ones: a robust fit learns the digits' subspace and leaves the blocks out, where
PCA spends components on them. This is what ``robustpca demo`` prints.
"""

import warnings

import matplotlib.pyplot as plt
import numpy as np
from sklearn.exceptions import ConvergenceWarning

from robustpca import L21PCA, PCA, OptimalMeanPCA
from robustpca.datasets import load_digits_images, occlude_blocks
from robustpca.metrics import total_reconstruction_error

digits = load_digits_images()
clean = digits.data / 16.0  # pixels in [0, 1]
occluded, mask = occlude_blocks(clean, digits.image_shape, random_state=0)
hit = np.flatnonzero(mask.reshape(len(clean), -1).any(axis=1))
print(f"{len(hit)} of {len(clean)} images occluded")

# %%
# Fit on the occluded images, measure against the clean ones
# ------------------------------------------------------------
# The error is Nie et al.'s: the sum over images of the Euclidean distance between the
# reconstruction and the clean image.
models = {
    "PCA": PCA(n_components=10),
    "PCA-L21": L21PCA(n_components=10, random_state=0),
    "RPCA-OM": OptimalMeanPCA(n_components=10),
}
reconstructions = {}
with warnings.catch_warnings():
    warnings.simplefilter("ignore", ConvergenceWarning)
    for name, model in models.items():
        reconstructions[name] = model.fit(occluded).reconstruct(occluded)
        error = total_reconstruction_error(reconstructions[name], clean)
        print(f"{name:8s} total reconstruction error {error:8.1f}")

# %%
# The occluded images, and what each method makes of them
# --------------------------------------------------------
# Ten occluded digits (columns): clean, occluded, and each method's reconstruction
# (rows), on one grey scale.
panels = {"clean": clean, "occluded": occluded, **reconstructions}
shown = hit[:10]
fig, axes = plt.subplots(len(panels), len(shown), figsize=(9, 5.2))
for row, (label, images) in zip(axes, panels.items(), strict=True):
    for ax, i in zip(row, shown, strict=True):
        ax.imshow(images[i].reshape(digits.image_shape), cmap="gray", vmin=0, vmax=1)
        ax.set_xticks([])
        ax.set_yticks([])
    row[0].set_ylabel(label, rotation=0, ha="right", va="center")
fig.suptitle("10 components, fitted on the occluded digits")

# %%
# Where the errors are
# --------------------
# Per-image error against the clean image, occluded images against the others: the
# robust fits reconstruct the occluded images' *digits* better and lose little on the
# clean images.
fig, ax = plt.subplots(figsize=(7, 3.5))
occ = np.zeros(len(clean), dtype=bool)
occ[hit] = True
for i, rec in enumerate(reconstructions.values()):
    err = np.linalg.norm(rec - clean, axis=1)
    boxes = ax.boxplot(
        [err[~occ], err[occ]],
        positions=[i - 0.17, i + 0.17],
        widths=0.3,
        patch_artist=True,
        showfliers=False,
    )
    for box, colour in zip(boxes["boxes"], ["tab:blue", "tab:orange"], strict=True):
        box.set_facecolor(colour)
ax.set_xticks(range(len(reconstructions)), list(reconstructions))
ax.set_ylabel("distance to the clean image")
ax.legend(
    [plt.Rectangle((0, 0), 1, 1, fc="tab:blue"), plt.Rectangle((0, 0), 1, 1, fc="tab:orange")],
    ["clean images", "occluded images"],
    loc="upper left",
)
plt.show()
