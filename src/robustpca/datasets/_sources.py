"""Where the benchmark image sets come from: the pinned files and folders, and which
files each loader option needs (the registry of :mod:`robustpca.datasets._fetch`, whose
docstring describes the scheme).
"""

from __future__ import annotations

from dataclasses import dataclass

#: Environment variable naming the download cache (the folder that will hold ``raw/``).
CACHE_ENV = "ROBUSTPCA_CACHE"
#: Environment variable naming a mirror laid out as ``<mirror>/<name>/<file>``.
MIRROR_ENV = "ROBUSTPCA_MIRROR"

_GITHUB = "https://raw.githubusercontent.com"


class DatasetDownloadError(OSError):
    """A data set file could not be downloaded (offline, HTTP error, bad mirror)."""


class DatasetChecksumError(DatasetDownloadError, ValueError):
    """A downloaded file (or image folder) does not have its pinned SHA-256."""


@dataclass(frozen=True)
class _File:
    repo: str
    commit: str
    path: str  # in the repository
    sha256: str


@dataclass(frozen=True)
class _Folder:
    repo: str
    commit: str
    prefix: str  # path of the folder in the repository, with a trailing slash
    files: tuple[str, ...]  # relative to the folder
    listing_sha256: str  # of the sorted `sha256sum` listing of "<folder name>/<file>"


#: Local path under ``raw/`` -> source, as listed in the data folder's SOURCES.md.
_FILES: dict[str, _File] = {
    "orl/ORL_32x32.mat": _File(
        "greatQntgz/MPRBC",
        "3dae3145caaec97c97cf1879309f2e25a53cf7b8",
        "data/ORL_32.mat",
        "c30cb53be2cab2da293eaeb35c1a7c16cad513fa14d0400ad5ed51f03e1ce7c8",
    ),
    "orl/ORL_64x64.mat": _File(
        "NaimaBousnina/Watermarking-for-protected-fingerprint-authentication",
        "c6c6d2da7ca08e6050c4d7140e44c7dab69565a3",
        "ORL_64x64.mat",
        "87e8b6a259f956dfa7052194f49bb20a4c59416bda4a60f53a2ce1b83f2b1a49",
    ),
    "yale/Yale_32x32.mat": _File(
        "tansyab1/CNN-Sparse",
        "c52b9c2c783bf6e350b11962781b7c2d701ce2c4",
        "data/Yale_32x32.mat",
        "beb3cc9f448c1ab786583c8f5429368c299843ee88263f9650ed463004ef7633",
    ),
    "yale/Yale_64x64.mat": _File(
        "tansyab1/CNN-Sparse",
        "c52b9c2c783bf6e350b11962781b7c2d701ce2c4",
        "data/Yale_64x64.mat",
        "2a40d2363ef42466e645523a8d9c5f902a136ab5d03242ca9a642db3872e52ee",
    ),
    "umist/UMIST_32x32.mat": _File(
        "greatQntgz/MPRBC",
        "3dae3145caaec97c97cf1879309f2e25a53cf7b8",
        "data/UMIST.mat",
        "0f1904a78f9067ee5057a22f4327faabc1a856c781c43684eb16a3d6bb27ebff",
    ),
    "coil20/COIL20_32x32.mat": _File(
        "coekgit/WGE_LRP",
        "56c7be95edb3879e43431a6c2dacd4e12cec34cf",
        "COIL20.mat",
        "2a35c105dbb327492b90389e55612bcbf39187bc7c408252239903e4ce7d6958",
    ),
    "extended_yale_b/YaleB_32x32.mat": _File(
        "coekgit/WGE_LRP",
        "56c7be95edb3879e43431a6c2dacd4e12cec34cf",
        "YaleB_32x32.mat",
        "3fbbda4eb781b9bb28025189677b6727706e114eb0215bbfd718f1f4fcb54b99",
    ),
    "cmu_pie/PIE_pose27_32x32.mat": _File(
        "hiroyuki-kasai/NMFLibrary",
        "ed44132dfe1b5495df685006b42259f0bd16bea3",
        "data/PIE_pose27.mat",
        "035fdd73d5f4234d958b3c88f20bd8aae3871080246139896a23e61487134680",
    ),
    "feret/FERET_32x32.mat": _File(
        "greatQntgz/MPRBC",
        "3dae3145caaec97c97cf1879309f2e25a53cf7b8",
        "data/FERET.mat",
        "cfafda804167700492d9998cf1556964226b9cbd1ae6e34fe009e29d8bcd9af6",
    ),
    "feret/FERET_40x40.mat": _File(
        "yinhefeng/Score-level-fusion-of-LRC-and-NRC",
        "f737d1018aae260ffb147ef281481ef1c44df5e2",
        "FERET.mat",
        "92ab64cd64d3475af060be916ef1073c060f944199434c006df6d09a5e2c9603",
    ),
    "ar/AR_100_32x32.mat": _File(
        "greatQntgz/MPRBC",
        "3dae3145caaec97c97cf1879309f2e25a53cf7b8",
        "data/AR_100.mat",
        "c62e104c86da4899a5e730fe4f51cc6dfa3c4cc1770c0e5aef108f6116b43654",
    ),
    "ar/AR_120_50x40.mat": _File(
        "XiaoZhu-05/RGD-NMF",
        "23567eeef0121240b38b914ebb234a9e30fa37a9",
        "AR.mat",
        "2d1065a2570084bedab117296f271346ac7ab5e2eb3d0b339a6061e86c1aeac0",
    ),
    "jaffe/JAFFE_32x32_AdaGAE.mat": _File(
        "hyzhang98/AdaGAE",
        "6d04946060bacd41ee31eba5c124887bca44f369",
        "data/JAFFE.mat",
        "41eeeb529e6b41c6418047498111e1d1942c608e742f950435426bc395ffe846",
    ),
    "jaffe/JAFFE_32x32_NMFLibrary.mat": _File(
        "hiroyuki-kasai/NMFLibrary",
        "034aa3e030707bd7308b1362c157ea84116eedf0",
        "data/JAFFE.mat",
        "37b9f2c6a209155a5d611bc71586de39e8aea3c5e1a74646375ebbc64ddd1595",
    ),
    "mnist/MnistData_05_uni.mat": _File(
        "dxgithubdx/SPDFS",
        "1d4e6948d00c656f6bd21d7aa7330f6bdff21620",
        "data/MnistData_05_uni.mat",
        "22db0fd990758589166587da7018964512c0de2be029ee09f831451ca4c4c3e3",
    ),
    "mnist/t10k-images-idx3-ubyte.gz": _File(
        "FJR-Nancy/joint-cluster-cnn",
        "200274b032ef95aced858ff37ad64d19bc97b665",
        "MNIST_data/t10k-images-idx3-ubyte.gz",
        "8d422c7b0a1c1c79245a5bcf07fe86e33eeafee792b84584aec276f5a2dbc4e6",
    ),
    "mnist/t10k-labels-idx1-ubyte.gz": _File(
        "FJR-Nancy/joint-cluster-cnn",
        "200274b032ef95aced858ff37ad64d19bc97b665",
        "MNIST_data/t10k-labels-idx1-ubyte.gz",
        "f7ae60f92e00ec6debd23a6088c31dbd2371eca3ffa0defaefb259924204aec6",
    ),
    "palm/Palm_16x16.mat": _File(
        "hyzhang98/AdaGAE",
        "6d04946060bacd41ee31eba5c124887bca44f369",
        "data/Palm.mat",
        "3b47e9294036b9b31c9eb2a6e55173725548bdf3a058cde63307bb7c6f49a431",
    ),
    "msra25/MSRA25_16x16.mat": _File(
        "FWang-sdnu/LPSGL-code",
        "81a31fb3f52793dcf727827ead15364e9a13635b",
        "datasets/MSRA25_uni.mat",
        "3c8681c40ebbed2f6dc2d2f30e7c5195e947467e8cf6797faa44753a190cd659",
    ),
    "fei/FEI_partial_500_48x64.mat": _File(
        "TFeiMa/JRC",
        "20b440f052ef9dd03388f48d0304a846f6061bd1",
        "data/FEI.mat",
        "4c9320e7dea174ab66289d1aee4b469e95e4d1116430afbef776cb402e215b02",
    ),
}

