"""Print the lower bounds declared in pyproject.toml as exact pins, one ``name==version`` a line.

Used by .ci/minversions.sh as a pip constraints file, so the minimum-versions job installs
exactly what pyproject.toml promises to support: the run-time dependencies and the extras
named on the command line (default: plot, dask, test). With ``--check`` it compares the
installed versions with those pins instead and exits 1 on any difference.
"""

from __future__ import annotations

import argparse
import re
import sys
import tomllib
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"
REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\[[^\]]*\])?\s*>=\s*([^,;\s]+)")


def lower_bounds(extras: list[str]) -> dict[str, str]:
    project = tomllib.loads(PYPROJECT.read_text())["project"]
    requirements = list(project["dependencies"])
    for extra in extras:
        requirements += project["optional-dependencies"][extra]
    pins: dict[str, str] = {}
    for requirement in requirements:
        match = REQUIREMENT.match(requirement)
        if match is None:  # e.g. "robustpca[test,plot]" or an unbounded name
            continue
        name, _, bound = match.groups()
        name = re.sub(r"[-_.]+", "-", name).lower()
        if pins.setdefault(name, bound) != bound:
            sys.exit(f"{name} has two different lower bounds: {pins[name]} and {bound}")
    return pins


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("extras", nargs="*", default=["plot", "dask", "test"])
    parser.add_argument("--check", action="store_true", help="compare with what is installed")
    args = parser.parse_args()
    pins = lower_bounds(args.extras)
    if not args.check:
        print("\n".join(f"{name}=={bound}" for name, bound in sorted(pins.items())))
        return 0
    wrong = []
    for name, bound in sorted(pins.items()):
        try:
            installed = version(name)
        except PackageNotFoundError:
            installed = "missing"
        status = "ok" if _same(installed, bound) else "WRONG"
        print(f"{status:5} {name:18} declared >= {bound:12} installed {installed}")
        if status != "ok":
            wrong.append(name)
    return 1 if wrong else 0


def _same(installed: str, bound: str) -> bool:
    """``2024.1.0`` is ``2024.1`` (PEP 440 pads release segments with zeros)."""

    def parts(v: str) -> list[str]:
        release = v.split("+")[0].split(".")
        while release and release[-1] == "0":
            release.pop()
        return release

    return parts(installed) == parts(bound)


if __name__ == "__main__":
    sys.exit(main())
