# Reference values for tests/test_skillings_mack.py (issue 41 item 3: Conover's all-pairs test after Friedman),
# written to tests/reference/conover_posthoc.csv by
#   Rscript tests/reference/conover_posthoc.R ../shared/data
# PMCMRplus::frdAllPairsConoverTest (PMCMRplus 1.9.10, installed from its CRAN sources with R CMD INSTALL) under
# every p.adjust.method it offers; the versions are printed at the end and in the CSV's "version" rows.
# Each case's scores are written too ("score" rows: agent_1 = agent, agent_2 = task, 17 significant digits), so the
# test reads the very numbers R ranked. PMCMRplus ranks ascending (rank 1 = smallest score): the statistic of a
# pair (agent_1, agent_2) is (R[agent_1] - R[agent_2]) / sqrt(A B), its pairwise.table's entry [agent_2, agent_1].
suppressPackageStartupMessages(library(PMCMRplus))
args <- commandArgs(trailingOnly = TRUE)
shared <- if (length(args)) args[1] else "../shared/data"
rows <- list()
add <- function(case, quantity, a1, a2, value) {
  rows[[length(rows) + 1]] <<- data.frame(case = case, quantity = quantity, agent_1 = a1, agent_2 = a2,
                                          value = sprintf("%.17g", value), stringsAsFactors = FALSE)
}
# ptukey(q, k, Inf) is accurate to about 1e-9 only (R's ?ptukey); the "p_range_integrate" rows evaluate the same
# tail, P(range of k standard normals > |q|) = k int phi(z) [Q(z)^(k-1) - (Q(z) - Q(z + |q|))^(k-1)] dz with Q the
# normal upper tail (the bracket factored), by integrate() on unit pieces of [-10, 10] at rel.tol 1e-13, as the
# tighter reference of the single-step p-values.
range_tail <- function(q, k) {
  if (!is.finite(q)) return(0)
  f <- function(z) {  # a^(k-1) - b^(k-1) = (a - b) sum_i a^i b^(k-2-i), without cancellation
    a <- pnorm(z, lower.tail = FALSE); gap <- pnorm(z + abs(q), lower.tail = FALSE); b <- a - gap
    dnorm(z) * gap * rowSums(sapply(0:(k - 2), function(i) a^i * b^(k - 2 - i)))
  }
  cuts <- seq(-10, 10, by = 1)  # the integrand is below 1e-22 outside [-10, 10]
  pieces <- mapply(function(a, b) integrate(f, a, b, rel.tol = 1e-13, abs.tol = 1e-20)$value, head(cuts, -1),
                   cuts[-1])
  min(1, k * sum(pieces))
}
methods <- c("single-step", "holm", "hochberg", "hommel", "bonferroni", "BH", "BY", "none")
conover_case <- function(case, y) {  # y: blocks (tasks) x agents
  for (i in seq_len(nrow(y))) for (j in seq_len(ncol(y))) add(case, "score", colnames(y)[j], rownames(y)[i], y[i, j])
  for (m in methods) {
    res <- frdAllPairsConoverTest(y, p.adjust.method = m)
    g <- colnames(y)
    for (a in 1:(length(g) - 1)) for (b in (a + 1):length(g)) {
      add(case, paste0("p_", m), g[a], g[b], res$p.value[g[b], g[a]])
      add(case, paste0("statistic_", m), g[a], g[b], res$statistic[g[b], g[a]])
      if (m == "single-step") add(case, "p_range_integrate", g[a], g[b], range_tail(res$statistic[g[b], g[a]], k = length(g)))
    }
  }
}
# Sachs (1997, p. 675), PMCMRplus's example data for Quade's test: 6 persons x 6 diuretics, no ties.
sachs <- matrix(c(3.88, 5.64, 5.76, 4.25, 5.91, 4.33, 30.58, 30.14, 16.92, 23.19, 26.74, 10.91, 25.24, 33.52,
                  25.45, 18.85, 20.45, 26.67, 4.44, 7.94, 4.04, 4.4, 4.23, 4.36, 29.41, 30.72, 32.92, 28.23,
                  23.35, 12, 38.87, 33.12, 39.15, 28.06, 38.23, 26.65),
                nrow = 6, ncol = 6, dimnames = list(paste0("p", 1:6), LETTERS[1:6]))
