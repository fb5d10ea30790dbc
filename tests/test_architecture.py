"""Static checks of the package's shape (issue 15): module sizes and import cycles.

The imports of every module of ``src/robustpca`` are read with :mod:`ast` (``import`` and
``from ... import``, relative imports resolved; imports inside functions count too and are
marked lazy), never by importing the package, so the check is fast and sees every edge.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE_ROOT = Path(__file__).resolve().parents[1] / "src" / "robustpca"
MAX_LINES = 600

#: The layers, top first (docs/architecture.md): a module may import its own layer and
#: the layers below it, never one above. ``datasets``, ``metrics``, ``diagnostics`` and
#: ``plotting`` sit beside the stack, just above its bottom: any layer may use them, and
#: they use only the bottom (and one another). The package's ``__init__`` is the facade.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("cli", "__main__"),
    ("experiments", "transfer", "background_subtraction"),
    ("estimators",),
    ("_dask",),
    ("solvers", "array_api_linalg"),
    (
        "datasets",
        "metrics",
        "diagnostics",
        "foreground",
        "foreground_gaps",
        "foreground_stream",
        "plotting",
    ),
    (
        "linalg",
        "binary_regions",
        "prox",
        "losses",
        "robust_scale",
        "qn_scale",
        "rank_selection",
        "_array_api",
        "_distance_rounding",
        "_docstrings",
        "_observed",
        "_validation",
        "_version",
        "_warnings",
    ),
)


def module_name(path: Path, root: Path = PACKAGE_ROOT) -> str:
    """Dotted name of ``path`` inside the package (``robustpca.solvers.alm``)."""
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def source_modules(root: Path = PACKAGE_ROOT) -> dict[str, Path]:
    return {module_name(p, root): p for p in sorted(root.rglob("*.py"))}


def _resolve(current: str, is_package: bool, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = current.split(".")
    if not is_package:
        base = base[:-1]
    if node.level > 1:
        base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def import_edges(modules: dict[str, Path]) -> dict[str, dict[str, bool]]:
    """``{module: {imported module: lazy}}`` for imports of modules of the package.

    ``from pkg import name`` counts as an import of ``pkg.name`` when that is a module,
    else of ``pkg``. An import is lazy when it sits inside a function body (or a
    ``TYPE_CHECKING`` block); an edge is lazy only when every import along it is.
    """
    edges: dict[str, dict[str, bool]] = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        out: dict[str, bool] = {}

        def add(target: str, lazy: bool, out: dict[str, bool] = out, name: str = name) -> None:
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if target and target != name:
                out[target] = out.get(target, True) and lazy

        def visit(node: ast.AST, lazy: bool, name: str = name, path: Path = path) -> None:
            for child in ast.iter_child_nodes(node):
                child_lazy = lazy or isinstance(
                    child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
                )
                if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                    child_lazy = True
                if isinstance(child, ast.Import):
                    for alias in child.names:
                        add(alias.name, lazy)
                elif isinstance(child, ast.ImportFrom):
                    base = _resolve(name, path.name == "__init__.py", child)
                    for alias in child.names:
                        full = f"{base}.{alias.name}"
                        add(full if full in modules else base, lazy)
                visit(child, child_lazy)

        visit(tree, False)
        edges[name] = out
    return edges


def find_cycles(
    edges: dict[str, dict[str, bool]], *, include_lazy: bool = False
) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan), sorted.

    A package's ``__init__`` importing its own submodules is not a cycle by itself, but a
    submodule importing its package's ``__init__`` back is, so both count as edges.
    """
    graph = {
        m: sorted(t for t, lazy in targets.items() if include_lazy or not lazy)
        for m, targets in edges.items()
    }
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []
    counter = [0]

    def strongconnect(v: str) -> None:  # recursion depth <= number of modules (~150)
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, []):
            if w not in index:
                strongconnect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                components.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            strongconnect(v)
    return sorted(components)


def layer_of(module: str, layers=LAYERS) -> int | None:
    """Index in ``layers`` of the top-level part of ``module`` (None: the facade)."""
    parts = module.split(".")
    if len(parts) < 2:
        return None
    for rank, names in enumerate(layers):
        if parts[1] in names:
            return rank
    raise AssertionError(f"{module} belongs to no layer: add it to LAYERS")


def upward_imports(edges: dict[str, dict[str, bool]], layers=LAYERS) -> list[str]:
    """Imports, lazy ones included, from a module to a layer above its own."""
    found = []
    for m, targets in sorted(edges.items()):
        for t in sorted(targets):
            a, b = layer_of(m, layers), layer_of(t, layers)
            if a is not None and b is not None and b < a:
                found.append(f"{m} -> {t}")
    return found


