# robustbase's MCD on small random tables, beyond the rrcov tables: 24 shapes from 8 x 2
# to 40 x 12 (n from p + 6 to about 3p, where robustbase searches exhaustively, uses its
# simulated small-sample factors at alpha = 0.5, or draws its 500 random starts), the
# first sixth of the rows shifted by 6. Run from the repository root (R >= 4 with
# robustbase; Debian: r-cran-robustbase):
#   Rscript tests/reference/rrcov_robust/make_mcd_small.R
# Writes mcd_small.csv next to this script, one row per (table, alpha):
#   case, n, p     the table (set.seed(100 + case); its values, row-major, in x on the
#                  case's first row)
#   alpha, h, crit, best, center, cov, raw_cov   as in mcd.csv (covMcd under set.seed(1))
#   seeds          how many distinct best subsets set.seed(1..4) gave (1: the search
#                  is settled, and robustpca must find the same subset)
suppressPackageStartupMessages(library(robustbase))
out_dir <- dirname(sub("--file=", "", grep("--file=", commandArgs(), value = TRUE)[1]))
source(file.path(out_dir, "..", "rrcov_common.R"))
num <- function(x) paste(sprintf("%.17g", x), collapse = ";")
shapes <- list(c(8, 2), c(10, 2), c(14, 2), c(20, 2), c(23, 2), c(30, 2), c(9, 3), c(12, 3),
               c(17, 3), c(25, 3), c(11, 4), c(15, 4), c(16, 4), c(30, 4), c(12, 5), c(14, 5),
               c(20, 5), c(16, 6), c(20, 6), c(18, 8), c(25, 8), c(20, 9), c(40, 9), c(30, 12))
rows <- list()
for (case in seq_along(shapes)) {
    n <- shapes[[case]][1]; p <- shapes[[case]][2]
    set.seed(100 + case)
    x <- matrix(round(rnorm(n * p) * rep(runif(p, 0.5, 3), each = n), 6), n, p)
    x[seq_len(max(1, n %/% 6)), ] <- x[seq_len(max(1, n %/% 6)), ] + 6
    for (a in c(0.5, 0.75)) {
        rows[[length(rows) + 1]] <- cbind(
            data.frame(case = case, n = n, p = p, x = if (a == 0.5) num(t(x)) else ""),
            mcd_reference(x, a, n_seeds = 4))
    }
}
write.csv(do.call(rbind, rows), file.path(out_dir, "mcd_small.csv"), row.names = FALSE)
