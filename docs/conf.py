"""Sphinx configuration of the robustpca documentation (built by ``.ci/docs.sh``).

The API reference is generated at build time from the package's ``__all__`` lists
(``api_sections.py``); the gallery (``../examples/plot_*.py``) is executed by
sphinx-gallery; the markdown pages are read by myst-parser.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # api_sections

from api_sections import write_api_pages, write_nan_support  # noqa: E402

import robustpca  # noqa: E402

# The examples run on 2 cores next to the build; one BLAS thread each keeps them steady.
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

project = "robustpca"
author = "robustpca developers"
copyright = "robustpca developers, BSD-3-Clause"
release = robustpca.__version__
version = ".".join(release.split(".")[:2])

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx.ext.intersphinx",
    "sphinx.ext.viewcode",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
templates_path = ["_templates"]
exclude_patterns = [
    "_build",
    "**.ipynb_checkpoints",
    "auto_examples/*.ipynb",
    "auto_examples/*.py",
    "auto_examples/*.zip",
    "auto_examples/*.md5",
    "auto_examples/*.codeobj.json",
    "sg_execution_times.rst",
]

# -- API reference ------------------------------------------------------------------------
_api_pages = write_api_pages(HERE / "api" / "generated")
write_nan_support(HERE / "api" / "generated" / "nan_support.rst.inc")  # user_guide/missing
# The pages to scan for stubs, named explicitly: with ``True`` an incremental build scans
# the documents of the previous build only and misses a new module's page.
autosummary_generate = [str(p.relative_to(HERE)) for p in _api_pages]
autosummary_imported_members = True
autodoc_default_options = {"member-order": "bysource"}
autodoc_typehints = "none"  # numpydoc's "Parameters" sections carry the types
numpydoc_show_class_members = False  # the class template lists the members itself
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

# -- Markdown pages -----------------------------------------------------------------------
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence"]
myst_heading_anchors = 3

# -- Gallery ------------------------------------------------------------------------------
sphinx_gallery_conf = {
    "examples_dirs": str(HERE.parent / "examples"),
    "gallery_dirs": str(HERE / "auto_examples"),
    "filename_pattern": r"/plot_",
    # The two Dask scripts are command-line programs over 8-25 GB of generated data
    # (docs/dask.md reports their runs); the gallery's own Dask example is plot_dask.py.
    "ignore_pattern": r"dask_(out_of_core|wide)\.py$",
    "within_subsection_order": "FileNameSortKey",
    "doc_module": ("robustpca",),
    "backreferences_dir": str(HERE / "api" / "generated" / "backreferences"),
    "reference_url": {"robustpca": None},
    "remove_config_comments": True,
    "download_all_examples": False,
    "plot_gallery": "True",
    "abort_on_example_error": True,
    "matplotlib_animations": False,
    "image_scrapers": ("matplotlib",),
}

# -- HTML ---------------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"robustpca {release}"
html_static_path = ["_static"]
html_css_files = ["custom.css"]
html_theme_options = {
    "navbar_align": "left",
    "show_toc_level": 2,
    "navigation_with_keys": False,
    # the sidebar lists the current page's section, not every API stub of the site: the
    # theme's advice for a large autosummary reference (each page renders every stub else)
    "collapse_navigation": True,
    "header_links_before_dropdown": 6,
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
}
# pages with no sub-pages: no empty "Section Navigation" column
html_sidebars = {"index": [], "which-method": [], "rrcov": [], "performance": []}
html_show_sourcelink = False
# "fit()" rather than "OptimalMeanPCA.fit()" in the page tables of contents
toc_object_entries_show_parents = "hide"

# MathJax comes from its CDN (Sphinx's default). To read the pages offline, point
# ROBUSTPCA_DOCS_MATHJAX2 at a local MathJax 2 (Debian: libjs-mathjax,
# /usr/share/javascript/mathjax/MathJax.js); the screenshots of the pages were taken so.
if os.environ.get("ROBUSTPCA_DOCS_MATHJAX2"):
    mathjax_path = (
        Path(os.environ["ROBUSTPCA_DOCS_MATHJAX2"]).resolve().as_uri()
        + "?config=TeX-AMS-MML_HTMLorMML"
    )
    mathjax2_config = {
        "tex2jax": {
            "inlineMath": [["\\(", "\\)"]],
            "displayMath": [["\\[", "\\]"]],
            "processEscapes": True,
            "processEnvironments": True,
        }
    }

intersphinx_mapping = {}  # the build needs no network (links to other projects are plain)

nitpicky = False
suppress_warnings = [
    # docs/performance.md is written by benchmarks/run_all.py --markdown, whose generated
    # sections start at ### under the page's # title; the levels render fine.
    "myst.header",
]


# -- Hooks --------------------------------------------------------------------------------
def _skip_sklearn_members(app, what, name, obj, skip, options):
    """Leave out members scikit-learn defines (get_params, set_output, set_*_request, ...):
    their docstrings point into scikit-learn's own documentation, and every estimator has
    them (the class pages say so)."""
    module = getattr(obj, "__module__", None) or ""
    if what == "class" and module.startswith("sklearn."):
        return True
    return skip


RESULTS = HERE / "reproduction" / "results"


def _write_results_index() -> None:
    """``reproduction/results/index.md``: every exhibit of the full runs, figure and table
    (generated, not committed: the folder is written by ``robustpca reproduce``)."""
    names = sorted(p.stem for p in RESULTS.glob("*.md") if p.stem != "index")
    lines = [
        "# Results of the full runs",
        "",
        "The outputs of `robustpca reproduce NAME --out docs/reproduction/results` for every",
        "exhibit: the figure, and the page with the table and the claims checked.",
        "",
        "```{toctree}",
        ":hidden:",
        "",
        *names,
        "```",
        "",
    ]
    for name in names:
        lines += [f"## {name}", "", f"[Table and claims]({name}.md)", ""]
        if (RESULTS / f"{name}.png").exists():
            lines += [f"![{name}]({name}.png)", ""]
    text = "\n".join(lines)
    path = RESULTS / "index.md"
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


_write_results_index()

#: Links to folders work on GitHub; on the site they point at the folder's index page.
_FOLDER_LINKS = {
    "reproduction": [("](reproduction/results/)", "](reproduction/results/index.md)")],
    "reproduction/niehuang": [("](results/)", "](results/index.md)")],
}


def _folder_links(app, docname, source):
    for old, new in _FOLDER_LINKS.get(docname, []):
        source[0] = source[0].replace(old, new)


_SHAPE = re.compile(r"shape \(([^()]*)\)")
_TRAILING_UNDERSCORE = re.compile(r"(\w)_(?=[,)\s*]|$)")


def _escape_shape_attributes(app, what, name, obj, options, lines):
    """``ndarray of shape (n_components_, n_features)``: the numpydoc types name fitted
    attributes, whose trailing underscore reStructuredText reads as a link target. Escape
    it inside ``shape (...)`` only (prose writes such names in double backquotes)."""

    def escape(match):
        return "shape (" + _TRAILING_UNDERSCORE.sub(r"\1\\_", match.group(1)) + ")"

    for i, line in enumerate(lines):
        if "shape (" in line and "``" not in line:
            lines[i] = _SHAPE.sub(escape, line)


def setup(app):
    app.connect("autodoc-skip-member", _skip_sklearn_members)
    app.connect("autodoc-process-docstring", _escape_shape_attributes)
    app.connect("source-read", _folder_links)
