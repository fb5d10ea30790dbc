# robustbase's MCD at alpha = 1 (h = n): the classical mean and covariance are the raw
# estimates, then reweighted as at any alpha (covMcd's "h == n" branch). Run from the
# repository root (R >= 4 with robustbase; Debian: r-cran-robustbase):
#   Rscript tests/reference/rrcov_robust/make_mcd_alpha_one.R [rrcov data folder]
# Writes mcd_alpha_one.csv next to this script, one row per table (the tables of mcd.csv,
# and each one's first column as "table:1"): table, h, center, cov, raw_center, raw_cov
# (";"-separated, row-major). No random search at h = n: no seed matters.
suppressPackageStartupMessages(library(robustbase))
out_dir <- dirname(sub("--file=", "", grep("--file=", commandArgs(), value = TRUE)[1]))
source(file.path(out_dir, "..", "rrcov_common.R"))
data_dir <- rrcov_data_dir(commandArgs(trailingOnly = TRUE))
num <- function(x) paste(sprintf("%.17g", x), collapse = ";")
rows <- list()
for (name in c("hbk", "bushfire", "wood", "starsCYG")) {
    x <- read_table(data_dir, name)
    for (table in c(name, paste0(name, ":1"))) {
        y <- if (table == name) x else x[, 1, drop = FALSE]
        m <- covMcd(y, alpha = 1)
        rows[[length(rows) + 1]] <- data.frame(
            table = table, h = m$quan, center = num(m$center), cov = num(m$cov),
            raw_center = num(m$raw.center), raw_cov = num(m$raw.cov))
    }
}
write.csv(do.call(rbind, rows), file.path(out_dir, "mcd_alpha_one.csv"), row.names = FALSE)
