"""The API reference's sections, computed from the package's ``__all__`` lists.

``docs/conf.py`` calls :func:`write_api_pages` before Sphinx reads the sources, so a new
estimator (in ``robustpca.__all__``) or a new public module (a module without a leading
underscore that defines ``__all__``) gets its pages with no edit here. ``tests/test_docs.py``
imports this file (no Sphinx needed) and checks the coverage.

Each section is one page, ``api/generated/<module>.rst``: the module's docstring, then an
autosummary table whose stubs autosummary writes at build time. A function or class
re-exported by several modules is documented once, under the first section that lists
it (the order of :data:`FIRST_MODULES`, then the other public modules alphabetically).
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from dataclasses import dataclass
from pathlib import Path

PACKAGE = "robustpca"

#: Public modules in the order of the reference (the others follow alphabetically).
FIRST_MODULES = (
    "robustpca.solvers",
    "robustpca.losses",
    "robustpca.prox",
    "robustpca.diagnostics",
    "robustpca.rank_selection",
    "robustpca.robust_scale",
    "robustpca.datasets",
    "robustpca.metrics",
    "robustpca.plotting",
    "robustpca.experiments",
    "robustpca.transfer",
    "robustpca.linalg",
    "robustpca.array_api_linalg",
)

#: Private modules whose ``__all__`` is an entry point users meet: ``fit`` hands a dask
#: array to ``robustpca._dask.fit_dask`` (docs/dask.md), and the array-API dispatch goes
#: through ``robustpca._array_api`` (docs/array_api.md).
ENTRY_POINT_MODULES = {
    "robustpca._dask": "Dask entry points",
    "robustpca._array_api": "Array API entry points",
}

#: Modules whose docstring is a plain-text index of their names (it would render as one
#: paragraph): their page shows the autosummary table alone, which lists the same names.
PLAIN_TEXT_DOCSTRINGS = ("robustpca.datasets",)

#: Never documented: the command line (documented by ``robustpca --help`` and README).
SKIP_PREFIXES = ("robustpca.cli",)


@dataclass
class Section:
    """One page of the reference: a module and the names it documents."""

    title: str
    module: str
    names: list[str]
    show_docstring: bool = True
    #: Optional sub-tables ``{heading: names}`` (the package page); one table otherwise.
    groups: dict[str, list[str]] | None = None

    @property
    def page(self) -> str:
        return self.module


def public_modules() -> list[str]:
    """Modules of the package with no ``_``-prefixed component that define ``__all__``."""
    pkg = importlib.import_module(PACKAGE)
    found = []
    for info in pkgutil.walk_packages(pkg.__path__, PACKAGE + "."):
        name = info.name
        parts = name.split(".")[1:]
        if any(p.startswith("_") for p in parts) or name.startswith(SKIP_PREFIXES):
            continue
        if hasattr(importlib.import_module(name), "__all__"):
            found.append(name)
    first = [m for m in FIRST_MODULES if m in found]
    return first + sorted(m for m in found if m not in first)


def _is_code(obj) -> bool:
    return inspect.isclass(obj) or inspect.isroutine(obj) or inspect.ismodule(obj)


def sections() -> list[Section]:
    """The reference's sections: the package namespace, then each public module."""
    pkg = importlib.import_module(PACKAGE)
    estimator_names = set(getattr(pkg, "ESTIMATOR_NAMES", ()))
    top = list(pkg.__all__)
    estimators = [n for n in top if n in estimator_names or inspect.isclass(getattr(pkg, n))]
    others = [n for n in top if n not in estimators]
    out = [Section("Estimators and the package namespace", PACKAGE, top, show_docstring=False)]
    out[0].groups = {"Estimators": estimators, "Other names of the package": others}
    seen = {id(getattr(pkg, n)) for n in top if _is_code(getattr(pkg, n))}
    for module_name in [*public_modules(), *ENTRY_POINT_MODULES]:
        module = importlib.import_module(module_name)
        names = []
        for name in module.__all__:
            obj = getattr(module, name)
            if _is_code(obj):
                if id(obj) in seen:
                    continue
                seen.add(id(obj))
            names.append(name)
        if not names:
            continue
        title = ENTRY_POINT_MODULES.get(module_name, module_name)
        out.append(Section(title, module_name, names, module_name not in PLAIN_TEXT_DOCSTRINGS))
    return out


def documented_names() -> dict[str, list[str]]:
    """``{module: [names]}`` of every name the reference documents (for the tests)."""
    return {s.module: s.names for s in sections()}


def _table(names: list[str]) -> list[str]:
    return [
        ".. autosummary::",
        "   :toctree: .",
        "   :nosignatures:",
        "",
        *[f"   {name}" for name in names],
        "",
    ]


def _page(section: Section) -> str:
    module = section.module
    title = section.title
    lines = [title, "=" * len(title), ""]
    if section.show_docstring:
        lines += [f".. automodule:: {module}", "   :no-members:", ""]
        if module in ENTRY_POINT_MODULES:
            lines += [
                ".. note::",
                "",
                f"   ``{module}`` is a private module: you reach it through the estimators'",
                "   ``fit`` and methods; its functions are listed here because they define",
                "   what those entry points do.",
                "",
            ]
    else:
        lines += [f".. module:: {module}", ""]
    lines += [f".. currentmodule:: {module}", ""]
    for heading, names in (section.groups or {"": section.names}).items():
        if heading:
            lines += [heading, "-" * len(heading), ""]
        lines += _table(names)
    return "\n".join(lines)


def write_api_pages(out_dir: Path) -> list[Path]:
    """Write one page per section and ``index.rst.inc`` (a toctree of them) to ``out_dir``.

    Files whose content is unchanged are not rewritten (Sphinx then keeps its cache).
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    entries = []
    for section in sections():
        path = out_dir / f"{section.page}.rst"
        _write_if_changed(path, _page(section))
        written.append(path)
        entries.append(f"   generated/{section.page}")
    index = [".. toctree::", "   :maxdepth: 1", "", *entries, ""]
    _write_if_changed(out_dir / "index.rst.inc", "\n".join(index))
    return written


def write_nan_support(path: Path) -> list[str]:
    """A bullet list of the estimators whose ``allow_nan`` input tag is set (they fit and
    transform data with missing entries), for the missing-data page to include."""
    pkg = importlib.import_module(PACKAGE)
    names = [
        name
        for name in pkg.ESTIMATOR_NAMES
        if getattr(pkg, name)().__sklearn_tags__().input_tags.allow_nan
    ]
    lines = [f"* :class:`~{PACKAGE}.{name}`" for name in names]
    _write_if_changed(path, "\n".join(lines) + "\n")
    return names


def _write_if_changed(path: Path, text: str) -> None:
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


if __name__ == "__main__":  # print the sections (a quick look without Sphinx)
    for s in sections():
        print(f"{s.module}: {len(s.names)} names")
