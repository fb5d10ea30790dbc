"""
Dask: a fit on a chunked array
==============================

Pass a ``dask.array`` to ``fit`` and the data stay chunked: for tall data each iteration
of RPCA-OM is one pass over the chunks (one ``dask.compute`` that brings back a weighted
mean, a ``d x d`` scatter and the objective), and the fitted model equals the in-memory
fit to rounding. ``transform``, ``reconstruct`` and ``reconstruction_error`` of the
fitted model return lazy dask arrays. The array here is small
(40,000 x 20 in 8 chunks) so that the example runs in seconds; ``docs/dask.md`` and the
scripts ``examples/dask_out_of_core.py`` and ``examples/dask_wide.py`` run the same code
on 25 GB.
"""

import dask
import dask.array as da
import matplotlib.pyplot as plt
import numpy as np

from robustpca import OptimalMeanPCA

rng = np.random.default_rng(0)
n, d, k = 40_000, 20, 3
basis = np.linalg.qr(rng.normal(size=(d, k)))[0]
X = 5 + rng.normal(size=(n, k)) * [8.0, 5.0, 3.0] @ basis.T + 0.2 * rng.normal(size=(n, d))
outliers = rng.random(n) < 0.1
X[outliers] += 30 + 10 * rng.normal(size=(outliers.sum(), d))
Xd = da.from_array(X, chunks=(5_000, d))
print(Xd)

# %%
# Fit on the chunks (threaded scheduler), and in memory for comparison
with dask.config.set(scheduler="threads"):
    chunked = OptimalMeanPCA(n_components=k).fit(Xd)
memory = OptimalMeanPCA(n_components=k).fit(X)
print(f"{chunked.n_iter_} iterations, {chunked.n_passes_} passes over the chunks")
print(
    "largest difference of the components:", np.abs(chunked.components_ - memory.components_).max()
)

# %%
# The methods are lazy: nothing is computed until asked
errors = chunked.reconstruction_error(Xd)
print(errors)
errors = errors.compute()
weights = np.asarray(chunked.weights_)

# %%
# The orthogonal distances per chunk, outliers in orange, and the learned weights
fig, axes = plt.subplots(1, 2, figsize=(11, 4))
order = np.arange(n)
axes[0].scatter(order[~outliers], errors[~outliers], s=2, label="inliers")
axes[0].scatter(order[outliers], errors[outliers], s=2, color="tab:orange", label="outliers")
for edge in np.cumsum(Xd.chunks[0])[:-1]:
    axes[0].axvline(edge, color="gray", lw=0.8, ls=":")
axes[0].set_yscale("log")
axes[0].set_xlabel("sample (dotted lines: chunk boundaries)")
axes[0].set_ylabel("orthogonal distance (lazy, computed)")
axes[0].legend(markerscale=5)
axes[1].hist(
    [weights[~outliers], weights[outliers]],
    bins=60,
    stacked=True,
    log=True,
    color=["tab:blue", "tab:orange"],
    label=["inliers", "outliers"],
)
axes[1].set_xlabel("RPCA-OM's sample weight")
axes[1].legend()
fig.tight_layout()
plt.show()
