# Reference values of the equivalence tests (TOST) of rlstats.equivalence from base R's t.test, for
# tests/test_equivalence.py (issue 41 item 2). Run from the repository root:
#     Rscript tests/reference/tost_r.R > tests/reference/tost_r.csv
# TOST is two one-sided t tests (Schuirmann 1987), as TOSTER's t_TOST computes them: H0 delta <= -m is
# t.test(x, y, alternative = "greater", mu = -m), H0 delta >= m is t.test(..., alternative = "less", mu = m), and the
# deciding interval is t.test(..., conf.level = 1 - 2 alpha)'s. Per task: Welch's t.test of the two agents' runs;
# across tasks, "paired_t": the one-sample t.test of the task-level differences of means; "welch": the mean over tasks
# of those differences with se sqrt(sum_t (s_1t^2 / n_1t + s_2t^2 / n_2t)) / T on Welch-Satterthwaite df (pt, qt).
# The data are the formula below, written the same way in tests/test_equivalence.py.
m <- 1.2
alpha <- 0.05
agents <- c("A", "B", "C")
shift <- c(A = 0, B = 0.4, C = 1.5)
runs <- list(A = c(5, 4, 6, 3), B = c(4, 6, 3, 5), C = c(6, 3, 4, 4))
score <- function(a, t, r) {
  k <- match(a, agents) - 1
  2 * t + shift[[a]] + ((r * 7 + t * 3 + k * 5) %% 11 - 5) / 4 + 0.1 * sqrt(r + t) * (1 + k)
}
cells <- function(a, t) sapply(seq_len(runs[[a]][t]), function(r) score(a, t, r))
cat(sprintf("# R %s, stats %s\n", getRversion(), packageVersion("stats")))
cat("scope,agent_1,agent_2,task,estimate,df,conf_low,conf_high,p_lower,p_upper\n")
row <- function(scope, a, b, task, est, df, ci, pl, pu) {
  cat(sprintf("%s,%s,%s,%s,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n", scope, a, b, task, est, df, ci[1], ci[2], pl, pu))
}
for (i in 1:2) for (j in (i + 1):3) {
  a <- agents[i]; b <- agents[j]
  d <- numeric(4); v1 <- numeric(4); v2 <- numeric(4); n1 <- numeric(4); n2 <- numeric(4)
  for (t in 1:4) {
    x <- cells(a, t); y <- cells(b, t)
    two <- t.test(x, y, conf.level = 1 - 2 * alpha)
    pl <- t.test(x, y, alternative = "greater", mu = -m)$p.value
    pu <- t.test(x, y, alternative = "less", mu = m)$p.value
    row("task", a, b, sprintf("t%d", t), mean(x) - mean(y), two$parameter, two$conf.int, pl, pu)
    d[t] <- mean(x) - mean(y); v1[t] <- var(x) / length(x); v2[t] <- var(y) / length(y)
    n1[t] <- length(x); n2[t] <- length(y)
  }
  one <- t.test(d, conf.level = 1 - 2 * alpha)
  row("paired_t", a, b, "", mean(d), one$parameter, one$conf.int,
      t.test(d, alternative = "greater", mu = -m)$p.value, t.test(d, alternative = "less", mu = m)$p.value)
  se <- sqrt(sum(v1 + v2)) / 4
  df <- sum(v1 + v2)^2 / sum(v1^2 / (n1 - 1) + v2^2 / (n2 - 1))
  est <- mean(d)
  half <- qt(1 - alpha, df) * se
  row("welch", a, b, "", est, df, c(est - half, est + half), pt((est + m) / se, df, lower.tail = FALSE),
      pt((est - m) / se, df))
}
