r"""
Background subtraction on a real video: CDnet's highway clip
============================================================

A static camera's background is low rank and the moving objects are sparse, so robust
PCA splits a video, one frame per row, into the two (Candès, Li, Ma & Wright 2011, sec.
4.1). Here, 300 frames of the ``highway`` clip of the CDnet 2014 benchmark go through
:class:`~robustpca.OnlineRobustPCA`, which sees the frames batch by batch and holds only
its rank-one model, and the foreground rule of :mod:`robustpca.foreground` turns each
frame's residual into a mask; CDnet's ground truth scores the masks.

The same runs from the shell: ``robustpca video CLIP --out DIR``.
"""

import os

import matplotlib.pyplot as plt
import numpy as np

from robustpca.background_subtraction import subtract_background
from robustpca.datasets import fetch_video, iter_cdnet
from robustpca.metrics.change_detection import change_detection_measures

# a local copy of the data (``$ROBUSTPCA_DATA``) is used where there is one
path = fetch_video("highway", data_home=os.environ.get("ROBUSTPCA_DATA"))
clips = list(iter_cdnet(path, numbers=(1050, 1349), scale=0.5, batch_size=100))

# %%
# One pass over the stream: each batch is split with the model as it stands, then the
# model is updated with it.
parts = list(subtract_background(c.frames for c in clips))
masks = np.concatenate([p.masks for p in parts])
frames = np.concatenate([p.frames for p in parts])
background = np.concatenate([p.background for p in parts])
labels = np.concatenate([c.labels for c in clips])
scored = np.concatenate([c.scored for c in clips])
measures = change_detection_measures(masks, labels, clips[0].roi, scored=scored)
print({k: round(v, 3) for k, v in measures.items()})

# %%
# Frames (top), backgrounds (middle) and foreground masks (bottom), with the ground
# truth's moving pixels outlined in red.
shown = [40, 120, 200, 280]
fig, axes = plt.subplots(3, len(shown), figsize=(10, 5.6))
for c, t in enumerate(shown):
    for r, (image, title) in enumerate(
        [(frames[t], "frame"), (background[t], "background"), (masks[t], "mask")]
    ):
        ax = axes[r, c]
        ax.imshow(image, cmap="gray", vmin=0, vmax=255 if r < 2 else 1)
        if r == 2:
            ax.contour(labels[t] == 255, levels=[0.5], colors="red", linewidths=0.6)
        ax.set_xticks([])
        ax.set_yticks([])
        if c == 0:
            ax.set_ylabel(title)
    axes[0, c].set_title(f"frame {clips[0].frame_numbers[0] + t}")
fig.suptitle(f"OR-PCA, rank 1: F-measure {measures['f_measure']:.3f} on 300 frames")
fig.tight_layout()
plt.show()
