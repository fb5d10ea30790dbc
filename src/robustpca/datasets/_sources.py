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
    # files of the folder held in another repository: (file, source), sha256 ignored
    elsewhere: tuple[tuple[str, _File], ...] = ()


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
_FRANFT = "FranFT/TFG---Face-expression-recognition", "ef291c90445822894f90da39e1f062ae51b1a57b"
_YALE_CONDITIONS = (
    "centerlight glasses happy leftlight noglasses normal rightlight sad sleepy surprised wink"
).split()
_YALE_FACES = _Folder(  # 164 GIFs without extension; subject01.centerlight is a PNG elsewhere
    "leecarraher/pattern_recognition",
    "b072a1f88e7b5e3356e61b3724615f78ab4194f6",
    "yalefaces/",
    (
        "Readme.txt",
        *(
            f"subject{s:02d}.{c}" + (".png" if (s, c) == (1, "centerlight") else "")
            for s in range(1, 16)
            for c in _YALE_CONDITIONS
        ),
    ),
    "d90fac036d709dad5bbec8ea1e6bf631b1a035e62231db3516f9b3606078b42c",
    tuple(
        (f, _File(*_FRANFT, f"yalefaces/{f}", ""))
        for f in ("Readme.txt", "subject01.centerlight.png")
    ),
)
_JOINT_CLUSTER = "FJR-Nancy/joint-cluster-cnn", "200274b032ef95aced858ff37ad64d19bc97b665"
#: UMIST: images <letter><1..n>.pgm of the 20 subjects a..t
_UMIST_COUNTS = dict(
    zip(
        "abcdefghijklmnopqrst",
        (38, 35, 26, 26, 24, 23, 19, 22, 20, 32, 34, 34, 26, 30, 19, 26, 26, 33, 48, 34),
        strict=True,
    )
)
_UMIST_FACES = _Folder(
    *_JOINT_CLUSTER,
    "dataset/UMist/",
    tuple(f"{s}{i}.pgm" for s, n in _UMIST_COUNTS.items() for i in range(1, n + 1)),
    "8f0c996368d552204f1ea09d3d6736713a698d70daa33795996241aa6d6c9118",
)
_COIL20_PNG = _Folder(
    *_JOINT_CLUSTER,
    "dataset/coil-20-proc/",
    tuple(f"obj{k}__{p}.png" for k in range(1, 21) for p in range(72)),
    "24185f6595ed60d20278264366161ce28ea24b099815452e80cde942eea73fb2",
)


def _cdnet_clip(
    prefix: str, first: int, last: int, listing_sha256: str, *, roi: bool = True
) -> _Folder:
    """A CDnet clip of frames ``first..last``: frames, ground truth, temporal ROI and,
    with ``roi``, the spatial ROI (without one the loader scores the whole frame)."""
    frames = range(first, last + 1)
    return _Folder(
        "mcv-m6-video/mcv-m6-2018-team8",
        "7474522b38f9da1552889b8aef1be0603c8942dc",
        prefix,
        (
            *(("ROI.bmp",) if roi else ()),
            "temporalROI.txt",
            *(f"input/in{i:06d}.jpg" for i in frames),
            *(f"groundtruth/gt{i:06d}.png" for i in frames),
        ),
        listing_sha256,
    )


_FOLDERS: dict[str, _Folder] = {
    "orl/orl_faces": _ORL_FACES,
    "yale/yalefaces": _YALE_FACES,
    "umist/UMist": _UMIST_FACES,
    "coil20/coil-20-proc": _COIL20_PNG,
    # the video clips of the data folder's video/SOURCES.md
    "video/highway": _cdnet_clip(
        "databases/changedetection/highway/",
        470,
        1700,
        "761bd400e2a2fec454e7f81ef820ee831ce814217830c3d0a481602f90e29a9a",
    ),
    "video/fall": _cdnet_clip(
        "databases/fall/",
        1401,
        1600,
        "29e656835da207943e58c0d01a9ef141687ec456316e4a826a20815ddb3765f9",
    ),
    # a clip outside the data folder, of a category no default was chosen on (camera
    # jitter): the temporal ROI only. The repository's ROI.bmp is 352x240 against the
    # frames' 320x240, and the ground truth marks no pixel outside the ROI (85), so the
    # whole frame is scored and the file is left out.
    "video/traffic": _cdnet_clip(
        "databases/traffic/",
        900,
        1570,
        "b2c8f27cd1035afaa476a3a8ddf088c709284bb3217ef58635c7eefbc4459e44",
        roi=False,
    ),
}
#: Keys of ``_FOLDERS`` that the data folder does not hold: only their fetchers read them.
_BEYOND_DATA_FOLDER = frozenset({"video/traffic"})

