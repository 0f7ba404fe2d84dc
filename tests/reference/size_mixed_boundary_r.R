# Audit s35 (mixed35): is Kenward-Roger's conservatism without task x agent variance pbkrtest's own, or ours?
# R draws its own data sets (agents alike, task intercepts sd 1, no task x agent term, normal runs sd 1) on three
# balanced designs RL has and counts how often lmerTest's anova() rejects at 0.05 with ddf = "Satterthwaite" and
# ddf = "Kenward-Roger", overall and where the task:agent SD is estimated at 0 (theta < 1e-4, lme4's singular rule).
# Run: Rscript tests/reference/size_mixed_boundary_r.R [n_sim]  (lme4, lmerTest, pbkrtest); output pinned in
# tests/reference/size_mixed_boundary_r.out and quoted in tests/test_audit_s35_mixed35.py.
suppressMessages({library(lmerTest)})
args <- commandArgs(TRUE)
n_sim <- if (length(args)) as.integer(args[1]) else 400
set.seed(35)
designs <- list(c(2, 3, 10), c(3, 5, 5), c(8, 3, 3), c(3, 10, 3))
for (d in designs) {
  A <- d[1]; Tk <- d[2]; R <- d[3]
  g <- expand.grid(run = seq_len(R), agent = factor(paste0("a", seq_len(A))), task = factor(paste0("t", seq_len(Tk))))
  out <- matrix(NA, n_sim, 3)
  for (i in seq_len(n_sim)) {
    g$score <- rnorm(Tk)[as.integer(g$task)] + rnorm(nrow(g))
    m <- suppressMessages(lmer(score ~ agent + (1 | task) + (1 | task:agent), data = g))
    th <- getME(m, "theta")[["task:agent.(Intercept)"]]
    s <- anova(m)$`Pr(>F)`; k <- anova(m, ddf = "Kenward-Roger")$`Pr(>F)`
    out[i, ] <- c(th < 1e-4, s <= 0.05, k <= 0.05)
  }
  b <- out[, 1] == 1
  cat(sprintf("%d agents x %d tasks x %d runs: n %d at_boundary %.4f sat %.4f kr %.4f sat_boundary %.4f kr_boundary %.4f sat_inside %.4f kr_inside %.4f\n",
              A, Tk, R, n_sim, mean(b), mean(out[, 2]), mean(out[, 3]), mean(out[b, 2]), mean(out[b, 3]),
              mean(out[!b, 2]), mean(out[!b, 3])))
}
