"""The Nie & Huang protocols (niehuang-figure2/3/4/6) on the real data of ../shared/data.

Checks the data each protocol uses (against the paper's Table I where we can derive it),
the corruptions (occlusion: sec. V.A; Palm outliers: sec. V.B), that the rows of the task
functions equal a direct computation of eq. (37)/(38), and that seeds reproduce.
"""

from __future__ import annotations

import numpy as np
import pytest

from robustpca import L1PCA, L21PCA, PCA
from robustpca.experiments import get_experiment, load_dataset
from robustpca.experiments.niehuang import (
    DIMENSIONS,
    METHODS,
    OCCLUSION_FRACTIONS,
    OUTLIER_FRACTION,
    claim_counts,
    occlude,
    occlusion_task,
    outlier_task,
    paper_images,
    with_outliers,
)

YALE = "yale:64x64"


def eq37(components, mean, X_train, clean):
    """(1/n) sum_i ||(x_i^o - mu) - W W^T (x_i - mu)||_2, one sample at a time."""
    W = components.T
    total = 0.0
    for x, xo in zip(X_train, clean, strict=True):
        total += np.linalg.norm((xo - mean) - W @ (W.T @ (x - mean)))
    return total / len(clean)


@pytest.fixture(scope="module")
def yale(shared_data):
    return paper_images(YALE, str(shared_data))


# ------------------------------------------------------------------------------ data


def test_registered_exhibits():
    for key, fraction in OCCLUSION_FRACTIONS.items():
        experiment = get_experiment(f"niehuang-{key}")
        assert experiment.exhibit == f"Figure {key[-1]}"
        assert f"{round(100 * fraction)}%" in experiment.summary
    assert get_experiment("niehuang-figure6").exhibit == "Figure 6"
    assert DIMENSIONS[0] == 21 and DIMENSIONS[-1] == 69
    assert list(METHODS) == ["PCA", "R1-PCA", "PCA-L1", "PCA-L21"]


@pytest.mark.realdata
def test_att_faces_are_the_originals_halved_to_table1_size(shared_data):
    """Table I: AT&T 400 x 2576 = 56x46, the 112x92 originals averaged over 2x2 blocks."""
    faces = paper_images("orl:112x92", str(shared_data))
    original = load_dataset("orl:112x92", str(shared_data))
    assert faces.data.shape == (400, 2576) and faces.image_shape == (56, 46)
    big = original.images[7]
    np.testing.assert_allclose(faces.images[7][10, 20], big[20:22, 40:42].mean())
    np.testing.assert_array_equal(faces.target, original.target)
    assert not faces.data.flags.writeable


@pytest.mark.realdata
def test_ar_is_the_first_session_840_images(shared_data):
    """Table I: AR 840 images = 120 subjects x 7, the first 7 of each subject's 14."""
    ar = paper_images("ar:120", str(shared_data))
    full = load_dataset("ar:120", str(shared_data))
    assert ar.data.shape == (840, 2000)
    assert np.all(np.bincount(ar.target)[1:] == 7)
    np.testing.assert_array_equal(ar.data[7:14], full.data[14:21])  # subject 2, images 1-7
    assert not ar.data.flags.writeable


# ------------------------------------------------------------------------ corruptions


@pytest.mark.realdata
@pytest.mark.parametrize("fraction", sorted(OCCLUSION_FRACTIONS.values()))
@pytest.mark.parametrize("spec", [YALE, "orl:112x92"])
def test_occlusion_squares_are_half_the_width(shared_data, spec, fraction):
    data = paper_images(spec, str(shared_data))
    X, mask = occlude(data, fraction, seed=3)
    h, w = data.image_shape
    side = round(w / 2)  # 32 for Yale 64x64, 23 for AT&T 56x46
    occluded = mask.any(axis=1)
    assert occluded.sum() == int(np.floor(fraction * data.n_samples + 0.5))
    for i in np.flatnonzero(occluded):
        rows, cols = np.nonzero(mask[i].reshape(h, w))
        assert rows.max() - rows.min() + 1 == side and cols.max() - cols.min() + 1 == side
        assert rows.size == side * side
    assert np.all(X[mask] == data.data.max())
    np.testing.assert_array_equal(X[~mask], data.data[~mask])


