# The R values that test docstrings and comments quote inline (rrcov, robustbase and
# pcaPP calls next to the value a test asserts), recomputed in one place. Each group is
# one output line, "<id> <v1> <v2> ...", numbers printed with sprintf("%.17g"); lines
# starting with "#" are comments (the versions that made the file). Each group's comment
# below names the test it backs. tests/test_inline_r_values.py checks the values the
# tests quote against values.txt (always; no R needed) and, where Rscript with rrcov,
# robustbase and pcaPP is installed, that this script still prints values.txt.
#
# Made with R 4.2.2, rrcov 1.7-2, robustbase 0.95-0 and pcaPP 2.0-3 (Debian packages
# r-base-core r-cran-rrcov r-cran-robustbase r-cran-pcapp). Run from anywhere (the data
# files are found next to this script: ../../fixtures/rrcov, ../rrcov_synthetic/data):
#   Rscript tests/reference/inline_values/make_values.R \
#       > tests/reference/inline_values/values.txt
# CI never runs R: regenerate only when a quoted value or its definition changes.
suppressPackageStartupMessages({library(rrcov); library(robustbase); library(pcaPP)})
options(mc_doScale_quiet = TRUE)  # robustbase's one-time note on mc's doScale default
here <- dirname(sub("--file=", "", grep("--file=", commandArgs(), value = TRUE)[1]))
source(file.path(here, "..", "rrcov_common.R"))  # read_table
rrcov_tables <- file.path(here, "..", "..", "fixtures", "rrcov")
synthetic <- file.path(here, "..", "rrcov_synthetic", "data")

emit <- function(id, x) {
    cat(paste(c(id, sprintf("%.17g", as.numeric(x))), collapse = " "), "\n", sep = "")
}
version <- function(package) packageDescription(package)$Version
cat(sprintf("# R %s.%s, rrcov %s, robustbase %s, pcaPP %s\n", R.version$major,
            R.version$minor, version("rrcov"), version("robustbase"), version("pcaPP")))

# ---- tests/test_outlyingness_reference_values.py ------------------------------------

# LINE_AND_TWO, copied from the test (row by row); printed back so that the Python test
# can check the copy
LINE_AND_TWO <- matrix(c(
    -0.09817306320076169, 0.8809433383449498,
    1.1389998904579017, -0.4189554647389332,
    2.4384138968740965, -1.7842510013538324,
    1.9462840173404752, -1.2671696672721717,
    -0.3299069124361592, 1.1244263148877944,
    -1.1043753934550549, 1.93816108699502,
    -0.21896537791694048, 1.0078599386933065,
    3.158232754537527, 1.8109576424788782,
    4.389657904197385, 2.982961098440163), ncol = 2, byrow = TRUE)
emit("data_line_and_two", t(LINE_AND_TWO))

# test_univariate_mcd_with_full_coverage_is_the_mean_and_sd: tmcd, smcd at h = n
y <- c(1.5, 2.25, 0.75, 3.0, 2.5, 40.0, 1.0, 2.0)
r <- rrcov:::unimcd(y, length(y))
emit("unimcd_full_coverage", c(r$tmcd, r$smcd))

# test_univariate_mcd_windows_tied_up_to_rounding_take_the_middle: rrcov's tmcd (the
# last window, 2.2; ours takes the middle one on purpose)
emit("unimcd_tied_up_to_rounding_tmcd",
     rrcov:::unimcd(c(0.1, 0.2, 0.3, 1.1, 1.2, 1.3, 2.1, 2.2, 2.3), 3)$tmcd)

# test_all_pairs_when_their_number_equals_max_directions
X <- matrix(c(0, 1, 2, 3, 9,  0, 2, 1, 4, -3), ncol = 2)
emit("outl_all_pairs_maxdir10", rrcov:::outl(X, maxdir = 10, h = 3))
emit("outl_drawn_pairs_maxdir9_second", rrcov:::outl(X, maxdir = 9, h = 3)[2])

# test_a_direction_of_rounding_level_scale_is_skipped_as_in_rrcov
emit("outl_line_and_two_maxdir250", rrcov:::outl(LINE_AND_TWO, maxdir = 250, h = 6))

