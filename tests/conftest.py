"""Shared fixtures: seeds, the real-data directory, small planted problems and the
occluded faces."""

from __future__ import annotations

import csv
import functools
import os
import sys
import threading

# scikit-learn runs its array-API estimator checks (tests/test_common.py) only when SciPy
# was imported with this set; it must come before anything imports SciPy.
os.environ.setdefault("SCIPY_ARRAY_API", "1")

import warnings
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np
import pytest
from hypothesis import settings
from hypothesis import strategies as st
from scipy.linalg import subspace_angles
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from threadpoolctl import threadpool_limits

from robustpca import PCA
from robustpca.datasets import load_orl, occlude_blocks
from robustpca.metrics import total_reconstruction_error

REPO = Path(__file__).resolve().parents[1]
# one measure of peak memory (tracemalloc) for the memory tests and the benchmarks, and
# one place for the real data: $ROBUSTPCA_DATA or ../shared/data beside the repo, else
# the download cache (data_home)
sys.path.insert(0, str(REPO / "benchmarks"))
from _harness import data_home  # noqa: E402
from _harness import peak_memory as peak_memory  # noqa: E402  (re-exported to the tests)


@pytest.fixture(scope="session")
def adbench() -> Path:
    """The folder of ADBench's tables: ``$ROBUSTPCA_DATA``, ``../shared/data`` or the
    download cache (``data_home``); data that cannot be had is an error, never a skip."""
    try:
        return data_home("adbench") / "adbench"
    except FileNotFoundError as exc:  # its message holds its causes': shown once, unchained
        raise pytest.fail.Exception(str(exc), pytrace=False) from None


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The real data folder: ``$ROBUSTPCA_DATA`` or ``../shared/data`` when present, else
    the download cache, filled once through the package's fetchers (every image set, and
    rrcov's committed tables; see ``data_home``). Data that cannot be had is an error that
    says how to get it, never a silent skip."""
    try:
        path = data_home()
    except FileNotFoundError as exc:  # its message holds its causes': shown once, unchained
        raise pytest.fail.Exception(str(exc), pytrace=False) from None
    if not (path / "raw").is_dir():
        pytest.fail(
            f"real data not found at {path}; set ROBUSTPCA_DATA to the folder holding raw/, "
            "or unset it to download the data (CONTRIBUTING.md, 'Real data')",
            pytrace=False,
        )
    return path


class DataMirror:
    """A threaded HTTP server on 127.0.0.1 (a free port) serving the folder ``root``, as
    ``$ROBUSTPCA_MIRROR`` expects it (``<url>/<name>/<file>``); records the paths asked
    for. Loopback only; ``close()`` shuts it down."""

    def __init__(self, root: Path):
        self.requests: list[str] = []
        mirror = self

        class Handler(SimpleHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as on real servers
            disable_nagle_algorithm = True  # no 40 ms delayed-ACK stall per response

            def do_GET(self):
                mirror.requests.append(self.path)
                super().do_GET()

            def log_message(self, *args):
                pass

        handler = functools.partial(Handler, directory=str(root))
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()


def mirror_folder(data: Path, folder: Path) -> Path:
    """``folder`` made a mirror of the data folder ``data`` in the fetchers' layout
    (``<name>/<file>``): one symbolic link per data set, to ``raw/<name>/``, and to
    ``adbench/`` and ``video/`` where ``data`` has them. Nothing is copied."""
    folder.mkdir(parents=True, exist_ok=True)
    for path in sorted((data / "raw").iterdir()):
        if path.is_dir():
            (folder / path.name).symlink_to(path.resolve(), target_is_directory=True)
    for name in ("adbench", "video"):
        if (data / name).is_dir():
            (folder / name).symlink_to((data / name).resolve(), target_is_directory=True)
    return folder


@pytest.fixture(scope="session")
def data_mirror(shared_data, tmp_path_factory):
    """The real data served by a local HTTP mirror (:class:`DataMirror`) for the session."""
    server = DataMirror(mirror_folder(shared_data, tmp_path_factory.mktemp("mirror") / "m"))
    yield server
    server.close()


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


def corrupted_low_rank(seed, n, d, *, rank, offset, entry_scale, row_scale):
    """Rank ``rank`` plus an ``offset``, 5% gross entry errors (``entry_scale`` times a
    Gaussian) and 10% outlying rows (``row_scale`` times a Gaussian added): data for the
    convex programs, which separate sparse errors or outlying samples."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, rank)) @ rng.normal(size=(rank, d)) + offset
    X += np.where(rng.random((n, d)) < 0.05, entry_scale * rng.normal(size=(n, d)), 0.0)
    rows = rng.choice(n, n // 10, replace=False)
    X[rows] += row_scale * rng.normal(size=(len(rows), d))
    return X


def leverage_cluster(n=200, p=10, frac=0.2, seed=0):
    """Rank-2 data plus a tight cluster of ``frac * n`` points far off the subspace.

    Returns ``X, U (p, 2), m``: the first ``m`` rows are the cluster.
    """
    rng = np.random.default_rng(seed)
    U = np.linalg.qr(rng.normal(size=(p, 2)))[0]
    X = rng.normal(size=(n, 2)) * [4.0, 2.0] @ U.T + 0.1 * rng.normal(size=(n, p))
    m = int(frac * n)
    d = rng.normal(size=p)
    d -= U @ (U.T @ d)
    X[:m] = 25.0 * d / np.linalg.norm(d) + 0.1 * rng.normal(size=(m, p))
    return X, U, m


def low_rank_images(seed, n, h, w, k1=2, k2=2, noise=0.1, n_out=0, out_scale=20.0):
    """Images M + L S_i R^T + noise, the first ``n_out`` replaced by gross noise images.

    Returns ``X (n, h * w), L (h, k1), R (w, k2), M (h, w)``.
    """
    rng = np.random.default_rng(seed)
    L = np.linalg.qr(rng.normal(size=(h, k1)))[0]
    R = np.linalg.qr(rng.normal(size=(w, k2)))[0]
    M = 2.0 * rng.normal(size=(h, w))
    A = M + L @ (3.0 * rng.normal(size=(n, k1, k2))) @ R.T + noise * rng.normal(size=(n, h, w))
    A[:n_out] = M + out_scale * rng.normal(size=(n_out, h, w)) + 0.5 * out_scale
    return A.reshape(n, h * w), L, R, M


#: A seed for :func:`numpy.random.default_rng`, any 32-bit value (hypothesis strategy of
#: the property tests that draw their data from a seed).
SEEDS = st.integers(0, 2**32 - 1)


@st.composite
def image_problems(draw, *, min_n=2, max_side=7, max_rank=4):
    """Sizes for a 2-D method: ``n, h, w, (k1, k2), seed``, ``n`` images of ``h x w``
    (``min_n <= n <= 25``, sides up to ``max_side``) and ranks drawn up to ``max_rank``,
    cut to what the image scatters allow: ``k1 <= min(h, n w)``, ``k2 <= min(w, n h)``."""
    n = draw(st.integers(min_n, 25))
    h, w = draw(st.integers(1, max_side)), draw(st.integers(1, max_side))
    k1, k2 = draw(st.integers(1, max_rank)), draw(st.integers(1, max_rank))
    seed = draw(st.integers(0, 10_000))
    return n, h, w, (min(k1, h, n * w), min(k2, w, n * h)), seed


def worst_image_angle(model, L, R):
    """Largest principal angle (degrees) of a 2-D model's left or right basis to L or R."""
    return max(
        np.degrees(subspace_angles(model.left_components_, L).max()),
        np.degrees(subspace_angles(model.right_components_, R).max()),
    )


#: (seed, fill) of the four occluded-face settings: white and black blocks, two seeds.
OCCLUSIONS = [(0, "max"), (0, "min"), (1, "max"), (1, "min")]


def occlusion_id(setting) -> str:
    """Test id of one of :data:`OCCLUSIONS`, e.g. ``seed0-max``."""
    seed, fill = setting
    return f"seed{seed}-{fill}"


def occluded_faces(orl, seed=0, fill="max", **fractions):
    """The faces occluded as in Nie, Yuan & Huang (2014, sec. 5.1) and Nie & Huang (sec.
    V.A): ``image_fraction`` of them (20%), drawn with ``seed``, each get one square block
    of ``block_fraction`` of the image area (a quarter), white (``"max"``) or black
    (``"min"``). The two fractions, keyword arguments, default to those of
    :func:`robustpca.datasets.occlude_blocks` (the papers' protocol), which this returns
    ``X, mask`` of."""
    return occlude_blocks(orl.data, orl.image_shape, fill=fill, random_state=seed, **fractions)


def clean_error(model, X, clean) -> float:
    """Total error ``sum_i ||x_rec - x_clean||`` of ``model``'s reconstruction of the
    corrupted ``X`` against the ``clean`` data (Nie, Yuan & Huang 2014, Table 1)."""
    return total_reconstruction_error(model.reconstruct(X), clean)


def fits_below_pca(method, X, clean, margin, dims=(10, 30, 50)) -> dict:
    """Fit ``method(k)`` to the corrupted ``X`` for each ``k`` in ``dims``; each fit must
    converge and have a clean error below ``margin`` times PCA's. Returns the fits by k."""
    fits = {}
    for k in dims:
        fits[k] = model = method(k).fit(X)
        assert model.converged_
        assert clean_error(model, X, clean) < margin * clean_error(PCA(k).fit(X), X, clean), k
    return fits


# rrcov's data tables and its reference fits (tests/reference/rrcov_robust, README there)
RRCOV_ROBUST = Path(__file__).parent / "reference" / "rrcov_robust"
csv.field_size_limit(sys.maxsize)  # the octane loadings are one long field


def load_table(shared_data, name) -> np.ndarray:
    """One of rrcov's data tables (hbk, bushfire, ...) from the shared data folder, its
    explanatory variables only: ``octane.csv`` also holds the octane number ``y`` in its
    first column, which rrcov's examples drop (``octane[, -1]``, ``man/octane.Rd``); its
    226 spectra are the table of the literature (the other tables were exported without
    their response)."""
    path = shared_data / "rrcov" / f"{name}.csv"
    header = path.read_text(encoding="utf-8").split("\n", 1)[0].split(",")
    X = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)
    return X[:, [j for j, column in enumerate(header) if column.strip().strip('"') != "y"]]


