# Reference values of Hedges' g and its 95% noncentral-t interval from R's effectsize, for
# tests/test_task_table.py (issue 39, item 7).  Run from the repository root:
#     Rscript tests/reference/hedges_g_effectsize.R > tests/reference/hedges_g_effectsize.csv
# Written with R 4.2.2 and effectsize 0.8.3 (Debian's r-cran-effectsize), whose hedges_g() applies the exact
# small-sample correction J(df) = Gamma(df/2) / (sqrt(df/2) Gamma((df-1)/2)), df = n + m - 2, to the estimate
# and to both limits (R/cohens_d.R, `.J`, since effectsize 0.8.0).
suppressPackageStartupMessages(library(effectsize))

i20 <- 1:20
pairs <- list(
  "5" = list(x = c(3.1, 4.7, 5.2), y = c(1.0, 2.5)),
  "6" = list(x = c(0.2, 1.9, 2.4), y = c(-1.0, 0.3, 0.5)),
  "10" = list(x = c(10, 12.5, 11, 14, 13.2), y = c(9, 10.4, 8.8, 11.7, 10.1)),
  "40" = list(x = i20 / 3 + i20 %% 4, y = i20 / 4 + i20 %% 3)
)
cat(sprintf("# R %s, effectsize %s\n", getRversion(), packageVersion("effectsize")))
cat("n_total,hedges_g,ci_low,ci_high\n")
for (name in names(pairs)) {
  p <- pairs[[name]]
  g <- hedges_g(p$x, p$y, ci = 0.95, verbose = FALSE)
  cat(sprintf("%s,%.17g,%.17g,%.17g\n", name, g$Hedges_g, g$CI_low, g$CI_high))
}