# test_adjusted_outlyingness_of_positive_one_dimensional_data_equals_robustbase (its
# directions are all +1, so the seed does not matter; set for definiteness)
x <- c(exp(sin((1:40) * 1.3)), 30)
set.seed(1)
emit("adjoutlyingness_positive_1d",
     adjOutlyingness(matrix(x), ndir = 50, only.outlyingness = TRUE)[c(1, 2, 5, 23, 41)])

# ---- tests/test_outlyingness_rrcov_details.py ---------------------------------------

# test_univariate_mcd_takes_the_middle_of_tied_windows_as_rrcov_unimcd
r <- rrcov:::unimcd(c(0:3, 100:103, 200:203), 4)
emit("unimcd_tied_windows_middle", c(r$tmcd, r$smcd))

# test_adjusted_fences_equal_robustbase: lower and upper fence, the quartiles (fivenum's
# hinges) and the medcouple
set.seed(1)
x <- round(exp(rnorm(40)), 6)
emit("adjbox_fences_lognormal40", adjboxStats(x, coef = 1.5, a = -4, b = 3)$fence)
emit("adjbox_quartiles_lognormal40", fivenum(x)[c(2, 4)])
emit("adjbox_mc_lognormal40", mc(x))

# ---- tests/test_projection_pursuit_pcapp_refinements.py -----------------------------

# T3, copied from the test (row by row); printed back for the Python test
T3 <- matrix(c(
    0.607, 0.312, 1.007, -0.988,
    -11.711, -2.188, 0.307, 1.094,
    3.926, -2.627, -1.265, 0.279,
    -3.153, 7.084, 1.104, -0.102,
    4.902, -2.746, -1.229, 0.781,
    -3.875, -0.973, 1.075, -1.22,
    6.254, 1.833, 0.027, -0.432,
    -4.439, 4.369, -0.479, 0.544,
    -14.23, 2.427, 2.104, 2.084,
    -2.51, 0.343, 1.19, 0.477,
    0.819, -4.154, -1.144, 0.13,
    -0.042, 2.246, 0.356, -0.766,
    -2.368, 0.299, -0.033, -0.119,
    2.689, -0.275, 0.068, 0.019,
    2.989, 9.125, -0.415, -0.141,
    -1.266, -0.697, -0.174, -0.421,
    -4.123, 1.185, 4.024, -0.928,
    0.275, 1.445, -0.011, 1.802,
    -2.212, 2.059, -0.934, -0.52,
    -11.251, -1.319, 1.238, 0.136,
    -2.992, -0.057, 0.643, 0.144,
    -4.003, -0.787, -0.756, -0.71,
    -4.47, -3.605, 0.616, -0.548,
    -2.139, -2.482, -0.855, 0.358,
    4.169, -7.617, -0.231, 0.265,
    10.429, 0.615, -0.785, -0.589,
    4.582, -0.827, 0.854, -0.111,
    2.655, -6.9, 1.466, -0.885,
    0.934, -1.673, -0.568, -0.189,
    10.317, 2.588, -1.039, -0.31), ncol = 4, byrow = TRUE)
emit("data_t3", t(T3))

# test_grid_with_an_even_number_of_angles_equals_pcapp
r <- pcaPP::PCAgrid(T3, k = 3, splitcircle = 10, scores = FALSE)
emit("pcagrid_t3_splitcircle10_sdev", r$sdev)
emit("pcagrid_t3_splitcircle10_loadings1", r$loadings[, 1])

# ---- tests/test_projection_pursuit.py -----------------------------------------------

# OPTION_REFERENCE (test_qn_and_sd_scales_equal_pcapp): PcaGrid / PcaProj eigenvalues
# with method = "qn" / "sd" on hbk (k = 2) and wood (k = 3), the committed copies of the
# tables (tests/fixtures/rrcov, the bytes of the shared data folder's rrcov/)
for (table in c("hbk", "wood")) {
    x <- read_table(rrcov_tables, table)
    k <- if (table == "hbk") 2 else 3
    for (scale in c("qn", "sd")) {
        set.seed(1)
        emit(sprintf("pcapp_option_%s_grid_%s", scale, table),
             PcaGrid(x, k = k, method = scale)@eigenvalues)
        set.seed(1)
        emit(sprintf("pcapp_option_%s_proj_%s", scale, table),
             PcaProj(x, k = k, method = scale)@eigenvalues)
    }
}