_ORL_FACES = _Folder(
    "hakawa-bernardi/orl-face-recognition-pca-svm",
    "3edc842bc89bddbd3d6bcf12d23a4f9c2a493883",
    "orl_faces/",
    ("README", *(f"s{s}/{i}.pgm" for s in range(1, 41) for i in range(1, 11))),
    "7ebf5d45a470fbeda204b52d8067570063b0cbe098e3b2a3fb7c1e7c2c3999e3",
)
_FOLDERS: dict[str, _Folder] = {"orl/orl_faces": _ORL_FACES}

#: For each data set: the loader option that selects files, and its values -> files.
_NEEDS: dict[str, tuple[str | None, dict]] = {
    "orl": (
        "resolution",
        {"32x32": ("ORL_32x32.mat",), "64x64": ("ORL_64x64.mat",), "112x92": ("orl_faces",)},
    ),
    "yale": ("resolution", {"32x32": ("Yale_32x32.mat",), "64x64": ("Yale_64x64.mat",)}),
    "umist": (None, {None: ("UMIST_32x32.mat",)}),
    "coil20": (None, {None: ("COIL20_32x32.mat",)}),
    "extended_yale_b": (None, {None: ("YaleB_32x32.mat",)}),
    "cmu_pie": (None, {None: ("PIE_pose27_32x32.mat",)}),
    "feret": ("resolution", {"32x32": ("FERET_32x32.mat",), "40x40": ("FERET_40x40.mat",)}),
    "ar": ("subset", {"100": ("AR_100_32x32.mat",), "120": ("AR_120_50x40.mat",)}),
    "jaffe": (
        "variant",
        {"adagae": ("JAFFE_32x32_AdaGAE.mat",), "nmflibrary": ("JAFFE_32x32_NMFLibrary.mat",)},
    ),
    "mnist": (
        "subset",
        {
            "3495": ("MnistData_05_uni.mat",),
            "test": ("t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"),
        },
    ),
    "palm": (None, {None: ("Palm_16x16.mat",)}),
    "msra25": (None, {None: ("MSRA25_16x16.mat",)}),
    "fei": (None, {None: ("FEI_partial_500_48x64.mat",)}),
}
