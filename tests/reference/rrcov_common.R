# Shared by the R scripts of rrcov_classic, rrcov_robust and rrcov_synthetic (each
# sources it from next to its own folder).

# The folder of the rrcov tables: the script's first argument, else $ROBUSTPCA_DATA/rrcov,
# else ../shared/data/rrcov.
rrcov_data_dir <- function(args) {
    if (length(args) >= 1) return(args[1])
    env <- Sys.getenv("ROBUSTPCA_DATA")
    if (nzchar(env)) file.path(env, "rrcov") else "../shared/data/rrcov"
}

# One table's explanatory variables: octane.csv also holds the octane number y in its
# first column, which rrcov's own examples drop (octane[, -1], man/octane.Rd).
read_table <- function(data_dir, name) {
    x <- as.matrix(read.csv(file.path(data_dir, paste0(name, ".csv"))))
    x[, colnames(x) != "y", drop = FALSE]
}

# The held-out rows x[held, ] under a fit made without them: their score and orthogonal
# distances from rrcov's predict() with the fit's eigenvalues and centre, and their flag
# by the fit's cutoffs (1 = regular), i.e. rrcov's definitions applied to new data.
# Columns row (1-based), sd, od (17 significant digits), flag.
held_out_distances <- function(fit, x, held, k) {
    scores <- predict(fit, newdata = x[held, , drop = FALSE])[, 1:k, drop = FALSE]
    sd <- sqrt(mahalanobis(scores, rep(0, k), diag(fit@eigenvalues, ncol = k)))
    centred <- sweep(x[held, , drop = FALSE], 2, fit@center)
    od <- sqrt(rowSums((centred - scores %*% t(fit@loadings))^2))
    regular <- sd <= fit@cutoff.sd
    if (fit@cutoff.od > 0) regular <- regular & od <= fit@cutoff.od
    data.frame(
        row = held, sd = sprintf("%.17g", sd), od = sprintf("%.17g", od),
        flag = as.integer(regular))
}

# One row of a fits.csv: rrcov's fit `fit` of data set `table` by `method` at `k`
# (columns described in rrcov_robust/make_fixtures.R).
fit_row <- function(method, table, k, fit) {
    num <- function(x) paste(sprintf("%.17g", x), collapse = ";")
    data.frame(
        method = method, table = table, k = k, k_fitted = fit@k,
        eigenvalues = num(fit@eigenvalues), center = num(fit@center),
        loadings = num(fit@loadings), cutoff_sd = num(fit@cutoff.sd),
        cutoff_od = num(fit@cutoff.od),
        flags = paste(which(!fit@flag), collapse = ";"),
        sd = num(fit@sd), od = num(fit@od))
}

# robustbase's covMcd(x, alpha) under set.seed(1), as the columns alpha, h, crit (the
# log-determinant of the raw h-subset's covariance), best (1-based), center, cov, raw_cov,
# and seeds: how many distinct best subsets set.seed(1..n_seeds) give (1: a settled search).
mcd_reference <- function(x, alpha, n_seeds) {
    num <- function(v) paste(sprintf("%.17g", v), collapse = ";")
    bests <- sapply(seq_len(n_seeds), function(s) {
        set.seed(s)
        paste(robustbase::covMcd(x, alpha = alpha)$best, collapse = ";")
    })
    set.seed(1)
    m <- robustbase::covMcd(x, alpha = alpha)
    data.frame(
        alpha = alpha, h = m$quan, crit = num(m$crit), best = paste(m$best, collapse = ";"),
        center = num(m$center), cov = num(m$cov), raw_cov = num(m$raw.cov),
        seeds = length(unique(bests)))
}

# The matrix `name` of a NumPy .npz file (ADBench's tables: X as uint8, int16, int64 or
# float64).
read_npz_matrix <- function(path, name = "X") {
    dir <- tempfile()
    utils::unzip(path, files = paste0(name, ".npy"), exdir = dir)
    con <- file(file.path(dir, paste0(name, ".npy")), "rb")
    on.exit(close(con))
    readBin(con, "raw", 6)  # the magic string
    version <- readBin(con, "integer", 2, size = 1)
    header_length <- if (version[1] == 1) {
        readBin(con, "integer", 1, size = 2, signed = FALSE, endian = "little")
    } else {
        readBin(con, "integer", 1, size = 4, endian = "little")
    }
    header <- rawToChar(readBin(con, "raw", header_length))
    descr <- sub(".*'descr': *'([^']*)'.*", "\\1", header)
    shape <- as.integer(strsplit(sub(".*'shape': *\\(([^)]*)\\).*", "\\1", header), ", *")[[1]])
    count <- prod(shape)
    values <- switch(descr,
        "|u1" = readBin(con, "integer", count, size = 1, signed = FALSE),
        "<i2" = readBin(con, "integer", count, size = 2, endian = "little"),
        "<i8" = readBin(con, "integer", count, size = 8, endian = "little"),
        "<f8" = readBin(con, "double", count, size = 8, endian = "little"),
        stop("unsupported dtype ", descr))
    matrix(values, nrow = shape[1], ncol = shape[2],
           byrow = !grepl("'fortran_order': *True", header))
}
