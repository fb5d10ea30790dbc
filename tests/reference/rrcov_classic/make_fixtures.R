# Reference values of rrcov's PcaClassic diagnostics on the five rrcov tables.
#
# Run from the repository root (R >= 4 with rrcov; Debian: r-cran-rrcov):
#   Rscript tests/reference/rrcov_classic/make_fixtures.R [DATA_DIR]
# DATA_DIR defaults to ../shared/data/rrcov (or $ROBUSTPCA_DATA/rrcov). Writes, next to
# this script:
#   distances.csv  table, k, row (1-based), sd, od, flag (1 = regular, rrcov's @flag)
#   cutoffs.csv    table, k, cutoff_sd, cutoff_od (0 = no OD cutoff: k equals the rank),
#                  and the robust rules of rrcov's .crit.od applied to the same ODs:
#                  cutoff_od_medmad (median/MAD) and cutoff_od_skewed (medcouple fence)
#   auto_k.csv     table, k chosen by PcaClassic(k = 0) (default kmax = ncol)
#   predict.csv    table, k, row (1-based, every 4th row held out of the fit), the
#                  score distance and orthogonal distance of the held-out rows computed
#                  from predict(fit, newdata) with the fit's eigenvalues and centre, and
#                  the flag by the fit's cutoffs (rrcov's definitions applied to new data)
suppressPackageStartupMessages(library(rrcov))
out_dir <- dirname(sub("--file=", "", grep("--file=", commandArgs(), value = TRUE)[1]))
source(file.path(out_dir, "..", "rrcov_common.R"))
data_dir <- rrcov_data_dir(commandArgs(trailingOnly = TRUE))
ks <- list(hbk = 1:2, bushfire = 1:3, wood = 1:3, octane = 1:4, starsCYG = 1:2)
num <- function(x) sprintf("%.17g", x)
dist <- list(); cuts <- list(); auto <- list(); pred <- list()
for (name in names(ks)) {
    x <- read_table(data_dir, name)
    for (k in ks[[name]]) {
        fit <- PcaClassic(x, k = k)
        dist[[length(dist) + 1]] <- data.frame(
            table = name, k = k, row = seq_len(nrow(x)),
            sd = num(fit@sd), od = num(fit@od), flag = as.integer(fit@flag))
        robust <- if (fit@cutoff.od > 0) rrcov:::.crit.od(fit@od, method = "medmad") else 0
        skewed <- if (fit@cutoff.od > 0) rrcov:::.crit.od(fit@od, method = "skewed") else 0
        cuts[[length(cuts) + 1]] <- data.frame(
            table = name, k = k, cutoff_sd = num(fit@cutoff.sd), cutoff_od = num(fit@cutoff.od),
            cutoff_od_medmad = num(robust), cutoff_od_skewed = num(skewed))
    }
    auto[[length(auto) + 1]] <- data.frame(table = name, k = PcaClassic(x, k = 0)@k)
    held <- seq(4, nrow(x), by = 4)
    for (k in ks[[name]]) {
        fit <- PcaClassic(x[-held, , drop = FALSE], k = k)
        pred[[length(pred) + 1]] <- data.frame(
            table = name, k = k, held_out_distances(fit, x, held, k))
    }
}
write.csv(do.call(rbind, dist), file.path(out_dir, "distances.csv"), row.names = FALSE, quote = FALSE)
write.csv(do.call(rbind, cuts), file.path(out_dir, "cutoffs.csv"), row.names = FALSE, quote = FALSE)
write.csv(do.call(rbind, auto), file.path(out_dir, "auto_k.csv"), row.names = FALSE, quote = FALSE)
write.csv(do.call(rbind, pred), file.path(out_dir, "predict.csv"), row.names = FALSE, quote = FALSE)
cat("rrcov", as.character(packageVersion("rrcov")), "on", R.version.string, "\n")