_ADBENCH = "Minqi824/ADBench", "3dac8221081e190f157d78e93bfa8867f90d0965"
#: ADBench's "Classical" tables of the data folder's adbench/SOURCES.md
_ADBENCH_TABLES = (
    ("12_fault.npz", "ec27301f9a4cf7c5d8b22c360cf37ddb043b7fb062465723dfd8b34e2771e5dd"),
    ("14_glass.npz", "aa7a8db1d475ba01a10488af454bc15220a3d5951b010b03b7020567d8152cdc"),
    ("15_Hepatitis.npz", "4a87a2f7d8013e5bfde63294fae61ec7a612322de72f338a7f9491749025ad98"),
    ("18_Ionosphere.npz", "bca46cb0cfd1bf9ddef6cde5ad2215d54fb0189508d0d4c4eb98e788cad69001"),
    ("19_landsat.npz", "ba17e2158c07469597b89db49d3982c874c6b713ff6670721ddc88969da77987"),
    ("1_ALOI.npz", "792d0b5bd1147bfc9574a1974f157b39fbd4cbed8ecd04cf983fd554498ed477"),
    ("20_letter.npz", "f986d3da80cf1fa2aea83a5ebe73b7d4800e0d4c01fdd1ae074b58d20f10d039"),
    ("21_Lymphography.npz", "dad977b04f4ea65b78ccd0e9f76b45175bad605165b37e63f3cc177845e67037"),
    ("22_magic.gamma.npz", "0be375984d7af9ea7a63b12206c240840d8b7daa3607021c5fb8756407dd86f1"),
    ("23_mammography.npz", "a0308ac9712d78321073b1c2dc98dc37665c0f35c1cc33019416fe8f8d7de7ea"),
    ("24_mnist.npz", "be7706272325fdd3592c1be555ae1a82f916a2f8545f4f8cbaa548ab102cc44c"),
    ("25_musk.npz", "2ed3f4392197b76a1e59116ff880c7720a4b026cf4842073a53b56fdea265017"),
    ("26_optdigits.npz", "60de17a375a278ba220a7849727d998aa02b5e2f9fd17732a004bba28de4656e"),
    ("27_PageBlocks.npz", "10a9b4d5bb5d3b9083caab4c4062f665610eada703c3d927bf7c34b1f2d0d223"),
    ("28_pendigits.npz", "c4936b89dcdad59d303020e492f763a0f54170080d787c77497609acbb9c2d79"),
    ("29_Pima.npz", "215454bb263a2f040945c9ea7bd7f06f1e89a61a3143bdb6f196e3887e801a7d"),
    ("2_annthyroid.npz", "e738f7c58a8740d2c4aac4c71ff49ce5e1d1aa16f44178135fc9c09df05fad1b"),
    ("30_satellite.npz", "1f048f5686f1b8c16a227fdfa3c81a62cd9a92715714a6b24c69b1c5ad96b46e"),
    ("31_satimage-2.npz", "1b056e357f801b8b20c3f380a30224a3c4088d7ed764ec5a24828dc9b1918d6f"),
    ("32_shuttle.npz", "26900b0f6be45d9ddb7a402c9b2f956ceda42d23a8ca4cf4406b8bc1352823d1"),
    ("35_SpamBase.npz", "d0c46c7928e43f6496bcd06e09de0b70f6bc8143792dfa0a43f450263d254e9b"),
    ("4_breastw.npz", "4f37ce07dbc25ddad8178fdc6d664ab46d2d0000ee28c2787c3c7ff3c03ef9f6"),
    ("5_campaign.npz", "74dd4d0072d6c6f1aabab63bc102f9633454f32bb936fa9bcfbd38f9f2386bcd"),
    ("6_cardio.npz", "bc5009bde6930b4d298b594f31b34485a9a17210cff0e8fb00a8c3068b885a2d"),
    ("7_Cardiotocography.npz", "5ae84910430f05923e11b6f537243263977c9136949dabd891e3570aeec51e29"),
)
_FILES |= {
    f"adbench/{f}": _File(*_ADBENCH, f"adbench/datasets/Classical/{f}", sha)
    for f, sha in _ADBENCH_TABLES
}
_FILES["video/escalator.mat"] = _File(
    "hiroyuki-kasai/SparseGDLibrary",
    "fd434cb26543be48bf5cefa8e95f1e1017200930",
    "data/movie/escalator.mat",
    "6aa464f195a4fee595b590fda00f32532ac43b3c361559d26b9a29c953811fcd",
)

#: Data kept beside ``raw/`` (``<home>/<name>/``, as in the data folder), not under it.
_OUTSIDE_RAW = ("adbench", "video")

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
