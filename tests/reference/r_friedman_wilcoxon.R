# Reference values for tests/test_skillings_mack.py (issue 15: Friedman parity, Wilcoxon post hoc), produced with
#   Rscript tests/reference/r_friedman_wilcoxon.R
# R version 4.2.2 Patched (2022-11-10 r83330), Debian bookworm package r-base-core, no add-on packages.
# PMCMRplus is not installable offline; its frdAllPairsNemenyiTest p-values are computed below with the
# formula of PMCMRplus 1.9.10 (mean within-block ranks, q = |diff| / sqrt(k (k + 1) / (6 n)),
# p = ptukey(sqrt(2) q, k, Inf, lower.tail = FALSE)).
options(digits = 10)
# Hollander & Wolfe (1973) p. 140ff., R's ?friedman.test example: 22 players x 3 methods of rounding first base.
RoundingTimes <- matrix(c(5.40, 5.50, 5.55, 5.85, 5.70, 5.75, 5.20, 5.60, 5.50, 5.55, 5.50, 5.40,
                          5.90, 5.85, 5.70, 5.45, 5.55, 5.60, 5.40, 5.40, 5.35, 5.45, 5.50, 5.35,
                          5.25, 5.15, 5.00, 5.85, 5.80, 5.70, 5.25, 5.20, 5.10, 5.65, 5.55, 5.45,
                          5.60, 5.35, 5.45, 5.05, 5.00, 4.95, 5.50, 5.50, 5.40, 5.45, 5.55, 5.50,
                          5.55, 5.55, 5.35, 5.45, 5.50, 5.55, 5.50, 5.45, 5.25, 5.65, 5.60, 5.40,
                          5.70, 5.65, 5.55, 6.30, 6.30, 6.25),
                        nrow = 22, byrow = TRUE,
                        dimnames = list(1:22, c("RoundOut", "NarrowAngle", "WideAngle")))
long <- data.frame(score = as.vector(t(RoundingTimes)), agent = rep(colnames(RoundingTimes), 22),
                   task = rep(1:22, each = 3))
ft <- friedman.test(score ~ agent | task, data = long)
print(ft)
cat("statistic", ft$statistic, "p", ft$p.value, "\n")
nemenyi <- function(y) {
  r <- t(apply(y, 1, rank)); n <- nrow(y); k <- ncol(y); m <- colMeans(r)
  for (i in 1:(k - 1)) for (j in (i + 1):k) {
    q <- abs(m[i] - m[j]) / sqrt(k * (k + 1) / (6 * n))
    cat("nemenyi", colnames(y)[i], colnames(y)[j], ptukey(sqrt(2) * q, k, Inf, lower.tail = FALSE), "\n")
  }
}
nemenyi(RoundingTimes)
# Wilcoxon signed-rank post hoc (ties and zeros: normal approximation with continuity correction).
pw <- suppressWarnings(pairwise.wilcox.test(long$score, long$agent, paired = TRUE, p.adjust.method = "holm"))
print(pw$p.value)
pw0 <- suppressWarnings(pairwise.wilcox.test(long$score, long$agent, paired = TRUE, p.adjust.method = "none"))
print(pw0$p.value)
w <- suppressWarnings(wilcox.test(RoundingTimes[, "NarrowAngle"], RoundingTimes[, "RoundOut"], paired = TRUE))
cat("wilcox NarrowAngle-RoundOut V", w$statistic, "p", w$p.value, "\n")
# Spec skillings_mack.md §10.2 (b): complete, 4 agents x 10 tasks, no ties (exact signed-rank p-values).
b <- matrix(c(5.021, 8.692, 11.177, 5.818, 29.582, 41.828, 26.432, 40.298, -46.426, -35.309, -35.831, -14.765,
              -101.734, -81.347, -77.492, -75.928, -70.635, -45.854, -35.952, -29.334,
              -114.466, -98.942, -98.95, -92.253, 16.623, 2.939, 15.689, 29.858, 128.186, 137.905, 145.126, 149.659,
              -61.471, -43.459, -25.632, -49.692, -53.454, -55.854, -58.462, -27.043),
            nrow = 10, byrow = TRUE, dimnames = list(paste0("task0", 0:9), paste0("agent", LETTERS[1:4])))
lb <- data.frame(score = as.vector(t(b)), agent = rep(colnames(b), 10), task = rep(rownames(b), each = 4))
print(friedman.test(score ~ agent | task, data = lb))
pwb <- pairwise.wilcox.test(lb$score, lb$agent, paired = TRUE, p.adjust.method = "holm")
print(pwb$p.value)
for (i in 1:3) for (j in (i + 1):4) {
  w <- wilcox.test(b[, i], b[, j], paired = TRUE)
  cat("wilcox", colnames(b)[i], colnames(b)[j], "V", w$statistic, "p", w$p.value, "\n")
}
