"""Release hygiene: one version number, the declared licence, a citation file that agrees."""

from __future__ import annotations

import re

import pytest

import robustpca
from robustpca import _version

from .conftest import REPO


def _project_field(name: str) -> str:
    """A string field of pyproject's [project] table."""
    text = (REPO / "pyproject.toml").read_text()
    return re.search(rf'^{name} = "([^"]+)"', text, re.M).group(1)


VERSION = _project_field("version")
LICENSE = _project_field("license")


def test_version_comes_from_the_package_metadata():
    assert robustpca.__version__ == _version.package_version()
    assert robustpca.__version__ == VERSION


def test_version_fallback_when_not_installed():
    assert _version.package_version("robustpca-not-a-distribution") == "0+unknown"


def test_license_file_matches_the_declared_license():
    assert LICENSE == "BSD-3-Clause"
    text = (REPO / "LICENSE").read_text()
    assert text.startswith("BSD 3-Clause License")
    assert "Neither the name of the copyright holder" in text


def test_citation_file_agrees_with_pyproject():
    yaml = pytest.importorskip("yaml")
    citation = yaml.safe_load((REPO / "CITATION.cff").read_text())
    assert citation["version"] == VERSION
    assert citation["license"] == LICENSE
    assert len(citation["references"]) == 5  # the five founding papers


def test_changelog_has_a_section_for_this_version():
    text = (REPO / "CHANGELOG.md").read_text()
    version = VERSION
    assert re.search(rf"^## \[?{re.escape(version)}\]?", text, re.M), version
