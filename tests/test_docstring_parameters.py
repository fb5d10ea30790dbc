"""Every public function, method and class documents each of its parameters in a numpydoc
``Parameters`` (or ``Other Parameters``) section, and documents no parameter it does not
take. The API pages render types from these sections only (``autodoc_typehints =
"none"`` in ``docs/conf.py``), so a parameter described in prose shows no type there.

A dataclass's fields may instead be its ``Attributes`` entries: a result object is read,
not built, by users. The public names are those of the API reference
(``docs/api_sections.py``), as in ``tests/test_docs.py``.
"""

from __future__ import annotations

import importlib
import inspect
import re
import sys
from dataclasses import is_dataclass
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "docs"))
import api_sections

HEADING = re.compile(r"^(\w[\w ]*)\n-{3,}\n", re.M)


def _sections(doc: str) -> dict[str, list[str]]:
    """``{heading: [entry names]}``; an entry is an unindented line ``name[, name] : type``."""
    out: dict[str, list[str]] = {}
    heads = list(HEADING.finditer(doc))
    for i, head in enumerate(heads):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(doc)
        names = []
        for line in doc[head.end() : end].splitlines():
            if line and not line[0].isspace():
                for name in line.split(" : ")[0].split(","):
                    names.append(name.strip().lstrip("*"))
        out[head.group(1).strip()] = names
    return out


def _public():
    """``(qualified name, object, is a class)`` for every public routine and class."""
    seen: set[int] = set()
    modules = [api_sections.PACKAGE, *api_sections.public_modules()]
    for module_name in [*modules, *api_sections.ENTRY_POINT_MODULES]:
        module = importlib.import_module(module_name)
        for name in module.__all__:
            obj = getattr(module, name)
            if not (inspect.isclass(obj) or inspect.isroutine(obj)):
                continue
            if not (getattr(obj, "__module__", "") or "").startswith("robustpca"):
                continue
            if id(obj) in seen:
                continue
            seen.add(id(obj))
            yield f"{module_name}.{name}", obj, inspect.isclass(obj)
            if inspect.isclass(obj):
                yield from _methods(obj, name, seen)


def _methods(cls, cls_name, seen):
    done: set[str] = set()
    for klass in cls.__mro__:
        if not (klass.__module__ or "").startswith("robustpca"):
            continue
        for attr, raw in vars(klass).items():
            if attr.startswith("_") or attr in done or isinstance(raw, property):
                continue
            done.add(attr)
            method = getattr(cls, attr, None)
            func = getattr(method, "__func__", method)
            if inspect.isroutine(method) and id(func) not in seen:
                seen.add(id(func))
                yield f"{cls.__module__}.{cls_name}.{attr}", method, False


def _problems(obj, is_class: bool) -> list[str]:
    doc = inspect.getdoc(obj) or ""
    try:
        signature = inspect.signature(obj)
    except (TypeError, ValueError):
        return []
    params = [p for p in signature.parameters.values() if p.name not in ("self", "cls")]
    named = [p.name for p in params if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    starred = [p.name for p in params if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    if not doc:
        return ["no docstring"]
    sections = _sections(doc)
    documented = sections.get("Parameters", []) + sections.get("Other Parameters", [])
    if is_class and is_dataclass(obj) and not documented:
        documented = sections.get("Attributes", [])
    out = [f"parameter {n!r} not documented" for n in named if n not in documented]
    out += [
        f"documents {n!r}, which it does not take"
        for n in documented
        if n not in named and n not in starred
    ]
    return out


PUBLIC = list(_public())


def test_the_public_api_is_found():
    names = {name for name, _, _ in PUBLIC}
    assert "robustpca.ROBPCA" in names
    assert any(n.endswith(".fit") for n in names)
    assert len(PUBLIC) > 300


def test_the_parser_reads_numpydoc_entries():
    doc = (
        "Summary.\n\nParameters\n----------\nX, Y : array\n    Text.\n*args : any\n\n"
        "Returns\n-------\nout : float\n"
    )
    assert _sections(doc) == {"Parameters": ["X", "Y", "args"], "Returns": ["out"]}


@pytest.mark.parametrize("name, obj, is_class", PUBLIC, ids=[p[0] for p in PUBLIC])
def test_parameters_are_documented(name, obj, is_class):
    problems = _problems(obj, is_class)
    assert not problems, f"{name}: " + "; ".join(problems)
