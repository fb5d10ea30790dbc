"""The version of robustpca, read from the installed package's metadata.

``pyproject.toml`` holds the one version number; ``importlib.metadata`` reads it from the
installed distribution, so the two never drift. Running from a source tree that was never
installed (``PYTHONPATH=src``) has no metadata: the version is then ``"0+unknown"``.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

__all__ = ["__version__", "package_version"]

#: What ``__version__`` is when the package is not installed.
UNKNOWN_VERSION = "0+unknown"


def package_version(distribution: str = "robustpca") -> str:
    """The installed version of ``distribution``, or :data:`UNKNOWN_VERSION`."""
    try:
        return version(distribution)
    except PackageNotFoundError:
        return UNKNOWN_VERSION


__version__ = package_version()
