"""ADBench's tables held out from the outlier benchmark's choices.

Usage (from the repository root)::

    python benchmarks/adbench_heldout.py heldout/          # download the 18 tables
    python benchmarks/bench_outliers.py --folder heldout --tables 37_Stamps ... --json h.json
    python benchmarks/adbench_heldout.py --embeddings embeddings/   # the 38 embedding tables

The 25 tables of ``benchmarks/bench_outliers.py`` (``robustpca.datasets.fetch_adbench``)
are those of ADBench's collection with at most 50,000 rows and 500 features that come
first in its numbering. The other 18 stored at the same commit of ``Minqi824/ADBench``
were never used to choose a detector configuration; ``docs/design-notes/outlier-recommendation.md``
("Tables held out from every choice") tests the recommendation on them. :data:`PRIMARY`
are the 11 that meet the 25's size rule, :data:`SECONDARY` the 7 larger ones.
``3_backdoor``, ``9_census``, ``13_fraud`` and ``36_speech`` are not stored there.

ADBench's image and text embedding tables (its "CV" and "NLP" collections) stored at the
same commit, :data:`EMBEDDINGS`, test the recommendation on data of another kind (the
third test of the design note). Each is saved as ``<collection>__<table>.npz`` in one
folder, the layout ``bench_outliers.py --folder`` reads. Downloads are checked against
their pinned SHA-256; nothing is asserted.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

#: The commit of ``Minqi824/ADBench`` that also holds the 25 tables
COMMIT = "3dac8221081e190f157d78e93bfa8867f90d0965"
ROOT = f"https://raw.githubusercontent.com/Minqi824/ADBench/{COMMIT}/adbench/datasets"
URL = f"{ROOT}/Classical"
#: ``<table>.npz`` -> its SHA-256, as stored at :data:`COMMIT`
SHA256 = {
    "8_celeba": "1cadfdea14cd8d240eca715a70c09c88af8621d086a7478c63f602d97adef0b5",
    "10_cover": "945a097c3542ae81a551bf1c06dcad78a755d94f84fcaf1d60687e42d1a656df",
    "11_donors": "5824ec854465f2763b4bfe3da1ae9f25ed5433b5c6e265d42e37da4f82a58679",
    "16_http": "9d98710091551587f4740cfc851a6b064fff6319a337c2dc77ee6da4bcc2e02c",
    "17_InternetAds": "bdd8ad5cf5bf2cb96cba53dde30d522d0f6a279083a8e2bc7efbac5981b04385",
    "33_skin": "d02aa01ffc1b6bf2b8b1ac250c90e8a8eacd0cefc962940ed5cc4bf5deac9c95",
    "34_smtp": "d2569fc9bc12115419e3f5b37d19921e10e6c26e5ad1e61064cfb0fbc402dfdd",
    "37_Stamps": "99fe739447284f613fa54bf2dccdb51c5120175ce6260adec6dad77576c42509",
    "38_thyroid": "8de161b3f235b7647bb0b39a836d983ff61d67bf234edac461da2d71e889cb87",
    "39_vertebral": "0816286f92b96fe6867664a41a031ac7228dcfbf1a5feefe50ca3883b2e9073d",
    "40_vowels": "4bfc4244d1c882773bbbc50d4a5db5e52276e53506e46b2d45e02d074cfcb1b6",
    "41_Waveform": "6c9d867337ad1a2f8372c1d27f4c032f0401237e2041b7c45f00de8d319ff30f",
    "42_WBC": "650f9dcb129248f67a291be0974f533ef259fcbde50fce5c8ad2a1cb2652d03b",
    "43_WDBC": "78d4606a1ab516f5b60b00c196497f3bbd6bd5e4548fd04cf5f2475209b34b85",
    "44_Wilt": "c70b72aa611ec87b20efb400943ef3ce4f8bf7aa58fcef825fbd28cc5cee3cc9",
    "45_wine": "d5ad8965d92cc57122fe1e6572bb301adbaf795b3e166d187ae00a704d8f6e20",
    "46_WPBC": "68a6d67242643855713bcdad07d89ecc472bd00000dccc17ba87916eb2693d19",
    "47_yeast": "bbb15c873d78a4f6a589f46d0f75814595e2282d2ae7ce7779c750f276c3770d",
}
#: At most 50,000 rows and 500 features, as the 25
PRIMARY = ("37_Stamps", "38_thyroid", "39_vertebral", "40_vowels", "41_Waveform", "42_WBC",
           "43_WDBC", "44_Wilt", "45_wine", "46_WPBC", "47_yeast")  # fmt: skip
#: Larger: 8_celeba, 10_cover, 11_donors, 16_http, 33_skin and 34_smtp have more rows,
#: 17_InternetAds 1,555 features
SECONDARY = tuple(t for t in SHA256 if t not in PRIMARY)
# the SHA-256 of each embedding table stored at COMMIT, by collection (ADBench's other
# CIFAR10, SVHN, FashionMNIST, MNIST-C and text tables are not stored there)
_PINS = {
    "CV_by_ResNet18": {
        "CIFAR10_0": "f0e89be5576c37e5c2f7393f7a478d8ec0cc348559fc177c273ff076ef10db00",
        "CIFAR10_4": "13fe6ac27684cadd0b223a48dcb532474e4eb69592b159d21d8f6d195ec48512",
        "CIFAR10_6": "f38334eec73be985612685b3efb99c58faaba7b154ecb5ed9b809acdc4cae9c9",
        "MVTec-AD_bottle": "9eb7a78f1f6ecfcd00391ea01fe06f998e3fb7b8e89a34c06d69786ee38a8059",
        "MVTec-AD_cable": "65f36182cf75ba1b2629af7bee3eec87ed9b050796e0b7c06493993e0ba4cee1",
        "MVTec-AD_capsule": "b5d97c3b3c08b0c25fdb3b0fd50e9b9fd24bd75b4e36956d47159e715d52470d",
        "MVTec-AD_carpet": "7c9e1f06b185baae2c72b922aa29cb219d2b8d6a9fe1b03f86ccf1fd34a0b6c0",
        "MVTec-AD_grid": "376fe5d7568fb3c1b9056a03aef6c0c350476a11b4f4579e6b7d8f8e5405f837",
        "MVTec-AD_hazelnut": "3c40cf88d6c16827c9609c5ef4f0c7d81f8b8509905c9c4c68a79d8ba1696bdf",
        "MVTec-AD_leather": "c4615f05409b0ae785a007889b4521cf3c3a43ce5b7ff7623f2255c121ef1e29",
        "MVTec-AD_metal_nut": "c00f29018bbf304c8e50d366fccc635ded7da90dea7e4a2fd41afb1a62609796",
        "MVTec-AD_pill": "878407b2700e3414dec26f2bae153f28d9b8e9e2367a0775b082efe641531188",
        "MVTec-AD_screw": "a143cbb84cb2a8bbd5b86065bf56fffbc5c9a52d5da4ba9826c844fe35ef68fa",
        "MVTec-AD_tile": "6d4564cd2844ff91274612b0dba39c3cfbabedf4535ec3573889bbd575075086",
        "MVTec-AD_toothbrush": "798a5edef4291e0466d2a7234101ee496927ddd96d0cbb620da008f4ed06753e",
        "MVTec-AD_transistor": "4c045fa018a2f4ffd828683b1d35580533662b2336c356e7e579c04da899b98e",
        "MVTec-AD_wood": "5fb9b4b57f6d66ab06ca3575d51359b0110943d4df4a20b495b1583730fc8d98",
        "MVTec-AD_zipper": "d60591ab34dced348b32574c4c0ff680068bbf5017d06d2bc5f9b15521f38bb8",
        "SVHN_0": "3526704c19ae4c62337a37f1f9294e3ec065d9f7a8e21f9e7c881b5acab13579",
        "SVHN_8": "92ea43b44af4876466e840cdcef7fe9cba294cd3be9907a05c9bad1fa5f41e97",
        "SVHN_9": "a0b16b76c29aa70a7eef0c266635f83f0be2fdb06ee6a0fbe1c76841f2f8f7ce",
    },
    "CV_by_ViT": {
        "MVTec-AD_bottle": "f579661bb37203606527ae5ec5aea574c7de478e9223d6abd86c7eedcfd62138",
        "MVTec-AD_cable": "36e1e68af80be0b3fd91fc69287d8499bf8ae8b36b58fceb5d3f247183627e2e",
        "MVTec-AD_capsule": "66be6c942885306ac71bbfd77f90d8cdc4f6beab239e1398c8187e42ca0b982d",
        "MVTec-AD_carpet": "1e17fc550866b6e1d5d35a8057657a780f7d8617024eeaace1659567adf79196",
        "MVTec-AD_grid": "bd013ea2173d3736706f07eebf822955ca2f827d20662798915332a09c61f377",
        "MVTec-AD_hazelnut": "fb0c5677c1bfac75414fac1bb16b9825df665dbc0b3ad257bb19307d3900badd",
        "MVTec-AD_leather": "bc7f0d5b371cdf25ff0a8ed0613da7d3bda0fc6ba7267c856e5a8e328dd959c6",
        "MVTec-AD_metal_nut": "ea35ac1782269c37e401bfa0fe9eb92ac6a18986a2aab29683a63b55061b2a06",
        "MVTec-AD_pill": "b5016bdda837e9fdccd1859f1b97afe5d931202294641abd19c31796bfcd445a",
        "MVTec-AD_screw": "f061d26d31479ba852463c4e323ff6fe78f36c2fdce61ae903cf02a78a3228c1",
        "MVTec-AD_tile": "11b40ae0dc693b6937ad3c8e30f689badda2b63ea59adcca44ad4481c4cca681",
        "MVTec-AD_toothbrush": "5705f3a40ce67127e0ce489bc4eb65719247d196b554f4021259b4c3049cbc6a",
        "MVTec-AD_transistor": "035a7b76e11c9728a42de5c99e9e9caa18b9f642dfff34c887bdfdb8259b4e8c",
        "MVTec-AD_wood": "ea6e1a86c27aa75da8dc75263874bc33c5179fe52462fc11eff02e41bd96cecc",
        "MVTec-AD_zipper": "3b94d41d2d0fea1709f5ba4c272c85bc78b28ec909557814a5b41fb979af8a0e",
    },
    "NLP_by_BERT": {
        "20news_3": "b5a1d572cac7c81ebc3cf485649c45b7580cb326edf07a1681679984d016831d",
    },
    "NLP_by_RoBERTa": {
        "20news_3": "5b713d047e5deb1bd557507457f2e7fc70eaa7a29d9df2bcaf71a2c69a3e38de",
    },
}
#: ADBench's embedding tables stored at :data:`COMMIT`: ``<collection>/<table>`` -> SHA-256
EMBEDDINGS = {f"{c}/{t}": sha for c, pins in _PINS.items() for t, sha in pins.items()}
#: ADBench's default embeddings, ResNet-18 for images and BERT for text; the others (ViT,
#: RoBERTa) are the secondary set
EMBEDDINGS_PRIMARY = tuple(
    t for t in EMBEDDINGS if t.split("/")[0] in ("CV_by_ResNet18", "NLP_by_BERT")
)
EMBEDDINGS_SECONDARY = tuple(t for t in EMBEDDINGS if t not in EMBEDDINGS_PRIMARY)


def _retrieve(url: str, sha256: str, fname: str, folder: Path) -> None:
    import pooch

    pooch.retrieve(url, known_hash=f"sha256:{sha256}", fname=fname, path=folder, progressbar=False)


def fetch(folder: Path | str, tables=None, *, base_url: str = URL) -> Path:
    """Download (once) the held-out ``tables`` (default: all 18) into ``folder`` with
    pooch, each checked against :data:`SHA256`; ``base_url`` serves
    ``<base_url>/<table>.npz`` (a mirror). Returns ``folder``."""
    folder = Path(folder)
    for table in SHA256 if tables is None else tables:
        if table not in SHA256:
            raise ValueError(f"table {table!r} is not among the held-out {sorted(SHA256)}.")
        _retrieve(f"{base_url}/{table}.npz", SHA256[table], f"{table}.npz", folder)
    return folder


def embedding_file(table: str) -> str:
    """The file name of the embedding table ``<collection>/<table>`` in the flat folder."""
    return table.replace("/", "__") + ".npz"


def fetch_embeddings(folder: Path | str, tables=None, *, base_url: str = ROOT) -> Path:
    """Download (once) the embedding ``tables`` (``<collection>/<table>``; default: all of
    :data:`EMBEDDINGS`) into ``folder`` under :func:`embedding_file` names, each checked
    against its pin; ``base_url`` serves ``<base_url>/<collection>/<table>.npz``."""
    folder = Path(folder)
    for table in EMBEDDINGS if tables is None else tables:
        if table not in EMBEDDINGS:
            raise ValueError(f"table {table!r} is not among the embedding tables.")
        _retrieve(f"{base_url}/{table}.npz", EMBEDDINGS[table], embedding_file(table), folder)
    return folder


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder", type=Path, help="where to put the .npz files")
    ap.add_argument("--tables", nargs="+", help="default: all 18 (or all 38 embedding tables)")
    ap.add_argument("--embeddings", action="store_true", help="the embedding tables instead")
    ap.add_argument("--base-url", help="a mirror of Classical/ (--embeddings: of its parent)")
    args = ap.parse_args(argv)
    if args.embeddings:
        fetch_embeddings(args.folder, args.tables, base_url=args.base_url or ROOT)
    else:
        fetch(args.folder, args.tables, base_url=args.base_url or URL)
    print(f"{args.folder}: " + ", ".join(sorted(p.stem for p in args.folder.glob("*.npz"))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
