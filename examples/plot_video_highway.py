r"""
Background subtraction on a real video: CDnet's highway clip
============================================================

A static camera's background is low rank and the moving objects are sparse, so robust
PCA splits a video, one frame per row, into the two (Candès, Li, Ma & Wright 2011, sec.
4.1). Here, 300 frames of the ``highway`` clip of the CDnet 2014 benchmark go through
:class:`~robustpca.OnlineRobustPCA`, which sees the frames batch by batch and holds only
its rank-one model, and the foreground rule of :mod:`robustpca.foreground` turns each
frame's residual into a mask; CDnet's ground truth scores the masks.

The same runs from the shell: ``robustpca video CLIP --out DIR``. The last part removes
half of the pixels (NaN: subsampled video, a dead sensor patch) and runs the same
pipeline, which fills the background there and judges each missing pixel by the pixels
seen around it (:mod:`robustpca.foreground_gaps`).
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

# %%
# Missing pixels: half of every frame's pixels removed at random, and a dead patch of
# the sensor. The split uses the pixels seen, the background fills the others, and the
# masks are scored on the pixels seen (CDnet's label 85: not counted).
rng = np.random.default_rng(0)
holes = rng.random(frames.shape) < 0.5
holes[:, 20:50, 100:140] = True  # a patch that no frame sees
gappy = np.where(holes, np.nan, frames).astype(np.float32)
parts = list(subtract_background(gappy[s : s + 100] for s in range(0, len(gappy), 100)))
masks_gaps = np.concatenate([p.masks for p in parts])
background_gaps = np.concatenate([p.background for p in parts])
unscored = np.where(holes, 85, labels).astype(labels.dtype)
gaps = change_detection_measures(masks_gaps, unscored, clips[0].roi, scored=scored)
print(
    f"F-measure on the pixels seen: {gaps['f_measure']:.3f} (every pixel: "
    f"{measures['f_measure']:.3f})"
)

t = max(shown, key=lambda i: int((labels[i] == 255).sum()))  # the busiest shown frame
fig, axes = plt.subplots(1, 3, figsize=(10, 2.4))
for ax, image, title, top in zip(
    axes,
    [np.nan_to_num(gappy[t]), background_gaps[t], masks_gaps[t]],
    ["frame, half the pixels missing", "background", "mask"],
    [255, 255, 1],
    strict=True,
):
    ax.imshow(image, cmap="gray", vmin=0, vmax=top)
    ax.set_title(title)
    ax.set_xticks([])
    ax.set_yticks([])
axes[2].contour(labels[t] == 255, levels=[0.5], colors="red", linewidths=0.6)
fig.suptitle(f"F-measure {gaps['f_measure']:.3f} on the pixels seen")
fig.tight_layout()
plt.show()
