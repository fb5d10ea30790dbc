"""The documentation's coverage, checked without Sphinx (the build is ``.ci/docs.sh``).

* every gallery example (``examples/plot_*.py``) opens with an RST title, which
  sphinx-gallery needs to list it, and there are at least 8 of them;
* every other script in ``examples/`` (excluded from the gallery) is referenced by a page;
* the API reference that ``docs/conf.py`` generates (``docs/api_sections.py``) documents
  every name of ``robustpca.__all__`` and of each public module's ``__all__``.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import re
import sys
from pathlib import Path

import pytest

import robustpca

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"
DOCS = REPO / "docs"


def _load_api_sections():
    spec = importlib.util.spec_from_file_location("api_sections", DOCS / "api_sections.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks the module up
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def api_sections():
    return _load_api_sections()


def gallery_title(path: Path) -> str | None:
    """The example's title: first docstring line, underlined by ``=`` of its length."""
    docstring = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")), clean=True)
    if not docstring:
        return None
    lines = docstring.splitlines()
    if len(lines) < 2 or not lines[0].strip():
        return None
    title, underline = lines[0].rstrip(), lines[1].rstrip()
    if re.fullmatch(r"=+", underline) and len(underline) == len(title):
        return title
    return None


def test_gallery_title_detects_a_missing_underline(tmp_path):
    good = tmp_path / "plot_good.py"
    good.write_text('"""\nA title\n=======\n\nText.\n"""\n')
    bad = tmp_path / "plot_bad.py"
    bad.write_text('"""A title, no underline.\n\nText.\n"""\n')
    short = tmp_path / "plot_short.py"
    short.write_text('"""\nA title\n====\n"""\n')
    assert gallery_title(good) == "A title"
    assert gallery_title(bad) is None
    assert gallery_title(short) is None


def test_every_gallery_example_has_a_title():
    examples = sorted(EXAMPLES.glob("plot_*.py"))
    assert len(examples) >= 8, [p.name for p in examples]
    missing = [p.name for p in examples if gallery_title(p) is None]
    assert not missing, f"gallery examples without an RST title: {missing}"
    titles = [gallery_title(p) for p in examples]
    assert len(set(titles)) == len(titles), titles


def test_gallery_has_its_index():
    assert (EXAMPLES / "README.rst").is_file()  # sphinx-gallery's section header


def test_scripts_outside_the_gallery_are_referenced():
    """Scripts that the gallery does not run must be documented by a page."""
    pages = [*DOCS.glob("*.md"), *DOCS.glob("user_guide/*.rst")]
    text = "\n".join(p.read_text() for p in pages)
    others = [p for p in EXAMPLES.glob("*.py") if not p.name.startswith("plot_")]
    unreferenced = [p.name for p in others if f"examples/{p.name}" not in text]
    assert not unreferenced, f"examples/ scripts no page mentions: {unreferenced}"


def test_conf_generates_the_api_reference():
    conf = (DOCS / "conf.py").read_text()
    assert "write_api_pages(" in conf
    assert (DOCS / "api" / "index.rst").read_text().count("generated/index.rst.inc") == 1


def _documented(sections) -> set[str]:
    return {f"{s.module}.{name}" for s in sections for name in s.names}


def undocumented(sections, module_name: str, names) -> list[str]:
    """Names of ``module_name`` that no section documents (under any module, for a
    function or class re-exported from one documented elsewhere)."""
    documented = _documented(sections)
    module = importlib.import_module(module_name)
    by_object = {}
    for s in sections:
        mod = importlib.import_module(s.module)
        for name in s.names:
            obj = getattr(mod, name)
            if inspect.isclass(obj) or inspect.isroutine(obj):
                by_object[id(obj)] = f"{s.module}.{name}"
    missing = []
    for name in names:
        obj = getattr(module, name)
        if f"{module_name}.{name}" in documented:
            continue
        if (inspect.isclass(obj) or inspect.isroutine(obj)) and id(obj) in by_object:
            continue
        missing.append(name)
    return missing


def test_every_name_of_the_package_is_documented(api_sections):
    sections = api_sections.sections()
    top = sections[0]
    assert top.module == "robustpca"
    assert set(robustpca.__all__) <= set(top.names)
    assert not undocumented(sections, "robustpca", robustpca.__all__)
    for name in robustpca.ESTIMATOR_NAMES:
        assert name in top.groups["Estimators"], name


def test_coverage_check_can_fail(api_sections):
    sections = api_sections.sections()
    sections[0].names = [n for n in sections[0].names if n != "OptimalMeanPCA"]
    assert undocumented(sections, "robustpca", robustpca.__all__) == ["OptimalMeanPCA"]


def test_every_public_module_is_documented(api_sections):
    sections = api_sections.sections()
    modules = api_sections.public_modules()
    for required in [
        "robustpca.solvers",
        "robustpca.losses",
        "robustpca.prox",
        "robustpca.diagnostics",
        "robustpca.datasets",
        "robustpca.metrics",
        "robustpca.experiments",
        "robustpca.plotting",
        "robustpca.rank_selection",
        "robustpca.robust_scale",
        "robustpca.array_api_linalg",
    ]:
        assert required in modules, required
    # the Dask and array-API entry points live in private modules, listed explicitly
    for module_name in [*modules, "robustpca._dask", "robustpca._array_api"]:
        module = importlib.import_module(module_name)
        missing = undocumented(sections, module_name, module.__all__)
        assert not missing, f"{module_name}: {missing} have no API page"
    assert "fit_dask" in _names_of(sections, "robustpca._dask")


def _names_of(sections, module_name):
    return next(s.names for s in sections if s.module == module_name)


def test_missing_data_page_lists_the_nan_estimators(api_sections, tmp_path):
    """The missing-entries page includes the list conf.py generates from the tags."""
    page = (DOCS / "user_guide" / "missing.rst").read_text()
    assert ".. include:: ../api/generated/nan_support.rst.inc" in page
    assert "write_nan_support(" in (DOCS / "conf.py").read_text()
    names = api_sections.write_nan_support(tmp_path / "list.inc")
    expected = [
        name
        for name in robustpca.ESTIMATOR_NAMES
        if getattr(robustpca, name)().__sklearn_tags__().input_tags.allow_nan
    ]
    assert names == expected
    assert "OptimalMeanPCA" in names
    listed = (tmp_path / "list.inc").read_text()
    assert all(f"robustpca.{name}`" in listed for name in names)