def random_gaps(X, seed):
    """``X`` with a random tenth of its cells NaN (a fifth for seed 3), none of its rows
    emptied, and the mask. On hbk (3 columns) 15-36 rows then keep at most 2 entries."""
    mask = np.random.default_rng(seed).random(X.shape) < (0.2 if seed == 3 else 0.1)
    mask[mask.all(axis=1), 0] = False
    Xm = X.copy()
    Xm[mask] = np.nan
    return Xm, mask


def reference_numbers(text: str) -> np.ndarray:
    """The numbers of one field of the reference CSVs (``;``-separated, maybe empty)."""
    return np.array([float(v) for v in text.split(";")]) if text else np.zeros(0)


def reference_fits(method: str) -> dict:
    """rrcov's fits by ``method`` (e.g. ``PcaHubert``), keyed by ``(table, k)``."""
    with open(RRCOV_ROBUST / "fits.csv", encoding="utf-8", newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["method"] == method]
    return {(r["table"], int(r["k"])): r for r in rows}


def pytest_configure(config):
    # the fresh-clone test (tests/test_fresh_clone.py): selectable with -m fresh_clone
    config.addinivalue_line(
        "markers", "fresh_clone: runs real-data tests in a fresh clone against a local mirror"
    )


# One BLAS thread for the whole suite: the tests use small matrices, where OpenBLAS threads
# cost more than they save, and oversubscribed cores (another process on a 2-core machine)
# made single tests 50x slower with two threads.
threadpool_limits(limits=1, user_api="blas")

