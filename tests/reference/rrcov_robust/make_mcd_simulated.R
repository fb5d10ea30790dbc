# robustbase's simulated small-sample factors of the MCD at alpha = 0.5
# (robustbase:::MCDcnp2s, used by .MCDcnp2 and .MCDcnp2.rew in place of the fitted
# formula where the simulation covers (p, n): p <= 9 and n_min(p) <= n <= n_max(p)).
# Run from the repository root (R >= 4 with robustbase; Debian: r-cran-robustbase):
#   Rscript tests/reference/rrcov_robust/make_mcd_simulated.R
# Writes mcd_simulated.csv next to this script: p, n, raw (sim.0), reweighted (sim.rew),
# 17 significant digits; robustpca.solvers.mcd._SIMULATED_CNP2 holds the same values
# (tests/test_mcd.py checks that they are equal).
suppressPackageStartupMessages(library(robustbase))
out_dir <- dirname(sub("--file=", "", grep("--file=", commandArgs(), value = TRUE)[1]))
sim <- robustbase:::MCDcnp2s
rows <- list()
for (p in 1:12) for (n in 1:80) {
    raw <- sim$sim.0(p, n)
    rew <- sim$sim.rew(p, n)
    if (is.na(raw) && is.na(rew)) next
    rows[[length(rows) + 1]] <- data.frame(
        p = p, n = n, raw = sprintf("%.17g", raw), reweighted = sprintf("%.17g", rew))
}
write.csv(do.call(rbind, rows), file.path(out_dir, "mcd_simulated.csv"), row.names = FALSE)
