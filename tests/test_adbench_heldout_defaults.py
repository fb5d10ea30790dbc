"""benchmarks/adbench_heldout.py's sets and defaults as its docstring states them: the 25
benchmark tables, the 18 held out and the 4 not stored cover ADBench's classical tables
1-47 once each, the held-out primary set is the 11 tables numbered after the 25's last
(the size rule's), and the fetchers and the command download every table of their set by
default, the embedding tables from the collections beside ``Classical`` under flat names.
``_retrieve`` is replaced by a recorder: nothing is downloaded."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import adbench_heldout as heldout

NOT_STORED = {"3_backdoor", "9_census", "13_fraud", "36_speech"}


def _number(table):
    return int(table.split("_")[0])


def test_the_benchmark_heldout_and_missing_tables_number_one_to_47_once_each():
    from robustpca.datasets._sources import _ADBENCH_TABLES

    ours = [name.removesuffix(".npz") for name, _ in _ADBENCH_TABLES]
    assert len(ours) == 25
    numbers = sorted(_number(t) for t in [*ours, *heldout.SHA256, *NOT_STORED])
    assert numbers == list(range(1, 48))
    assert len(heldout.PRIMARY) == 11 and len(heldout.SECONDARY) == 7
    assert min(_number(t) for t in heldout.PRIMARY) > max(_number(t) for t in ours)


@pytest.fixture
def retrieved(monkeypatch):
    calls = []
    monkeypatch.setattr(
        heldout, "_retrieve", lambda url, sha, fname, folder: calls.append((url, sha, fname))
    )
    return calls


def test_fetch_downloads_all_18_by_default(tmp_path, retrieved):
    assert heldout.fetch(tmp_path) == tmp_path
    assert sorted(f for _, _, f in retrieved) == sorted(f"{t}.npz" for t in heldout.SHA256)
    for url, sha, fname in retrieved:
        assert url == f"{heldout.URL}/{fname}" and sha == heldout.SHA256[fname[:-4]]


def test_fetch_embeddings_downloads_all_38_from_their_collections(tmp_path, retrieved):
    assert heldout.fetch_embeddings(tmp_path) == tmp_path
    assert len(retrieved) == 38
    for (url, sha, fname), table in zip(retrieved, heldout.EMBEDDINGS, strict=True):
        assert url == f"{heldout.ROOT}/{table}.npz"  # beside Classical/, not in it
        assert heldout.URL == f"{heldout.ROOT}/Classical"
        assert (sha, fname) == (heldout.EMBEDDINGS[table], heldout.embedding_file(table))


def test_the_command_fetches_the_set_it_is_asked_for(tmp_path, retrieved, capsys):
    assert heldout.main([str(tmp_path)]) == 0
    assert {url.rsplit("/", 2)[1] for url, _, _ in retrieved} == {"Classical"}
    assert len(retrieved) == 18
    retrieved.clear()
    assert heldout.main([str(tmp_path), "--embeddings"]) == 0
    assert len(retrieved) == 38
    assert all(
        url.startswith(f"{heldout.ROOT}/CV_by_") or "/NLP_by_" in url for url, _, _ in retrieved
    )