# On CI, hypothesis runs a fixed, reproducible set of examples (no flaky red runs); locally
# it explores new examples each time.
# The minimum-versions lane (.ci/minversions.sh) checks that the declared minimums run
# every property, on a fifth of the examples: the main suite explores them.
settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("minversions", parent=settings.get_profile("ci"), max_examples=20)
settings.register_profile("dev", deadline=None)
settings.load_profile(
    os.environ.get("ROBUSTPCA_HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev")
)


@pytest.fixture(scope="session")
def orl(shared_data):
    """The AT&T/ORL faces at 32 x 32, loaded once per test session."""
    return load_orl(shared_data)


def fit_passes(model) -> int:
    """The passes of a Dask fit's solver: ``n_passes_`` less those that computed its
    training diagnostics (``_dask/reference.py``)."""
    return model.n_passes_ - getattr(model, "_reference_passes", 0)


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


def assert_translation_equivariant(estimator, seed, shift, wide, components_atol):
    """``estimator`` fitted to random data (60 x 8, or 20 x 50 if ``wide``) and to the same
    data moved by ``shift`` times a random offset: the mean moves by the offset and the
    subspace stays (to ``components_atol``). The mean is compared off the subspace: within
    it an optimal mean is not identified (Nie et al. 2014), and two fits of wide data
    stopped at ``max_iter`` had means 1e-4 apart along it (seed 256). Returns the fits."""
    n, d = (20, 50) if wide else (60, 8)
    X = random_data(seed, n, d)
    offset = shift * np.random.default_rng(seed + 1).normal(size=d)
    a = quiet_fit(clone(estimator), X)
    b = quiet_fit(clone(estimator), X + offset)
    scale = np.abs(X).max() + np.abs(offset).max()
    moved = b.mean_ - (a.mean_ + offset)
    moved -= a.components_.T @ (a.components_ @ moved)
    np.testing.assert_allclose(moved, 0.0, atol=1e-7 * scale)
    np.testing.assert_allclose(
        projector(b.components_), projector(a.components_), atol=components_atol
    )
    return a, b


