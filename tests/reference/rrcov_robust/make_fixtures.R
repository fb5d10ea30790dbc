# Reference values of rrcov's robust PCA estimators on the five rrcov tables.
#
# Run from the repository root (R >= 4 with rrcov and pcaPP; Debian: r-cran-rrcov,
# r-cran-pcapp):
#   Rscript tests/reference/rrcov_robust/make_fixtures.R [DATA_DIR]
# DATA_DIR defaults to ../shared/data/rrcov (or $ROBUSTPCA_DATA/rrcov). Each table is read
# without a response column y (octane.csv holds its octane number there; rrcov's own
# examples drop it: octane[, -1]). Writes, next to this script, fits.csv, mcd.csv,
# skew_draws.csv and predict.csv (described above each); fits.csv has one row per
# (method, table, k):
#   method     PcaHubert, PcaLocantore, PcaGrid, PcaProj, PcaCov (rrcov defaults), and
#              PcaHubertSkew = PcaHubert(skew = TRUE) at k = 1 (set.seed(1); its first
#              step's random hyperplanes can matter: skew_draws.csv has octane's fit
#              under seeds 1-12),
#              PcaHubertAlpha05 = PcaHubert(alpha = 0.5) at k = 1, 2 (an alpha given
#              explicitly: rrcov then takes h from k, not kmax)
#   table, k   k = 0 means rrcov chose k itself (k_fitted is what it chose)
#   eigenvalues, center, loadings  ';'-separated, loadings column-major (p x k)
#   cutoff_sd, cutoff_od           rrcov's cutoffs (0 = no OD cutoff)
#   flags      1-based rows rrcov flags as outliers (@flag == FALSE), ';'-separated
#   sd, od     ';'-separated distances of every row
suppressPackageStartupMessages({library(rrcov); library(pcaPP)})
out_dir <- dirname(sub("--file=", "", grep("--file=", commandArgs(), value = TRUE)[1]))
source(file.path(out_dir, "..", "rrcov_common.R"))
data_dir <- rrcov_data_dir(commandArgs(trailingOnly = TRUE))
ks <- list(hbk = 0:2, bushfire = 0:3, wood = 0:3, octane = 0:4, starsCYG = 0:2)
methods <- list(PcaHubert = PcaHubert, PcaLocantore = PcaLocantore, PcaGrid = PcaGrid,
                PcaProj = PcaProj, PcaCov = PcaCov)
num <- function(x) paste(sprintf("%.17g", x), collapse = ";")
rows <- list()
for (name in names(ks)) {
    x <- read_table(data_dir, name)
    for (m in names(methods)) {
        if (m == "PcaCov" && ncol(x) >= nrow(x)) next  # the MCD needs n > p
        for (k in ks[[name]]) {
            set.seed(1)
            fit <- methods[[m]](x, k = k)
            rows[[length(rows) + 1]] <- fit_row(m, name, k, fit)
        }
    }
}
for (name in names(ks)) {
    x <- read_table(data_dir, name)
    for (k in 1:2) {
        set.seed(1)
        fit <- PcaHubert(x, k = k, alpha = 0.5)
        rows[[length(rows) + 1]] <- fit_row("PcaHubertAlpha05", name, k, fit)
    }
    set.seed(1)
    fit <- suppressWarnings(PcaHubert(x, k = 1, skew = TRUE))  # warns: mcd = FALSE is used
    rows[[length(rows) + 1]] <- fit_row("PcaHubertSkew", name, 1, fit)
}
write.csv(do.call(rbind, rows), file.path(out_dir, "fits.csv"), row.names = FALSE)

# mcd.csv: robustbase's reweighted MCD (rrcov CovMcd) on the tables with n > 2p, for
# robustpca.solvers.mcd: table, alpha, h, crit (log-determinant of the raw h-subset
# covariance), best (1-based h-subset), center, cov, raw_cov
mcd <- list()
for (name in c("hbk", "bushfire", "wood", "starsCYG")) {
    x <- read_table(data_dir, name)
    for (a in c(0.5, 0.75)) {
        set.seed(1)
        m <- CovMcd(x, alpha = a)
        mcd[[length(mcd) + 1]] <- data.frame(
            table = name, alpha = a, h = m@quan, crit = num(m@crit), best = paste(m@best, collapse = ";"),
            center = num(getCenter(m)), cov = num(getCov(m)), raw_cov = num(m@raw.cov))
    }
}
# ... and the univariate MCD (robustbase's exact rfmcduni) of each table's first column,
# as "table:1"
for (name in names(ks)) {
    x <- read_table(data_dir, name)[, 1, drop = FALSE]
    for (a in c(0.5, 0.75)) {
        set.seed(1)
        m <- CovMcd(x, alpha = a)
        mcd[[length(mcd) + 1]] <- data.frame(
            table = paste0(name, ":1"), alpha = a, h = m@quan, crit = num(m@crit),
            best = paste(m@best, collapse = ";"), center = num(getCenter(m)),
            cov = num(getCov(m)), raw_cov = num(m@raw.cov))
    }
}
write.csv(do.call(rbind, mcd), file.path(out_dir, "mcd.csv"), row.names = FALSE)

# skew_draws.csv: skew-adjusted PcaHubert on octane at k = 1 under set.seed(1..12): its
# random hyperplanes decide between two h-subsets (table, seed, eigenvalue, flags)
draws <- list()
x <- read_table(data_dir, "octane")
for (s in 1:12) {
    set.seed(s)
    fit <- suppressWarnings(PcaHubert(x, k = 1, skew = TRUE))
    draws[[s]] <- data.frame(table = "octane", seed = s, eigenvalue = num(fit@eigenvalues),
                             flags = paste(which(!fit@flag), collapse = ";"))
}
write.csv(do.call(rbind, draws), file.path(out_dir, "skew_draws.csv"), row.names = FALSE)

# predict.csv: PcaHubert fitted without every 4th row (k = 1, 2), then rrcov's predict()
# on the held-out rows: their score and orthogonal distances with the fit's eigenvalues
# and centre, and the flag by the fit's cutoffs (rrcov's definitions on new data)
pred <- list()
for (name in names(ks)) {
    x <- read_table(data_dir, name)
    held <- seq(4, nrow(x), by = 4)
    for (k in 1:2) {
        set.seed(1)
        fit <- PcaHubert(x[-held, , drop = FALSE], k = k)
        pred[[length(pred) + 1]] <- data.frame(
            table = name, k = k, held_out_distances(fit, x, held, k))
    }
}
write.csv(do.call(rbind, pred), file.path(out_dir, "predict.csv"), row.names = FALSE)
