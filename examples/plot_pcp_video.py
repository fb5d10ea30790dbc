r"""
Background and foreground of a video by principal component pursuit
===================================================================

Principal component pursuit (Candès, Li, Ma & Wright 2011) splits a matrix into a low-rank
part and a sparse part, :math:`X = L + S`, by minimising
:math:`\lVert L \rVert_* + \lambda \lVert S \rVert_1`. With one video frame per row, the
static background is low rank and the moving objects are sparse. The video here is
synthetic: a smooth background whose brightness drifts, a square and a disc crossing it.
"""

import matplotlib.pyplot as plt
import numpy as np

from robustpca import PrincipalComponentPursuit

h, w, n_frames = 36, 48, 60
yy, xx = np.mgrid[0:h, 0:w]
background = 0.4 + 0.3 * np.sin(xx / 7.0) * np.cos(yy / 9.0)
rng = np.random.default_rng(0)
frames = []
for t in range(n_frames):
    frame = background * (1 + 0.2 * np.sin(2 * np.pi * t / n_frames))  # lighting drift
    x0 = int(2 + 40 * t / n_frames)
    frame[10:18, x0 : x0 + 6] = 1.0  # a square moving right
    cy, cx = 28 - 20 * t / n_frames, 40 - 30 * t / n_frames
    frame[(yy - cy) ** 2 + (xx - cx) ** 2 < 9] = 0.0  # a disc moving up-left
    frames.append(frame + 0.01 * rng.normal(size=(h, w)))
X = np.array(frames).reshape(n_frames, h * w)

# %%
# ``lam="auto"`` is the paper's :math:`1/\sqrt{\max(n, d)}`
pcp = PrincipalComponentPursuit().fit(X)
print(
    f"rank of L: {pcp.rank_}, non-zeros of S: {np.mean(pcp.sparse_ != 0):.1%}, "
    f"{pcp.n_iter_} iterations, converged: {pcp.converged_}"
)

# %%
# Frames (top), the low-rank background (middle) and the sparse foreground (bottom)
shown = [5, 20, 35, 50]
fig, axes = plt.subplots(3, len(shown), figsize=(10, 6))
rows = [("frame", X), ("low rank L", pcp.low_rank_), ("sparse S", pcp.sparse_)]
for r, (label, data) in enumerate(rows):
    for c, t in enumerate(shown):
        ax = axes[r, c]
        image = data[t].reshape(h, w)
        if label.startswith("sparse"):
            ax.imshow(np.abs(image), cmap="magma", vmin=0, vmax=0.8)
        else:
            ax.imshow(image, cmap="gray", vmin=0, vmax=1)
        ax.set_xticks([])
        ax.set_yticks([])
        if c == 0:
            ax.set_ylabel(label)
        if r == 0:
            ax.set_title(f"frame {t}")
fig.tight_layout()
plt.show()
