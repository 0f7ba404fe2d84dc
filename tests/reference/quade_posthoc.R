# Reference values for tests/test_skillings_mack.py (issue 31: Quade's test, its post hoc, many-to-one and exact
# rank-sum comparisons, Wilcoxon's V), written to tests/reference/quade_posthoc.csv by
#   Rscript tests/reference/quade_posthoc.R ../shared/data
# R version 4.2.2 Patched (2022-11-10 r83330), Debian bookworm r-base-core, no add-on packages.
# PMCMRplus is not installable offline: the post hoc p-values below are evaluated in base R from the published
# formulas -- quadeAllPairsTest (dist = "TDist"; Conover 1999, Section 5.8: t = (S_i - S_j) / sqrt(2 b (A - B) /
# ((b - 1)(k - 1))) on (b - 1)(k - 1) df), frdManyOneDemsarTest (z = (Rbar_j - Rbar_c) / sqrt(k (k + 1) / (6 n))),
# and frdAllPairsExactTest (Eisinga et al. 2017, eq. 5's closed form for P(D >= d), in double precision, which is
# exact enough for the small designs it is used on here).
args <- commandArgs(trailingOnly = TRUE)
shared <- if (length(args)) args[1] else "../shared/data"
out <- data.frame(case = character(), quantity = character(), agent_1 = character(), agent_2 = character(),
                  value = numeric(), stringsAsFactors = FALSE)
add <- function(case, quantity, value, a1 = "", a2 = "") {
  out[nrow(out) + 1, ] <<- list(case, quantity, a1, a2, value)
}
# Quade's test and Conover's all-pairs t, from a matrix (blocks x agents).
quade_case <- function(case, y) {
  q <- quade.test(y)
  add(case, "F", q$statistic); add(case, "df1", q$parameter[1]); add(case, "df2", q$parameter[2])
  add(case, "p", q$p.value)
  k <- ncol(y); b <- nrow(y)
  r <- t(apply(y, 1L, rank)); qq <- rank(apply(y, 1, function(u) max(u) - min(u)))
  s <- qq * (r - (k + 1) / 2); A <- sum(s^2); S <- colSums(s); B <- sum(S^2) / b
  denom <- sqrt(2 * b * (A - B) / ((b - 1) * (k - 1)))
  p <- c(); t <- c(); who <- list()
  for (i in 1:(k - 1)) for (j in (i + 1):k) {
    t <- c(t, (S[i] - S[j]) / denom); p <- c(p, 2 * pt(abs((S[i] - S[j]) / denom), (b - 1) * (k - 1), lower.tail = FALSE))
    who[[length(who) + 1]] <- colnames(y)[c(i, j)]
  }
  holm <- p.adjust(p, "holm")
  for (m in seq_along(p)) {
    add(case, "quade_t", t[m], who[[m]][1], who[[m]][2]); add(case, "quade_p", p[m], who[[m]][1], who[[m]][2])
    add(case, "quade_p_holm", holm[m], who[[m]][1], who[[m]][2])
  }
}
# Eisinga et al. (2017) eq. 5: P(D >= d) for d > 0, k agents, n blocks (two-sided, folded).
pexact <- function(d, k, n) {
  if (d == 0) return(1)
  total <- 0
  for (h in 0:n) {
    inner <- 0
    for (s in 0:h) if (k * s - d - h >= 0)
      inner <- inner + (-1)^s * choose(2 * h, h + s) * choose(k * s - d + h, k * s - d - h)
    total <- total + choose(n, h) / (k^h * (1 - k)^n) * inner
  }
  2 * total
}
# Friedman-type many-to-one and exact comparisons, ranks with 1 = largest score (as rlstats' default direction).
friedman_case <- function(case, y, control) {
  r <- t(apply(-y, 1L, rank)); k <- ncol(y); n <- nrow(y); R <- colSums(r)
  others <- setdiff(colnames(y), control)
  z <- (colMeans(r)[others] - colMeans(r)[control]) / sqrt(k * (k + 1) / (6 * n))
  pz <- 2 * pnorm(abs(z), lower.tail = FALSE)
  pe <- sapply(abs(R[others] - R[control]), pexact, k = k, n = n)
  for (m in seq_along(others)) {
    add(case, "dunn_z", z[m], others[m], control); add(case, "dunn_p", pz[m], others[m], control)
    add(case, "exact_d", R[others[m]] - R[control], others[m], control)
    add(case, "exact_p", pe[m], others[m], control)
  }
  ph <- p.adjust(pz, "holm"); eh <- p.adjust(pe, "holm")
  for (m in seq_along(others)) {
    add(case, "dunn_p_holm", ph[m], others[m], control); add(case, "exact_p_holm", eh[m], others[m], control)
  }
  pa <- c(); who <- list()
  for (i in 1:(k - 1)) for (j in (i + 1):k) {
    pa <- c(pa, pexact(abs(R[i] - R[j]), k, n)); who[[length(who) + 1]] <- colnames(y)[c(i, j)]
  }
  ah <- p.adjust(pa, "holm")
  for (m in seq_along(pa)) {
    add(case, "exact_all_p", pa[m], who[[m]][1], who[[m]][2])
    add(case, "exact_all_p_holm", ah[m], who[[m]][1], who[[m]][2])
  }
}
# Sachs (1997, p. 675), the example of PMCMRplus::quadeAllPairsTest: six persons x six diuretics.
sachs <- matrix(c(3.88, 5.64, 5.76, 4.25, 5.91, 4.33, 30.58, 30.14, 16.92, 23.19, 26.74, 10.91, 25.24, 33.52,
                  25.45, 18.85, 20.45, 26.67, 4.44, 7.94, 4.04, 4.4, 4.23, 4.36, 29.41, 30.72, 32.92, 28.23,
                  23.35, 12, 38.87, 33.12, 39.15, 28.06, 38.23, 26.65),
                nrow = 6, ncol = 6, dimnames = list(1:6, LETTERS[1:6]))