# test_qn_equals_pcapp_including_small_samples
emit("pcapp_qn_small_samples", c(pcaPP::qn(c(1:10, 100)), pcaPP::qn(c(1, 5)),
                                 pcaPP::qn(c(1, 5, 2))))

# test_l1_median_where_pcapp_stops_at_its_start: the test's 66 x 2 integer data
# (NumPy's default_rng(7).integers(0, 5, size=(66, 2)), copied row by row; printed back)
X <- matrix(c(
    4, 3, 3, 4, 2, 3, 4, 1, 0, 1, 1, 4, 4, 0, 2, 4, 0, 3, 0, 2, 4, 1, 1, 1, 3, 1, 4, 2,
    2, 2, 2, 2, 2, 4, 4, 3, 3, 3, 1, 4, 2, 1, 4, 0, 4, 3, 0, 0, 2, 0, 0, 2, 4, 2, 4, 4,
    4, 3, 2, 2, 1, 2, 1, 1, 4, 0, 0, 0, 4, 3, 4, 1, 3, 1, 2, 0, 3, 4, 3, 0, 2, 1, 4, 4,
    0, 2, 4, 4, 3, 3, 0, 3, 2, 0, 1, 2, 3, 2, 3, 4, 3, 1, 3, 2, 0, 0, 3, 1, 2, 1, 1, 0,
    1, 4, 2, 1, 2, 4, 1, 2, 2, 3, 2, 3, 2, 3, 4, 0, 2, 2, 1, 1), ncol = 2, byrow = TRUE)
emit("data_l1median_discrete", t(X))
emit("pcapp_l1median_discrete_start", pcaPP::l1median(X))

# ---- tests/test_robpca_rank_tolerance.py --------------------------------------------

# the module docstring: rankMM of a planted 200 x 3 matrix with s_3 = 1e-14 (R's draw)
set.seed(1)
q <- qr.Q(qr(matrix(rnorm(200 * 3), 200, 3)))
v <- qr.Q(qr(matrix(rnorm(9), 3, 3)))
A <- q %*% diag(c(1, 1, 1e-14)) %*% t(v)
emit("rankmm_planted_rank2", robustbase::rankMM(A))

# ---- tests/test_robust_scale.py -----------------------------------------------------

# test_values_of_r: mad, then robustbase::mc of the vectors in the test's order
emit("mad_1_to_4_and_100", mad(c(1, 2, 3, 4, 100)))
emit("mc_small_vectors", c(
    mc(c(1, 2, 3, 4, 20)), mc(c(1, 1, 2, 2, 2, 3, 9, 10)), mc(c(rep(0, 5), 1:7, 30)),
    mc(c(0, 0, 0, 1)), mc(c(1, 1, 1, 1, 1, 2)), mc(c(-3, 0, 0, 0)), mc(c(1, 1, 1))))

# ---- tests/test_robust_scale_fences_weights_audit.py, ..._weighted_and_fences.py ----

# .crit.od(method = "skewed")'s fence, as rrcov computes it (mc with maxit = 1000, the
# factor exp(3 MC) for MC >= 0, else 1), from the medcouple of `sampled`
skewed_fence <- function(od, sampled = od) {
    m <- robustbase::mc(sampled, maxit = 1000)
    unname(quantile(od, 0.75) + 1.5 * (if (m < 0) 1 else exp(3 * m)) * IQR(od))
}
# test_skewed_cutoff_equals_rrcov_for_either_sign_of_the_medcouple: cutoff, mc, fence
x <- c(1, 2, 3, 4, 5, 6, 8, 11, 15, 22, 100)
emit("crit_od_skewed_positive_mc",
     c(rrcov:::.crit.od(x, method = "skewed"), mc(x), skewed_fence(x)))
y <- c(-40, -22, -15, -11, -8, -6, -5, -4, -3, -2, -1, 5)
emit("crit_od_skewed_negative_mc",
     c(rrcov:::.crit.od(y, method = "skewed"), mc(y), skewed_fence(y)))
