"""Image data sets and corruption protocols.

Loaders
-------
load_digits_images    scikit-learn's bundled 8x8 digits (no download, the demo's default).
load_orl              AT&T/ORL faces (32x32 or the original 112x92) from a local folder
                      given as ``data_home`` or by the environment variable ROBUSTPCA_DATA.
load_yale             Yale faces (32x32 or 64x64), from the same local folder.
load_umist            UMIST faces, 32x32.
load_coil20           COIL-20 objects, 32x32, values in [0, 1].
load_extended_yale_b  Extended Yale B cropped faces, 32x32.
load_cmu_pie          CMU-PIE frontal pose C27, 32x32.
load_feret            FERET 200 x 7 subset, 32x32 or 40x40.
load_ar               AR faces: 100 subjects with occlusions (32x32) or 120 without (50x40).
load_jaffe            JAFFE faces, two 32x32 crops.
load_mnist            MNIST: 3,495-image balanced subset or the official 10k test set.
load_palm             Palmprints, 16x16.
load_msra25           MSRA25 faces, 16x16.
load_fei              Partial FEI faces (500 images), 48x64, dog photos removed by default.

DATASETS maps each data set's name (``ImageDataset.name``) to its loader. All but
``load_digits_images`` take ``data_home`` as first argument.

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
from ._mat_loaders import (
    load_ar,
    load_cmu_pie,
    load_coil20,
    load_extended_yale_b,
    load_fei,
    load_feret,
    load_jaffe,
    load_mnist,
    load_msra25,
    load_palm,
    load_umist,
)
from .corruption import occlude_blocks

#: Data set name -> loader, for every loader above.
DATASETS = {
    "digits": load_digits_images,
    "orl": load_orl,
    "yale": load_yale,
    "umist": load_umist,
    "coil20": load_coil20,
    "extended_yale_b": load_extended_yale_b,
    "cmu_pie": load_cmu_pie,
    "feret": load_feret,
    "ar": load_ar,
    "jaffe": load_jaffe,
    "mnist": load_mnist,
    "palm": load_palm,
    "msra25": load_msra25,
    "fei": load_fei,
}

__all__ = [
    "DATASETS",
    "ImageDataset",
    "get_data_home",
    "load_ar",
    "load_cmu_pie",
    "load_coil20",
    "load_digits_images",
    "load_extended_yale_b",
    "load_fei",
    "load_feret",
    "load_jaffe",
    "load_mnist",
    "load_msra25",
    "load_orl",
    "load_palm",
    "load_umist",
    "load_yale",
    "occlude_blocks",
    "read_pgm",
]
