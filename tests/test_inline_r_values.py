"""The R values that tests quote inline equal those of their committed script.

Several tests assert values printed by R (rrcov, robustbase, pcaPP) and quote the R call
in a docstring or comment. ``tests/reference/inline_values/make_values.R`` recomputes
every such value, one line ``<id> <v1> <v2> ...`` per group, and its output is committed
as ``values.txt``. Here:

* ``QUOTES`` holds each group as the tests use it (their literals, or the module-level
  table they assert against) with the tolerance the test uses (a value quoted to a few
  digits only in a docstring: half a unit of its last digit); each must equal its line
  of ``values.txt``. This needs no R (CI has none).
* where ``Rscript`` with rrcov, robustbase and pcaPP is installed, running the script
  again reproduces ``values.txt`` (to 1e-12 relative).

Data the script copies from the tests (``LINE_AND_TWO``, ``T3``, the discrete L1-median
data) are printed back by it (``data_*`` lines) and compared here with the tests' own.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pytest

from .test_outlyingness_reference_values import LINE_AND_TWO
from .test_projection_pursuit import OPTION_REFERENCE
from .test_projection_pursuit_pcapp_refinements import T3

HERE = Path(__file__).parent / "reference" / "inline_values"
SCRIPT = HERE / "make_values.R"
VALUES = HERE / "values.txt"


class Quote(NamedTuple):
    """One group of quoted values: its id in values.txt, the test it backs, the values
    as that test uses them, and the tolerances (scalars or one per value)."""

    id: str
    backs: str
    expected: tuple[float, ...]
    rtol: float | tuple[float, ...] = 0.0
    atol: float | tuple[float, ...] = 0.0


_O1 = "test_outlyingness_reference_values.py::"
_O2 = "test_outlyingness_rrcov_details.py::"
_PP = "test_projection_pursuit.py::"
_FENCES = "test_robust_scale_fences_weights_audit.py::"

QUOTES = [
    Quote(
        "unimcd_full_coverage",
        _O1 + "test_univariate_mcd_with_full_coverage_is_the_mean_and_sd",
        (6.625, 13.506612137341156),
        rtol=(1e-14, 1e-13),
    ),
    Quote(  # rrcov's 2.2 (its last window); the test asserts the middle one on purpose
        "unimcd_tied_up_to_rounding_tmcd",
        _O1 + "test_univariate_mcd_windows_tied_up_to_rounding_take_the_middle",
        (2.2,),
        rtol=1e-13,
    ),
    Quote(
        "outl_all_pairs_maxdir10",
        _O1 + "test_all_pairs_when_their_number_equals_max_directions",
        (4.5355736761107268, 1.1239029738980328, 3.3823772986578833, 7.0, 28.25921678556103),
        rtol=1e-12,
    ),
    Quote(
        "outl_drawn_pairs_maxdir9_second",
        _O1 + "test_all_pairs_when_their_number_equals_max_directions",
        (1.0,),
        rtol=1e-12,
    ),
    Quote(
        "outl_line_and_two_maxdir250",
        _O1 + "test_a_direction_of_rounding_level_scale_is_skipped_as_in_rrcov",
        (
            0.73576516154020832,
            0.72352276904332846,
            2.0185304174660685,
            1.5280693674338943,
            0.8649270341911548,
            1.5122451514228914,
            0.80309137056000379,
            32.76697972817157,
            51.52714403869475,
        ),
        rtol=1e-9,
    ),
    Quote(
        "adjoutlyingness_positive_1d",
        _O1 + "test_adjusted_outlyingness_of_positive_one_dimensional_data_equals_robustbase",
        (0.93662137802623691, 0.2946651864811709, 0.0, 1.0, 19.505657821881851),
        rtol=1e-10,
        atol=1e-14,
    ),
    Quote(
        "unimcd_tied_windows_middle",
        _O2 + "test_univariate_mcd_takes_the_middle_of_tied_windows_as_rrcov_unimcd",
        (101.5, 1.29099444873581),
        rtol=(1e-13, 1e-12),
    ),
    Quote(
        "adjbox_fences_lognormal40",
        _O2 + "test_adjusted_fences_equal_robustbase",
        (0.1577397, 8.5897964),
        atol=2e-6,
    ),
    Quote(  # the test's inputs q1, q3 and mc, quoted to 7 decimals
        "adjbox_quartiles_lognormal40",
        _O2 + "test_adjusted_fences_equal_robustbase",
        (0.6672515, 2.1187525),
        atol=5e-8,
    ),
    Quote(
        "adjbox_mc_lognormal40",
        _O2 + "test_adjusted_fences_equal_robustbase",
        (0.3630914,),
        atol=5e-8,
    ),
    Quote(
        "pcagrid_t3_splitcircle10_sdev",
        "test_projection_pursuit_pcapp_refinements.py::"
        "test_grid_with_an_even_number_of_angles_equals_pcapp",
        (5.5291441097328402, 3.5785826048491427, 2.0044743347737608),
        rtol=1e-6,
    ),
    Quote(
        "pcagrid_t3_splitcircle10_loadings1",
        "test_projection_pursuit_pcapp_refinements.py::"
        "test_grid_with_an_even_number_of_angles_equals_pcapp",
        (0.75928322510296209, -0.52401835172325295, -0.34165362598158788, 0.1793503582046134),
        atol=1e-6,
    ),
    *[
        Quote(
            f"pcapp_option_{scale}_{method}_{table}",
            _PP + "test_qn_and_sd_scales_equal_pcapp (OPTION_REFERENCE)",
            tuple(values),
            rtol=1e-10 if method == "grid" else 5e-6,
        )
        for (scale, method, table), values in sorted(OPTION_REFERENCE.items())
    ],
    Quote(
        "pcapp_qn_small_samples",
        _PP + "test_qn_equals_pcapp_including_small_samples",
        (3.9371917944896504, 3.5506311455761215, 2.2036104547231803),
        rtol=1e-14,
    ),
    Quote(  # "R: l1median(x) is c(2, 2) here"
        "pcapp_l1median_discrete_start",
        _PP + "test_l1_median_where_pcapp_stops_at_its_start",
        (2.0, 2.0),
    ),
    Quote(
        "rankmm_planted_rank2",
        "test_robpca_rank_tolerance.py (module docstring)",
        (2.0,),
    ),
    Quote(
        "mad_1_to_4_and_100",
        "test_robust_scale.py::test_values_of_r",
        (1.4826,),
        rtol=1e-6,
    ),
    Quote(
        "mc_small_vectors",
        "test_robust_scale.py::test_values_of_r",
        (0.0, 0.75, 1 / 3, 1.0, 1.0, -1.0, 0.0),
        rtol=(0.0, 1e-6, 1e-6, 0.0, 0.0, 0.0, 0.0),
    ),
    Quote(  # cutoff 22, mc(x) = 0.5119, fence 79.19
        "crit_od_skewed_positive_mc",
        _FENCES + "test_skewed_cutoff_equals_rrcov_for_either_sign_of_the_medcouple",
        (22.0, 0.5119, 79.19),
        atol=(0.0, 5e-5, 5e-3),
    ),
    Quote(  # cutoff 5, mc(y) = -0.4183, fence 11.125
        "crit_od_skewed_negative_mc",
        _FENCES + "test_skewed_cutoff_equals_rrcov_for_either_sign_of_the_medcouple",
        (5.0, -0.4183, 11.125),
        atol=(0.0, 5e-5, 0.0),
    ),
    Quote(  # mc(x[1:8]) = 0.08333, its fence 31.3, cutoff 22; all 11: cutoff 60, fence 79
        "crit_od_skewed_sampled_mc",
        _FENCES + "test_skewed_cutoff_takes_the_medcouple_of_the_sample_only, "
        "test_diagnostics_closed_forms_audit.py::"
        "test_skew_od_cutoff_takes_the_medcouple_of_the_drawn_rows",
        (0.08333, 31.3, 22.0, 60.0, 79.0),
        atol=(5e-6, 0.05, 0.0, 0.0, 0.5),
    ),
    Quote(  # cutoff 12, the fence exactly 19
        "crit_od_skewed_strictly_below_fence",
        "test_robust_scale_weighted_and_fences.py::"
        "test_skewed_cutoff_is_strictly_below_the_fence_as_rrcov",
        (12.0, 19.0),
    ),
    Quote(
        "mcd_h_alpha_n_and_consistency",
        "test_mcd.py::test_h_and_consistency_factor_match_r",
        (57.0, 13.0, 2.457368),
        rtol=(0.0, 0.0, 1e-6),
    ),
    Quote(  # raw centres 5 and 4.5, centre, covariance, no row flagged by PcaHubert
        "covmcd_tied_windows",
        "test_mcd.py::test_univariate_mcd_takes_the_middle_of_tied_windows",
        (5.0, 4.5, 5.363636, 16.454545, 0.0),
        rtol=(1e-6, 1e-6, 0.0, 0.0, 0.0),
        atol=(0.0, 0.0, 1e-6, 1e-6, 0.0),
    ),
    Quote(
        "mcd_cnp2_5_14",
        "test_mcd.py::test_simulated_small_sample_factors_are_robustbases",
        (1.877996, 1.575407),
        rtol=(1e-12, 1e-6),
    ),
    Quote(  # rrcov's 0.340 (reweighted) and the classical 0.331
        "covmcd_alpha_one_starscyg_first_eigenvalue",
        "test_mcd.py::test_alpha_one_reweights_the_classical_estimates_as_robustbase",
        (0.340, 0.331),
        atol=5e-4,
    ),
    Quote(
        "mcd_cnp2_rew_5_7",
        "test_spherical_covariance.py::"
        "test_covariance_pca_warns_where_the_mcd_is_not_positive_definite",
        (-0.337,),
        atol=5e-4,
    ),
    Quote(  # rrcov's rank-2 fit (the test appends our third eigenvalue, 0.0)
        "pcahubert_c17x5_eigenvalues",
        "test_robpca.py::test_c_steps_of_lower_rank_equal_pcahubert",
        (11.383759482466463, 0.7932261739218941),
        rtol=1e-10,
    ),
    Quote(
        "pcahubert_c17x5_center",
        "test_robpca.py::test_c_steps_of_lower_rank_equal_pcahubert",
        (
            -0.56156793335845367,
            -0.37825813567531619,
            0.19022618041864528,
            0.1329121379807926,
            -0.11447293740049214,
        ),
        rtol=1e-10,
    ),
    Quote(
        "pcahubert_c17x5_loadings",
        "test_robpca.py::test_c_steps_of_lower_rank_equal_pcahubert",
        (
            -0.75433569963329505,
            -0.53251614911562928,
            0.25072706682212503,
            0.24313313182418589,
            -0.15945664414487079,
            -0.49460381031698675,
            0.51680290957709141,
            -0.63920015651686168,
            0.078727234798445692,
            -0.27112175471987049,
        ),
        atol=1e-9,
    ),
    Quote(
        "pcahubert_c17x5_flags",
        "test_robpca.py::test_c_steps_of_lower_rank_equal_pcahubert",
        (1.0, 2.0, 3.0),
    ),
    Quote(  # "robustbase's -0.408" (set.seed(1), the fixtures' seed)
        "covmcd_a60x8_crit_seed1",
        "test_rrcov_synthetic.py (module docstring)",
        (-0.408,),
        atol=5e-4,
    ),
]

#: groups quoted by their sign only: ".MCDcnp2.rew(8, 13, 0.5) < 0"
NEGATIVE = {
    "mcd_cnp2_rew_8_13": "test_robpca.py::"
    "test_warns_where_the_final_mcd_is_not_nonnegative_definite",
}

#: data the script copies from the tests, printed back row by row
DATA = {
    "data_line_and_two": LINE_AND_TWO,
    "data_t3": T3,
    # test_projection_pursuit.py::test_l1_median_where_pcapp_stops_at_its_start
    "data_l1median_discrete": np.random.default_rng(7).integers(0, 5, size=(66, 2)),
}


def read_values(text: str) -> dict[str, np.ndarray]:
    """``values.txt``'s groups by id, in order (comment lines left out)."""
    groups = {}
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        key, *numbers = line.split()
        assert key not in groups, f"{key} twice"
        groups[key] = np.array([float(v) for v in numbers])
    return groups