def oversized(modules: dict[str, Path], limit: int = MAX_LINES) -> dict[str, int]:
    sizes = {n: len(p.read_text(encoding="utf-8").splitlines()) for n, p in modules.items()}
    return {n: s for n, s in sorted(sizes.items()) if s > limit}


# --- the checks can fail: a planted cycle and a planted long module ----------------------


def _plant(tmp_path: Path, files: dict[str, str]) -> dict[str, Path]:
    root = tmp_path / "pkg"
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    return {module_name(p, root): p for p in sorted(root.rglob("*.py"))}


def test_cycle_finder_sees_planted_cycles(tmp_path):
    modules = _plant(
        tmp_path,
        {
            "__init__.py": "from .a import f\n",
            "a.py": "from .sub.b import g\n",
            "sub/__init__.py": "",
            "sub/b.py": "from ..a import f\nimport pkg.c\n",
            "c.py": "def h():\n    from .d import x\n",
            "d.py": "from . import c\n",
        },
    )
    edges = import_edges(modules)
    assert edges["pkg.sub.b"] == {"pkg.a": False, "pkg.c": False}
    assert edges["pkg.c"] == {"pkg.d": True}
    assert find_cycles(edges) == [["pkg.a", "pkg.sub.b"]]
    assert find_cycles(edges, include_lazy=True) == [["pkg.a", "pkg.sub.b"], ["pkg.c", "pkg.d"]]


def test_layer_check_sees_an_upward_import(tmp_path):
    modules = _plant(
        tmp_path,
        {
            "__init__.py": "from .top import f\n",
            "top.py": "from .low import g\n",
            "low.py": "def g():\n    from .top import f\n",
        },
    )
    layers = (("top",), ("low",))
    assert upward_imports(import_edges(modules), layers) == ["pkg.low -> pkg.top"]
    with pytest.raises(AssertionError, match="no layer"):
        layer_of("pkg.elsewhere", layers)


def test_size_check_sees_a_long_module(tmp_path):
    modules = _plant(tmp_path, {"__init__.py": "", "long.py": "x = 1\n" * (MAX_LINES + 1)})
    assert oversized(modules) == {"pkg.long": MAX_LINES + 1}


@pytest.mark.slow
def test_the_walk_sees_the_package():
    modules = source_modules()
    edges = import_edges(modules)
    assert len(modules) > 50
    assert edges["robustpca.solvers.robust_two_d"]["robustpca.solvers.two_d_images"] is False
    assert edges["robustpca.solvers"]["robustpca.solvers.two_d"] is False
    assert all(target in modules for targets in edges.values() for target in targets)


# --- the package's own checks ------------------------------------------------------------


def describe_cycles(edges: dict[str, dict[str, bool]], cycles: list[list[str]]) -> str:
    """Each cycle with the imports that close it, lazy ones marked."""
    lines = []
    for comp in cycles:
        members = set(comp)
        lines.append(" <-> ".join(m.removeprefix("robustpca.") for m in comp))
        for m in comp:
            for t, lazy in sorted(edges[m].items()):
                if t in members:
                    lines.append(f"    {m} -> {t}{' (lazy)' if lazy else ''}")
    return "\n".join(lines)


def test_no_module_over_600_lines():
    too_long = oversized(source_modules())
    assert not too_long, f"modules over {MAX_LINES} lines: {too_long}"


def test_no_benchmark_script_over_600_lines():
    """The benchmark scripts follow the package's module limit too."""
    benchmarks = PACKAGE_ROOT.parents[1] / "benchmarks"
    scripts = {p.name: p for p in sorted(benchmarks.glob("*.py"))}
    assert len(scripts) > 30  # the folder was found
    too_long = oversized(scripts)
    assert not too_long, f"benchmark scripts over {MAX_LINES} lines: {too_long}"


@pytest.mark.slow
def test_no_import_cycles():
    """No cycle among the modules, imports inside functions included: a lazy import
    still ties the two layers together (issue 15 counts ``_base`` <-> ``_dask``)."""
    edges = import_edges(source_modules())
    cycles = find_cycles(edges, include_lazy=True)
    assert not cycles, "import cycles:\n" + describe_cycles(edges, cycles)


@pytest.mark.slow
def test_no_eager_import_cycles():
    """Cycles of module-level imports only: these make import order matter."""
    edges = import_edges(source_modules())
    cycles = find_cycles(edges)
    assert not cycles, "import cycles of module-level imports:\n" + describe_cycles(edges, cycles)


@pytest.mark.slow
def test_imports_only_point_down_the_layers():
    """cli -> experiments -> estimators -> _dask -> solvers -> linalg/prox/losses, with
    datasets, metrics, diagnostics and plotting beside (see :data:`LAYERS`)."""
    upward = upward_imports(import_edges(source_modules()))
    assert not upward, "imports pointing up the layers:\n" + "\n".join(upward)