def assert_fit_rejects(cls, params, error, match):
    """``cls(n_components=2, **params)`` fitted to small random data raises ``error`` with a
    message matching ``match`` (the bad parameter's name)."""
    X = random_data(9, 30, 10)
    with pytest.raises(error, match=match):
        cls(**{"n_components": 2, **params}).fit(X)


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


def run_into_marked_page(module, argv: list[str], tmp_path: Path) -> str:
    """Run a benchmark's ``main(argv + ["--markdown", page])`` on a page whose generated
    block (between the module's ``MARK_BEGIN`` and ``MARK_END``) sits between other text,
    and return the page: the block is replaced, the text around it kept."""
    page = tmp_path / "page.md"
    page.write_text(f"intro\n\n{module.MARK_BEGIN}\nold\n{module.MARK_END}\n\nend\n")
    assert module.main([*argv, "--markdown", str(page)]) == 0
    text = page.read_text()
    assert text.startswith("intro") and text.rstrip().endswith("end") and "old" not in text
    return text


@pytest.fixture
def eigsh_calls(monkeypatch):
    """The ``k`` of every ARPACK call made by a ``KernelL21PCA`` fit (the real ``eigsh``
    runs)."""
    import robustpca.estimators._kernel_l21 as module

    calls = []
    real = module.eigsh

    def spy(*args, **kwargs):
        calls.append(kwargs["k"])
        return real(*args, **kwargs)

    monkeypatch.setattr(module, "eigsh", spy)
    return calls
