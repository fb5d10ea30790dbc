"""Image data sets and corruption protocols.

Loaders
-------
load_digits_images  scikit-learn's bundled 8x8 digits (no download, the demo's default).
load_orl            AT&T/ORL faces (32x32 or the original 112x92) from a local folder
                    given as ``data_home`` or by the environment variable ROBUSTPCA_DATA.
load_yale           Yale faces (32x32 or 64x64), from the same local folder.

Corruption
----------
occlude_blocks      Nie et al. (2014) sec. 5.1: a square block on a fraction of the images.

Every loader returns an :class:`ImageDataset` whose ``data[i].reshape(image_shape)`` is
image ``i`` upright.
"""

from ._local import (
    ImageDataset,
    get_data_home,
    load_digits_images,
    load_orl,
    load_yale,
    read_pgm,
)
from .corruption import occlude_blocks

__all__ = [
    "ImageDataset",
    "get_data_home",
    "load_digits_images",
    "load_orl",
    "load_yale",
    "occlude_blocks",
    "read_pgm",
]