@pytest.mark.realdata
def test_palm_outliers_are_appended_and_resized(shared_data, yale):
    X, is_outlier = with_outliers(yale, OUTLIER_FRACTION, seed=0, data_home=str(shared_data))
    n = yale.n_samples
    assert X.shape == (n + 33, 64 * 64)  # round(0.2 * 165) = 33
    np.testing.assert_array_equal(is_outlier, np.arange(n + 33) >= n)
    np.testing.assert_array_equal(X[:n], yale.data)
    palm = load_dataset("palm", str(shared_data))
    # bilinear resizing of 8-bit palms: values stay inside the pool's range, no rescaling
    assert palm.data.min() <= X[n:].min() and X[n:].max() <= palm.data.max()
    assert X[n:].std() > 10.0


@pytest.mark.realdata
def test_palm_outliers_take_the_range_of_coil20(shared_data):
    coil = paper_images("coil20", str(shared_data))
    X, is_outlier = with_outliers(coil, 0.1, seed=1, data_home=str(shared_data))
    assert is_outlier.sum() == 144
    assert X[is_outlier].min() >= -1e-12 and X[is_outlier].max() <= 1.0 + 1e-12


# ------------------------------------------------------------------------------ tasks


@pytest.mark.realdata
def test_occlusion_task_matches_eq37_directly(shared_data, yale):
    rows = occlusion_task(YALE, 0, "PCA-L21", 0.2, [21], str(shared_data), None)
    X, _ = occlude(yale, 0.2, 0)
    model = L21PCA(n_components=21, random_state=0).fit(X)
    assert len(rows) == 1
    row = rows[0]
    assert row["k"] == 21 and row["occluded"] == 0.2 and row["method"] == "PCA-L21"
    expected = eq37(model.components_, X.mean(axis=0), X, yale.data)
    assert row["error"] == pytest.approx(expected, rel=1e-10)
    assert row["n_iter"] == model.n_iter_ and row["converged"]


@pytest.mark.realdata
@pytest.mark.parametrize("method,cls", [("PCA", PCA), ("PCA-L1", L1PCA)])
def test_nested_methods_score_their_first_components(shared_data, yale, method, cls):
    """PCA and PCA-L1 are fitted once at the largest m; their first 21 components equal
    a fit with 21 (greedy PCA-L1 with the same seed; PCA's sorted eigenvectors)."""
    rows = occlusion_task(YALE, 1, method, 0.1, [21, 25], str(shared_data), None)
    X, _ = occlude(yale, 0.1, 1)
    direct = cls(n_components=21, random_state=1).fit(X)
    expected = eq37(direct.components_, X.mean(axis=0), X, yale.data)
    assert [r["k"] for r in rows] == [21, 25]
    assert rows[0]["error"] == pytest.approx(expected, rel=1e-8)
    assert rows[1]["error"] < rows[0]["error"]


@pytest.mark.realdata
def test_outlier_task_scores_the_original_images_only(shared_data, yale):
    rows = outlier_task(YALE, 2, "PCA", OUTLIER_FRACTION, [21], str(shared_data), None)
    X, is_outlier = with_outliers(yale, OUTLIER_FRACTION, 2, str(shared_data))
    model = PCA(n_components=21).fit(X)  # trained on the mixture
    expected = eq37(model.components_, X.mean(axis=0), X[~is_outlier], yale.data)
    assert rows[0]["outliers"] == 33
    assert rows[0]["error"] == pytest.approx(expected, rel=1e-10)