@pytest.fixture(scope="module")
def values() -> dict[str, np.ndarray]:
    return read_values(VALUES.read_text(encoding="utf-8"))


def test_every_group_of_the_script_is_checked(values):
    ids = [q.id for q in QUOTES]
    assert len(set(ids)) == len(ids)
    assert set(values) == set(ids) | set(NEGATIVE) | set(DATA)


@pytest.mark.parametrize("quote", QUOTES, ids=[q.id for q in QUOTES])
def test_quoted_values_equal_those_of_r(values, quote):
    got = values[quote.id]
    expected = np.array(quote.expected)
    assert got.shape == expected.shape, quote.backs
    bound = np.asarray(quote.atol) + np.asarray(quote.rtol) * np.abs(expected)
    far = np.abs(got - expected) > bound
    assert not far.any(), (
        f"{quote.backs}: R gives {got[far].tolist()} where the test has "
        f"{expected[far].tolist()} (tolerance {np.broadcast_to(bound, far.shape)[far].tolist()})"
    )


@pytest.mark.parametrize("key", sorted(NEGATIVE))
def test_quoted_signs_equal_those_of_r(values, key):
    assert values[key].size == 1 and values[key][0] < 0, NEGATIVE[key]


@pytest.mark.parametrize("key", sorted(DATA))
def test_data_copied_into_the_script_are_the_tests(values, key):
    np.testing.assert_array_equal(values[key], np.ravel(DATA[key]))


def _r_with_packages() -> str | None:
    """Why the script cannot run here, or None where it can."""
    rscript = shutil.which("Rscript")
    if rscript is None:
        return "Rscript not found (CI has no R; values.txt is checked above)"
    check = (
        "quit(status = !all(sapply(c('rrcov', 'robustbase', 'pcaPP'), requireNamespace, "
        "quietly = TRUE)))"
    )
    if subprocess.run([rscript, "-e", check], capture_output=True, timeout=60).returncode:
        return "R lacks rrcov, robustbase or pcaPP (CI has no R; values.txt is checked above)"
    return None


def test_script_reproduces_values_txt(values):
    """Where R with rrcov, robustbase and pcaPP is installed (not in CI)."""
    reason = _r_with_packages()
    if reason is not None:
        pytest.skip(reason)
    run = subprocess.run(
        [shutil.which("Rscript"), str(SCRIPT)],
        capture_output=True,
        encoding="utf-8",
        timeout=300,
        check=True,
    )
    again = read_values(run.stdout)
    assert list(again) == list(values)
    for key, numbers in values.items():
        np.testing.assert_allclose(again[key], numbers, rtol=1e-12, atol=0, err_msg=key)
