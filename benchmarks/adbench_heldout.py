"""ADBench's "Classical" tables held out from the outlier benchmark's choices.

Usage (from the repository root)::

    python benchmarks/adbench_heldout.py heldout/          # download the 18 tables
    python benchmarks/bench_outliers.py --folder heldout --tables 37_Stamps ... --json h.json

The 25 tables of ``benchmarks/bench_outliers.py`` (``robustpca.datasets.fetch_adbench``)
are those of ADBench's collection with at most 50,000 rows and 500 features that come
first in its numbering. The other 18 stored at the same commit of ``Minqi824/ADBench``
were never used to choose a detector configuration; ``docs/design-notes/outlier-recommendation.md``
("Tables held out from every choice") tests the recommendation on them. :data:`PRIMARY`
are the 11 that meet the 25's size rule, :data:`SECONDARY` the 7 larger ones.
``3_backdoor``, ``9_census``, ``13_fraud`` and ``36_speech`` are not stored there.
Downloads are checked against :data:`SHA256`; nothing is asserted.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

#: The commit of ``Minqi824/ADBench`` that also holds the 25 tables
COMMIT = "3dac8221081e190f157d78e93bfa8867f90d0965"
URL = f"https://raw.githubusercontent.com/Minqi824/ADBench/{COMMIT}/adbench/datasets/Classical"
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


def fetch(folder: Path | str, tables=None, *, base_url: str = URL) -> Path:
    """Download (once) the held-out ``tables`` (default: all 18) into ``folder`` with
    pooch, each checked against :data:`SHA256`; ``base_url`` serves
    ``<base_url>/<table>.npz`` (a mirror). Returns ``folder``."""
    import pooch

    folder = Path(folder)
    for table in SHA256 if tables is None else tables:
        if table not in SHA256:
            raise ValueError(f"table {table!r} is not among the held-out {sorted(SHA256)}.")
        pooch.retrieve(
            f"{base_url}/{table}.npz",
            known_hash=f"sha256:{SHA256[table]}",
            fname=f"{table}.npz",
            path=folder,
            progressbar=False,
        )
    return folder


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder", type=Path, help="where to put the .npz files")
    ap.add_argument("--tables", nargs="+", help="default: all 18")
    ap.add_argument("--base-url", default=URL, help="a mirror of <url>/<table>.npz")
    args = ap.parse_args(argv)
    fetch(args.folder, args.tables, base_url=args.base_url)
    print(f"{args.folder}: " + ", ".join(sorted(p.stem for p in args.folder.glob("*.npz"))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