conover_case("sachs", sachs)
# R's ?friedman.test RoundingTimes, 22 players x 3 methods, ties within blocks; in hundredths as integers (rlstats
# ties scores within 1e-12 of the block's largest |score|; 5.55 - 5.40 and 5.60 - 5.45 differ in binary fractions).
rt <- matrix(c(5.40, 5.50, 5.55, 5.85, 5.70, 5.75, 5.20, 5.60, 5.50, 5.55, 5.50, 5.40, 5.90, 5.85, 5.70,
               5.45, 5.55, 5.60, 5.40, 5.40, 5.35, 5.45, 5.50, 5.35, 5.25, 5.15, 5.00, 5.85, 5.80, 5.70,
               5.25, 5.20, 5.10, 5.65, 5.55, 5.45, 5.60, 5.35, 5.45, 5.05, 5.00, 4.95, 5.50, 5.50, 5.40,
               5.45, 5.55, 5.50, 5.55, 5.55, 5.35, 5.45, 5.50, 5.55, 5.50, 5.45, 5.25, 5.65, 5.60, 5.40,
               5.70, 5.65, 5.55, 6.30, 6.30, 6.25), nrow = 22, byrow = TRUE,
             dimnames = list(paste0("player", 1:22), c("RoundOut", "NarrowAngle", "WideAngle")))
conover_case("rounding", round(rt * 100))
# Heavy ties: 4 agents x 9 tasks, integer scores 1..3 (some tasks tie three or four agents).
set.seed(41)
ties <- matrix(sample(1:3, 36, replace = TRUE), nrow = 9, dimnames = list(paste0("t", 1:9), paste0("a", 1:4)))
ties[9, ] <- 2  # one task ties every agent
conover_case("ties", ties)
# Eight agents on 12 tasks, scores rounded to one decimal (a few ties), agents shifted apart.
eight <- matrix(round(rnorm(96, mean = rep(seq(0, 1.4, by = 0.2), each = 12)), 1), nrow = 12,
                dimnames = list(paste0("task", 1:12), paste0("agent", 1:8)))
conover_case("eight", eight)
# Five agents on 4 tasks, every task ranking the agents alike: no residual, t = +-Inf and p = 0 (single-step too).
alike <- matrix(rep(c(1, 2, 3, 4, 5), each = 4) + rep(c(0, 10, 20, 30), 5), nrow = 4,
                dimnames = list(paste0("task", 1:4), paste0("agent", 1:5)))
conover_case("alike", alike)
# Atari 100k: human-normalised per-game means of the six agents with 100 runs per game (26 games).
d <- read.csv(file.path(shared, "atari100k.csv"))
ref <- read.csv(file.path(shared, "atari100k_reference.csv"))
d <- d[d$agent %in% c("CURL", "DER", "DrQ", "DrQ(eps)", "OTRainbow", "SPR"), ]
d <- merge(d, ref, by = "task"); d$hns <- (d$score - d$random) / (d$human - d$random)
m <- aggregate(hns ~ agent + task, d, mean)
atari <- xtabs(hns ~ task + agent, m)
atari <- matrix(atari, nrow = nrow(atari), dimnames = dimnames(atari))
conover_case("atari", atari)
out <- do.call(rbind, rows)
out <- rbind(out, data.frame(case = "", quantity = "version", agent_1 = c("R", "PMCMRplus"), agent_2 = "",
                             value = c(R.version.string, as.character(packageVersion("PMCMRplus")))))
write.csv(out, "tests/reference/conover_posthoc.csv", row.names = FALSE)
print(R.version.string)
print(packageVersion("PMCMRplus"))
