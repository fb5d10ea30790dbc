# Reference values of rrcov's robust PCA on synthetic data with planted outliers, beyond
# the five classic tables: tall, square and wide shapes (60 x 8, 40 x 12, 100 x 3,
# 30 x 30, 25 x 60), so that ROBPCA's projected-MCD route (rank > n / 5) and the wide
# routes are compared too.
#
# Run from the repository root (R >= 4 with rrcov and pcaPP; Debian: r-cran-rrcov,
# r-cran-pcapp):
#   Rscript tests/reference/rrcov_synthetic/make_fixtures.R
# Writes data/<name>.csv (the data, 8 significant digits, no header; the fits below are
# of the values as read back) and fits.csv, with the columns of ../rrcov_robust/fits.csv:
#   method     PcaHubert, PcaLocantore (rrcov defaults), PcaGrid, PcaProj (pcaPP via rrcov)
#   table, k   the data set and k (0: rrcov's own choice; k_fitted is what it chose)
# Each data set: rank-3 signal (rank 2 for 100 x 3) times 3 plus N(0, 0.25) noise and a
# random offset; the first 15% of the rows moved by N(10, 64) in every coordinate
# (outliers off the subspace); data set "b" also has two good leverage points (rows
# scaled by 6).
suppressPackageStartupMessages({library(rrcov); library(pcaPP)})
out_dir <- dirname(sub("--file=", "", grep("--file=", commandArgs(), value = TRUE)[1]))
source(file.path(out_dir, "..", "rrcov_common.R"))
shapes <- list(c(60, 8), c(40, 12), c(100, 3), c(30, 30), c(25, 60))
methods <- list(PcaHubert = PcaHubert, PcaLocantore = PcaLocantore, PcaGrid = PcaGrid,
                PcaProj = PcaProj)
rows <- list()
for (variant in c("a", "b")) for (si in seq_along(shapes)) {
    n <- shapes[[si]][1]; p <- shapes[[si]][2]
    set.seed(100 * match(variant, c("a", "b")) + si)
    r <- min(3, p - 1)
    A <- matrix(rnorm(n * r), n, r) %*% matrix(rnorm(r * p), r, p) * 3 +
        matrix(rnorm(n * p), n, p) * 0.5
    A <- A + matrix(rep(rnorm(p) * 5, each = n), n, p)
    m <- max(2, round(0.15 * n))
    A[1:m, ] <- A[1:m, ] + matrix(rnorm(m * p) * 8 + 10, m, p)
    if (variant == "b") A[(m + 1):(m + 2), ] <- A[(m + 1):(m + 2), ] * 6
    name <- sprintf("%s_%dx%d", variant, n, p)
    path <- file.path(out_dir, "data", paste0(name, ".csv"))
    write.table(signif(A, 8), path, sep = ",", row.names = FALSE, col.names = FALSE)
    x <- as.matrix(read.csv(path, header = FALSE))
    for (method in names(methods)) {
        # PcaGrid / PcaProj at k = 0 take k = rank; on wide data every OD is then
        # rounding, and so are the OD flags (as on octane): tall data only
        ks <- if (method %in% c("PcaGrid", "PcaProj") && p >= n) 2 else c(0, 2)
        for (k in ks) {
            set.seed(1)
            fit <- methods[[method]](x, k = k)
            rows[[length(rows) + 1]] <- fit_row(method, name, k, fit)
        }
    }
}
write.csv(do.call(rbind, rows), file.path(out_dir, "fits.csv"), row.names = FALSE)