quade_case("sachs", sachs)
friedman_case("sachs", sachs, "C")
# R's ?friedman.test RoundingTimes (ties within blocks).
rt <- matrix(c(5.40, 5.50, 5.55, 5.85, 5.70, 5.75, 5.20, 5.60, 5.50, 5.55, 5.50, 5.40, 5.90, 5.85, 5.70,
               5.45, 5.55, 5.60, 5.40, 5.40, 5.35, 5.45, 5.50, 5.35, 5.25, 5.15, 5.00, 5.85, 5.80, 5.70,
               5.25, 5.20, 5.10, 5.65, 5.55, 5.45, 5.60, 5.35, 5.45, 5.05, 5.00, 4.95, 5.50, 5.50, 5.40,
               5.45, 5.55, 5.50, 5.55, 5.55, 5.35, 5.45, 5.50, 5.55, 5.50, 5.45, 5.25, 5.65, 5.60, 5.40,
               5.70, 5.65, 5.55, 6.30, 6.30, 6.25), nrow = 22, byrow = TRUE,
             dimnames = list(1:22, c("RoundOut", "NarrowAngle", "WideAngle")))
# In hundredths, as integers: differences such as 5.55 - 5.40 and 5.60 - 5.45 are then equal, as they are in the
# data, not 1e-16 apart as in binary fractions; rlstats ties scores (and ranges) within 1e-12 of the block's
# largest |value| (issue 39), and Quade's F and t do not change with the units.
quade_case("rounding", round(rt * 100))
# Atari 100k, human-normalised per-game means of the nine agents (the issue's F 13.301, p 2.327e-15).
d <- read.csv(file.path(shared, "atari100k.csv")); ref <- read.csv(file.path(shared, "atari100k_reference.csv"))
d <- merge(d, ref, by = "task"); d$hns <- (d$score - d$random) / (d$human - d$random)
m <- aggregate(hns ~ agent + task, d, mean)
atari <- xtabs(hns ~ task + agent, m)
atari <- matrix(atari, nrow = nrow(atari), dimnames = dimnames(atari))
quade_case("atari", atari)
dunn <- atari  # many-to-one with normal z against SPR (the exact closed form needs more precision at n = 26)
r <- t(apply(-dunn, 1L, rank)); k <- ncol(dunn); n <- nrow(dunn); others <- setdiff(colnames(dunn), "SPR")
z <- (colMeans(r)[others] - colMeans(r)["SPR"]) / sqrt(k * (k + 1) / (6 * n))
pz <- p.adjust(2 * pnorm(abs(z), lower.tail = FALSE), "holm")
for (o in others) {
  add("atari", "dunn_z", z[o], o, "SPR"); add("atari", "dunn_p_holm", pz[o], o, "SPR")
  w <- wilcox.test(atari[, o], atari[, "SPR"], paired = TRUE)
  add("atari", "wilcox_V", w$statistic, o, "SPR"); add("atari", "wilcox_p", w$p.value, o, "SPR")
}
# pairwise.wilcox.test orients each pair as (later level, earlier level): its V for (SPR, DER) is 351 - 42.
add("atari", "wilcox_V_reversed", wilcox.test(atari[, "SPR"], atari[, "DER"], paired = TRUE)$statistic, "SPR", "DER")
write.csv(out, "tests/reference/quade_posthoc.csv", row.names = FALSE)
options(digits = 17)
print(R.version.string)
