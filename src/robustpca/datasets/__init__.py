"""Image data sets and corruption protocols.

Loaders
-------
load_digits_images    scikit-learn's bundled 8x8 digits (no download, the demo's default).
load_orl              AT&T/ORL faces (32x32, 64x64 or the original 112x92) from a local folder
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

Downloads
---------
fetch_orl, fetch_yale, ...  one per loader above (``fetch_<name>``): download the files the
                            loader reads from their pinned public sources with pooch, check
                            their SHA-256, cache them under ``raw/<name>/`` (``data_home``,
                            ``$ROBUSTPCA_CACHE`` or pooch's OS cache) and load them.
fetch_dataset               the same by name; FETCHERS maps each name to its fetcher.
DatasetDownloadError        offline / HTTP failure (an OSError); DatasetChecksumError for
                            a checksum mismatch (also a ValueError).

Corruption
----------
occlude_blocks              Nie et al. (2014) sec. 5.1: a square block on a fraction of the
                            images (Zhang & Tong 2019: random sizes).
occlude_half_width_squares  Nie & Huang sec. V.A: squares half as wide as the images.
add_salt_noise              Guo (2013) sec. 5: a fraction of the pixels set to the maximum.
append_outliers             Nie & Huang sec. V.B: images of another set (Palm) appended.

Video
-----
read_video                  a video file, a frame folder or a CDnet clip as an array, grey or
                            RGB, resized; iter_video the same in batches; video_info its size.
load_cdnet                  a clip in CDnet 2014's layout: frames, ground truth, ROI, temporal
                            ROI and the scored frames (a CDnetClip); iter_cdnet in batches.
write_masks                 masks as CDnet's binNNNNNN.png; write_frames a frame sequence;
write_preview               frame | background | mask side by side, as GIF or MP4.
                            (They need the ``video`` extra: imageio, PyAV, Pillow.)

Every loader returns an :class:`ImageDataset` whose ``data[i].reshape(image_shape)`` is
image ``i`` upright.
"""

from collections.abc import Callable

from . import _fetch, _local, _mat_loaders, corruption, video
from ._fetch import *  # noqa: F403 (the names of _fetch.__all__, re-exported)
from ._local import *  # noqa: F403
from ._mat_loaders import *  # noqa: F403
from .corruption import *  # noqa: F403
from .video import *  # noqa: F403

#: Data set name -> loader, for every loader above.
DATASETS: dict[str, Callable[..., _local.ImageDataset]] = {
    "digits": _local.load_digits_images,
    "orl": _local.load_orl,
    "yale": _local.load_yale,
    "umist": _mat_loaders.load_umist,
    "coil20": _mat_loaders.load_coil20,
    "extended_yale_b": _mat_loaders.load_extended_yale_b,
    "cmu_pie": _mat_loaders.load_cmu_pie,
    "feret": _mat_loaders.load_feret,
    "ar": _mat_loaders.load_ar,
    "jaffe": _mat_loaders.load_jaffe,
    "mnist": _mat_loaders.load_mnist,
    "palm": _mat_loaders.load_palm,
    "msra25": _mat_loaders.load_msra25,
    "fei": _mat_loaders.load_fei,
}

# The public names are those of the submodules (each lists its own once).
__all__ = ["DATASETS"]
__all__ += _fetch.__all__
__all__ += _local.__all__
__all__ += _mat_loaders.__all__
__all__ += corruption.__all__
__all__ += video.__all__
# the API reference's order: constants, then classes, then functions, each alphabetical
__all__.sort(key=lambda name: (not name.isupper(), name.islower(), name))
