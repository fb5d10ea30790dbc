# robustbase's FAST-MCD where it searches exhaustively: with at most 22, 17, 15 or 14
# samples for p = 2, 3, 4 or 5 (rffastmcd.f's replow), every (p+1)-subset is a start,
# whatever nsamp, so the fit does not depend on the seed. Run from the repository root
# (R >= 4 with robustbase; Debian: r-cran-robustbase):
#   Rscript tests/reference/rrcov_robust/make_exhaustive.R [DATA_DIR]
# Writes mcd_exhaustive.csv next to this script, one row per (table, n, alpha):
#   table, n     the table's first n rows (all its columns but y)
#   alpha, h, crit, best, center, cov, raw_cov   as in mcd.csv (covMcd; crit is the
#                log-determinant of the raw h-subset covariance, best 1-based)
#   seeds        how many distinct best subsets set.seed(1..6) gave (1: exhaustive)
suppressPackageStartupMessages(library(robustbase))
out_dir <- dirname(sub("--file=", "", grep("--file=", commandArgs(), value = TRUE)[1]))
source(file.path(out_dir, "..", "rrcov_common.R"))
data_dir <- rrcov_data_dir(commandArgs(trailingOnly = TRUE))
cases <- list(c("starsCYG", 22), c("starsCYG", 16), c("hbk", 17), c("wood", 14), c("bushfire", 14))
rows <- list()
for (case in cases) {
    n <- as.integer(case[2])
    x <- read_table(data_dir, case[1])[seq_len(n), , drop = FALSE]
    for (a in c(0.5, 0.75)) {
        rows[[length(rows) + 1]] <- cbind(
            data.frame(table = case[1], n = n), mcd_reference(x, a, n_seeds = 6))
    }
}
write.csv(do.call(rbind, rows), file.path(out_dir, "mcd_exhaustive.csv"), row.names = FALSE)
