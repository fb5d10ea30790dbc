"""
Every estimator on one problem
==============================

All estimators of ``robustpca.ESTIMATOR_NAMES`` on the occluded-digits problem of
:ref:`the occluded-digits example <sphx_glr_auto_examples_plot_occluded_digits.py>`, at 12
components: the error of the reconstructions against the *clean* images (lower is
better) and the fit time. The 2-D methods take the images as 8 x 8 matrices
(``image_shape``); their ``n_components`` is the pair of ranks ``(k1, k2)``, here
``(4, 3)``: 12 numbers per image, except TwoDPCA (one-sided: 2 axes of 8, 16 numbers).
The list is read from the package at run time, so a new estimator appears here by
itself; one whose interface does not fit this problem is reported, not hidden.
"""

import time
import warnings

import matplotlib.pyplot as plt
import numpy as np
from sklearn.exceptions import ConvergenceWarning

import robustpca
from robustpca.datasets import load_digits_images, occlude_blocks
from robustpca.metrics import total_reconstruction_error

digits = load_digits_images()
rng = np.random.default_rng(0)
keep = rng.choice(len(digits.data), 400, replace=False)
clean = digits.data[keep] / 16.0
occluded, _ = occlude_blocks(clean, digits.image_shape, random_state=0)

K = 12
TWO_SIDED = {"GLRAM", "Robust2DPCA", "CappedRobust2DPCA", "L21TwoDPCA"}


def make(name):
    cls = getattr(robustpca, name)
    if name in TWO_SIDED:
        return cls(n_components=(4, 3), image_shape=(8, 8))
    if name == "TwoDPCA":
        return cls(n_components=2, image_shape=(8, 8))  # 2 axes of 8: 16 numbers
    if name == "RobustTransferPCA":
        return None  # needs a second (source) matrix: see its API page
    return (
        cls(n_components=K, random_state=0)
        if "random_state" in cls().get_params()
        else cls(n_components=K)
    )


rows = []
for name in robustpca.ESTIMATOR_NAMES:
    model = make(name)
    if model is None:
        print(f"{name:26s} skipped (transfer between two matrices)")
        continue
    if not hasattr(model, "reconstruct"):
        print(f"{name:26s} skipped (an embedding with no reconstruction in pixel space)")
        continue
    start = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        try:
            rec = model.fit(occluded).reconstruct(occluded)
        except ValueError as exc:  # e.g. a rank the method chooses itself
            print(f"{name:26s} not run: {exc}")
            continue
    seconds = time.process_time() - start
    error = total_reconstruction_error(rec, clean)
    rows.append((name, error, seconds, model.n_components_))
    print(f"{name:26s} k = {model.n_components_:3d}  error {error:7.1f}  {seconds:6.2f} s")

# %%
# Errors (bars) and fit times (labels), best first
rows.sort(key=lambda r: r[1])
names, errors, seconds, ks = zip(*rows, strict=True)
fig, ax = plt.subplots(figsize=(8, 0.35 * len(rows) + 1))
colours = ["tab:red" if n == "PCA" else "tab:blue" for n in names]
ax.barh(names, errors, color=colours)
for y, (e, s, k) in enumerate(zip(errors, seconds, ks, strict=True)):
    ax.text(e, y, f"  k={k}, {s:.2f} s", va="center", fontsize=8)
ax.invert_yaxis()
ax.set_xlim(0.9 * min(errors), 1.12 * max(errors))
ax.set_xlabel("total reconstruction error against the clean digits")
ax.set_title("400 digits, 20% occluded; PCA in red")
fig.tight_layout()
plt.show()
