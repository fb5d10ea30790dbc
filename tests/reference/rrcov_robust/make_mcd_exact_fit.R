# robustbase's MCD where more than h rows lie on a hyperplane (its exact fit,
# "on.hyperplane"): the raw estimates of every row on the hyperplane, which are its
# weights. Run from the repository root (R >= 4 with robustbase; Debian:
# r-cran-robustbase):
#   Rscript tests/reference/rrcov_robust/make_mcd_exact_fit.R [ADBENCH_DIR]
# ADBENCH_DIR defaults to $ROBUSTPCA_DATA/adbench, else ../shared/data/adbench. Writes
# mcd_exact_fit.csv next to this script, one row per (table, alpha):
#   table      "4_breastw" (ADBench's X of 4_breastw.npz, 683 x 9 integer scores),
#              "15_Hepatitis" (its X, 80 x 19), "plane" (set.seed(7): 300 x 4 normal
#              values rounded to 6 digits, the fourth column 0 on the first 240 rows)
#              or "two_planes" (set.seed(8): the same, with the first column 0 on rows
#              1-180 and the third 5 on rows 121-300); their values, row-major, in x
#   alpha, h   covMcd's alpha and h
#   kind       covMcd's singularity kind ("on.hyperplane")
#   weights    1-based rows of weight 1 (those on the hyperplane)
#   center, cov                  covMcd under set.seed(1)
#   seeds      how many distinct (weights, center) set.seed(1..4) gave (1: the same
#              hyperplane whatever the starts)
suppressPackageStartupMessages(library(robustbase))
out_dir <- dirname(sub("--file=", "", grep("--file=", commandArgs(), value = TRUE)[1]))
source(file.path(out_dir, "..", "rrcov_common.R"))
args <- commandArgs(trailingOnly = TRUE)
adbench <- if (length(args) >= 1) args[1] else {
    env <- Sys.getenv("ROBUSTPCA_DATA")
    if (nzchar(env)) file.path(env, "adbench") else "../shared/data/adbench"
}
num <- function(v) paste(sprintf("%.17g", v), collapse = ";")
exact_fit <- function(table, x, alpha, stored = "") {
    fits <- lapply(1:4, function(s) {
        set.seed(s)
        suppressWarnings(covMcd(x, alpha = alpha))
    })
    keys <- sapply(fits, function(m) paste(c(which(m$mcd.wt == 1), m$center), collapse = ";"))
    m <- fits[[1]]
    data.frame(
        table = table, alpha = alpha, h = m$quan, kind = m$singularity$kind,
        weights = paste(which(m$mcd.wt == 1), collapse = ";"), center = num(m$center),
        cov = num(m$cov), seeds = length(unique(keys)), x = stored)
}
rows <- list()
x <- read_npz_matrix(file.path(adbench, "4_breastw.npz"))
rows[[1]] <- exact_fit("4_breastw", x, 0.75)
set.seed(7)
plane <- matrix(round(rnorm(300 * 4), 6), 300, 4)
plane[1:240, 4] <- 0
rows[[2]] <- exact_fit("plane", plane, 0.5, num(t(plane)))
rows[[3]] <- exact_fit("plane", plane, 0.75)
# two coordinate hyperplanes, each with more than h rows: covMcd's check before its
# search (exact-fit code 3) takes the first column's, whatever the seed
set.seed(8)
planes <- matrix(round(rnorm(300 * 4), 6), 300, 4)
planes[1:180, 1] <- 0
planes[121:300, 3] <- 5
rows[[4]] <- exact_fit("two_planes", planes, 0.5, num(t(planes)))
# ADBench's Hepatitis (80 x 19): several columns hold h equal values; the second's
rows[[5]] <- exact_fit("15_Hepatitis", read_npz_matrix(file.path(adbench, "15_Hepatitis.npz")), 0.5)
write.csv(do.call(rbind, rows), file.path(out_dir, "mcd_exact_fit.csv"), row.names = FALSE)