# test_skewed_cutoff_takes_the_medcouple_of_the_sample_only (and
# tests/test_diagnostics_closed_forms_audit.py's test_skew_od_cutoff_takes_the_medcouple_
# of_the_drawn_rows): mc(x[1:8]), the fence from it, the largest value below that fence,
# rrcov's cutoff of all 11 and the fence of all 11
x <- c(1, 2, 3, 4, 5, 6, 8, 11, 15, 22, 60)
f <- skewed_fence(x, x[1:8])
emit("crit_od_skewed_sampled_mc", c(mc(x[1:8]), f, max(x[x < f]),
                                    rrcov:::.crit.od(x, method = "skewed"),
                                    skewed_fence(x)))
# test_skewed_cutoff_is_strictly_below_the_fence_as_rrcov: cutoff, fence (exactly 19)
od <- c(0, 1, 2, 6, 8, 8, 9, 9, 11, 12, 19)
emit("crit_od_skewed_strictly_below_fence",
     c(rrcov:::.crit.od(od, method = "skewed"), skewed_fence(od)))

# ---- tests/test_mcd.py --------------------------------------------------------------

# test_h_and_consistency_factor_match_r
emit("mcd_h_alpha_n_and_consistency", c(h.alpha.n(0.75, 75, 3), h.alpha.n(0.5, 20, 5),
                                        robustbase:::.MCDcons(3, 0.5)))

# test_univariate_mcd_takes_the_middle_of_tied_windows: covMcd(0:11)$raw.center, then
# for c(0:9, 14) raw.center, center, cov and how many rows PcaHubert flags
m <- covMcd(0:11)
x <- c(0:9, 14)
m2 <- covMcd(x)
set.seed(1)
fit <- PcaHubert(x)
emit("covmcd_tied_windows", c(m$raw.center, m2$raw.center, m2$center, m2$cov,
                              sum(!fit@flag)))

# test_simulated_small_sample_factors_are_robustbases: .MCDcnp2(5, 14, alpha), alpha
# 0.5 and 0.75
emit("mcd_cnp2_5_14", c(robustbase:::.MCDcnp2(5, 14, 0.5),
                        robustbase:::.MCDcnp2(5, 14, 0.75)))

# test_alpha_one_reweights_the_classical_estimates_as_robustbase (docstring): starsCYG's
# first eigenvalue of covMcd(alpha = 1)'s reweighted covariance (rrcov's 0.340) and of
# the classical covariance (0.331)
x <- read_table(rrcov_tables, "starsCYG")
emit("covmcd_alpha_one_starscyg_first_eigenvalue",
     c(eigen(covMcd(x, alpha = 1)$cov)$values[1], eigen(cov(x))$values[1]))

# ---- tests/test_robpca.py, tests/test_spherical_covariance.py -----------------------

# test_warns_where_the_final_mcd_is_not_nonnegative_definite (.MCDcnp2.rew(8, 13, 0.5)
# < 0) and test_covariance_pca_warns_where_the_mcd_is_not_positive_definite
# (.MCDcnp2.rew(5, 7, 0.5) = -0.337)
emit("mcd_cnp2_rew_8_13", robustbase:::.MCDcnp2.rew(8, 13, 0.5))
emit("mcd_cnp2_rew_5_7", robustbase:::.MCDcnp2.rew(5, 7, 0.5))

# test_c_steps_of_lower_rank_equal_pcahubert: set.seed(1); PcaHubert(x, k = 3) on
# rrcov_synthetic's c_17x5.csv (it returns the rank-2 fit): eigenvalues, centre,
# loadings (p x 2, column-major) and the flagged rows (1-based)
x <- as.matrix(read.csv(file.path(synthetic, "c_17x5.csv"), header = FALSE))
set.seed(1)
fit <- PcaHubert(x, k = 3)
emit("pcahubert_c17x5_eigenvalues", fit@eigenvalues)
emit("pcahubert_c17x5_center", fit@center)
emit("pcahubert_c17x5_loadings", fit@loadings)
emit("pcahubert_c17x5_flags", which(!fit@flag))

# ---- tests/test_rrcov_synthetic.py --------------------------------------------------

# the module docstring: robustbase's covMcd criterion (log-determinant of the raw
# h-subset's covariance) on a_60x8 under set.seed(1), the fixtures' seed (-0.408)
x <- as.matrix(read.csv(file.path(synthetic, "a_60x8.csv"), header = FALSE))
set.seed(1)
emit("covmcd_a60x8_crit_seed1", covMcd(x)$crit)
