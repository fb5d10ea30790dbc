"""Shared fixtures: seeds, the real-data directory and small planted problems."""

from __future__ import annotations

import os
import sys

# scikit-learn runs its array-API estimator checks (tests/test_common.py) only when SciPy
# was imported with this set; it must come before anything imports SciPy.
os.environ.setdefault("SCIPY_ARRAY_API", "1")

import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import settings
from sklearn.exceptions import ConvergenceWarning
from threadpoolctl import threadpool_limits

from robustpca.datasets import load_orl

REPO = Path(__file__).resolve().parents[1]
# one measure of peak memory (tracemalloc) for the memory tests and the benchmarks
sys.path.insert(0, str(REPO / "benchmarks"))
from _harness import peak_memory as peak_memory  # noqa: E402  (re-exported to the tests)


def data_home() -> Path:
    """The face benchmarks: ``$ROBUSTPCA_DATA`` or ``../shared/data`` beside the repo."""
    env = os.environ.get("ROBUSTPCA_DATA")
    return Path(env) if env else (REPO.parent / "shared" / "data")


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """Path to the real data; a missing directory is an error, never a silent skip."""
    path = data_home()
    if not (path / "raw").is_dir():
        pytest.fail(f"real data not found at {path}; set ROBUSTPCA_DATA to the folder holding raw/")
    return path


def planted_outlier_data(
    seed: int,
    *,
    n_samples: int = 200,
    n_features: int = 30,
    n_components: int = 3,
    outlier_fraction: float = 0.15,
    noise: float = 0.3,
    outlier_offset: float = 5.0,
    outlier_scale: float = 20.0,
):
    """Inliers near a planted affine subspace plus gross, scattered outlier samples.

    Returns ``X, basis (d, k), inlier_mask``. Outliers share an offset (which biases the
    arithmetic mean) but are spread too widely for one direction to capture them.
    """
    rng = np.random.default_rng(seed)
    basis = np.linalg.qr(rng.normal(size=(n_features, n_components)))[0]
    mu = 3.0 * rng.normal(size=n_features)
    X = mu + 5.0 * rng.normal(size=(n_samples, n_components)) @ basis.T
    X += noise * rng.normal(size=(n_samples, n_features))
    n_out = round(outlier_fraction * n_samples)
    X[:n_out] = mu + outlier_offset + outlier_scale * rng.normal(size=(n_out, n_features))
    inliers = np.ones(n_samples, dtype=bool)
    inliers[:n_out] = False
    perm = rng.permutation(n_samples)
    return X[perm], basis, inliers[perm]


# One BLAS thread for the whole suite: the tests use small matrices, where OpenBLAS threads
# cost more than they save, and oversubscribed cores (another process on a 2-core machine)
# made single tests 50x slower with two threads.
threadpool_limits(limits=1, user_api="blas")

# On CI, hypothesis runs a fixed, reproducible set of examples (no flaky red runs); locally
# it explores new examples each time.
settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")


@pytest.fixture(scope="session")
def orl(shared_data):
    """The AT&T/ORL faces at 32 x 32, loaded once per test session."""
    return load_orl(shared_data)


def projector(components):
    """Orthogonal projector onto the row space of ``components`` (sign-free comparison)."""
    return components.T @ components


def random_data(seed, n, d, outliers=True):
    """Rank-3 data with an offset, small noise and 1/8 gross outlier rows."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3)) @ rng.normal(size=(3, d)) + rng.normal(size=d) * 4
    X += 0.1 * rng.normal(size=(n, d))
    if outliers:
        m = max(1, n // 8)
        X[:m] += 20 * rng.normal(size=(m, d))
    return X


def quiet_fit(model, X):
    """Fit while ignoring ConvergenceWarning (tests that cap max_iter on purpose)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return model.fit(X)


def make_estimator(name: str, random_state=0, **params):
    """``robustpca.<name>(**params)``, seeded where the method has a ``random_state``
    (deterministic methods such as ProjectionPursuitPCA have none)."""
    import robustpca

    estimator = getattr(robustpca, name)(**params)
    if "random_state" in estimator.get_params():
        estimator.set_params(random_state=random_state)
    return estimator
