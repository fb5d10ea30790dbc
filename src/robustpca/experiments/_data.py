"""Data set specifications for experiments: ``"name"`` or ``"name:variant"``."""

from __future__ import annotations

import functools
import os
from dataclasses import replace

import numpy as np

from ..datasets import DATASETS, ImageDataset, fetch_dataset

__all__ = ["DATASET_VARIANTS", "load_dataset", "parse_dataset_spec", "pixel_range"]

#: Loader keyword that a ``name:variant`` specification sets, per data set.
DATASET_VARIANTS: dict[str, str] = {
    "orl": "resolution",
    "yale": "resolution",
    "feret": "resolution",
    "ar": "subset",
    "mnist": "subset",
    "jaffe": "variant",
}


def parse_dataset_spec(spec: str) -> tuple[str, dict[str, str]]:
    """Split ``"orl:112x92"`` into the data set name and the loader keywords.

    Parameters
    ----------
    spec : str
        ``"name"`` or ``"name:variant"``; ``name`` is a key of
        :data:`robustpca.datasets.DATASETS`, ``variant`` the value of the loader keyword
        that :data:`DATASET_VARIANTS` names for it.

    Returns
    -------
    name : str
    kwargs : dict of str to str
        ``{}`` without a variant, else ``{DATASET_VARIANTS[name]: variant}``.

    Raises
    ------
    ValueError
        Naming ``datasets`` when ``spec`` is not a non-empty string, the name is
        unknown, the variant after ``:`` is empty, or a variant is given for a data set
        that has none.
    """
    if not isinstance(spec, str) or not spec:
        raise ValueError(f"datasets entries must be non-empty strings, got {spec!r}")
    name, colon, variant = spec.partition(":")
    if name not in DATASETS:
        raise ValueError(
            f"datasets: unknown data set {name!r}; known: {', '.join(sorted(DATASETS))}"
        )
    if colon and not variant:
        raise ValueError(f"datasets: {spec!r} has an empty variant; drop the ':' or name one")
    if not variant:
        return name, {}
    if name not in DATASET_VARIANTS:
        raise ValueError(f"datasets: {name!r} has no variants, got {spec!r}")
    return name, {DATASET_VARIANTS[name]: variant}


@functools.lru_cache(maxsize=16)
def _load_cached(spec: str, data_home: str | None) -> ImageDataset:
    name, kwargs = parse_dataset_spec(spec)
    loader = DATASETS[name]
    if name == "digits":
        dataset = loader(**kwargs)
    elif data_home is None and not os.environ.get("ROBUSTPCA_DATA"):
        # No local copy named: download once into the cache (checksummed, see
        # robustpca.datasets.fetch_dataset); offline, that raises a clear error.
        dataset = fetch_dataset(name, **kwargs)
    else:
        dataset = loader(data_home, **kwargs)
    data = dataset.data.copy()
    target = dataset.target.copy()
    data.flags.writeable = False
    target.flags.writeable = False
    return replace(dataset, data=data, target=target)


def load_dataset(spec: str, data_home: str | None = None) -> ImageDataset:
    """Load a data set by specification, cached per process, with read-only arrays.

    The arrays are read-only so that no protocol can corrupt the clean images in place:
    corruption functions return modified copies.

    Parameters
    ----------
    spec : str
        ``"orl"`` (32x32), ``"orl:112x92"``, ``"yale:64x64"``, ``"feret:40x40"``,
        ``"ar:120"``, ``"mnist:test"``, ``"jaffe:nmflibrary"``, ``"digits"``, ... Any
        key of :data:`robustpca.datasets.DATASETS`, optionally with the variant its
        loader takes.
    data_home : str, optional
        Folder holding ``raw/<dataset>/...``. Without it and without the
        ``ROBUSTPCA_DATA`` environment variable, the data set is downloaded once from
        its public source into the cache (:func:`robustpca.datasets.fetch_dataset`).

    Returns
    -------
    ImageDataset
    """
    return _load_cached(spec, None if data_home is None else str(data_home))


def pixel_range(images: np.ndarray) -> float:
    """The range of the pixel values the errors are divided by, to report them for pixels
    in [0, 1].

    Parameters
    ----------
    images : ndarray
        The clean pixel values.

    Returns
    -------
    float
        1 when their maximum is at most 1 (data stored in [0, 1], coil20), 16 when at
        most 16 (scikit-learn's digits), else 255 (8-bit data sets).
    """
    top = float(np.max(images))
    return 1.0 if top <= 1.0 else 16.0 if top <= 16.0 else 255.0