@pytest.mark.realdata
def test_seeds_reproduce(shared_data):
    args = (YALE, 4, "R1-PCA", 0.3, [21], str(shared_data), 50)
    first, again = occlusion_task(*args), occlusion_task(*args)
    assert first == again
    other = occlusion_task(YALE, 5, "R1-PCA", 0.3, [21], str(shared_data), 50)
    assert other[0]["error"] != first[0]["error"]


# ----------------------------------------------------------------------- the claims


def errors_by_method(rows):
    return {m: np.array([r["error"] for r in rows if r["method"] == m]) for m in METHODS}


@pytest.mark.realdata
def test_figure4_yale_pca_l21_best_and_pca_l1_below_pca(shared_data):
    """30% occluded Yale 64x64, seed 0, m = 21 and 45: PCA-L21 has the smallest error
    (2395.9 and 2168.6; PCA 2468.7 and 2242.5, R1-PCA 2436.2 and 2229.3), as the paper
    claims. Contrary to the paper ("PCA-L1 doesn't perform as good as PCA"), PCA-L1 is
    below PCA here (2437.3 and 2212.1); over the full run PCA-L1 is below PCA at 51 of the
    65 (data set, m) cells of Figure 4."""
    rows = [
        r
        for method in METHODS
        for r in occlusion_task(YALE, 0, method, 0.3, [21, 45], str(shared_data), None)
    ]
    e = errors_by_method(rows)
    assert all(r["converged"] for r in rows)
    for method in ("PCA", "R1-PCA", "PCA-L1"):
        assert np.all(e["PCA-L21"] < e[method]), method
    assert np.all(e["PCA-L1"] < e["PCA"])


@pytest.mark.realdata
def test_figure6_yale_pca_l21_best_but_not_every_robust_method_beats_pca(shared_data):
    """33 Palm images appended to Yale 64x64, seed 0: PCA-L21 has the smallest eq. (38)
    error at m = 21 and 45 (1264.7 and 913.2; PCA 1321.2 and 946.8). The paper's claim
    that R1-PCA and PCA-L1 also beat PCA fails at m = 45 (949.8 and 956.9 against
    946.8); over the full run they are below PCA at 40 and 23 of 65 cells."""
    rows = [
        r
        for method in METHODS
        for r in outlier_task(YALE, 0, method, OUTLIER_FRACTION, [21, 45], str(shared_data), None)
    ]
    e = errors_by_method(rows)
    for method in ("PCA", "R1-PCA", "PCA-L1"):
        assert np.all(e["PCA-L21"] < e[method]), method
    assert e["R1-PCA"][1] > e["PCA"][1] and e["PCA-L1"][1] > e["PCA"][1]


# ----------------------------------------------------------------------------- report


def test_claim_counts_on_seed_means():
    errors = {  # method -> errors at m = 21, 25 for seeds 0 and 1
        "PCA": [(10.0, 9.0), (10.0, 9.0)],
        "R1-PCA": [(9.5, 9.5), (9.5, 9.5)],
        "PCA-L1": [(11.0, 8.0), (11.0, 8.0)],
        "PCA-L21": [(9.0, 8.5), (9.0, 8.9)],  # m = 25: mean 8.7 > PCA-L1's 8.0
    }
    rows = [
        {"dataset": "toy", "seed": s, "method": m, "k": k, "error": e}
        for m, per_seed in errors.items()
        for s, values in enumerate(per_seed)
        for k, e in zip((21, 25), values, strict=True)
    ]
    counts = claim_counts(rows)["toy"]
    assert counts["PCA-L21 best"] == (1, 2)
    assert counts["PCA-L21 < PCA"] == (2, 2)
    assert counts["R1-PCA < PCA"] == (1, 2)
    assert counts["PCA-L1 < PCA"] == (1, 2)
    assert counts["PCA-L21 < R1-PCA"] == (2, 2)
    assert counts["PCA-L21 < PCA-L1"] == (1, 2)
