# Audit s34 (mixbal34): lmerTest's, pbkrtest's and emmeans' numbers on one data set of the unbalanced pattern
# eight_by_26 of coverage_mixed_unbalanced.py (8 agents x 26 tasks, 1 to 10 runs a cell, a fifth of the cells empty;
# skewed scores with task x agent intercepts; mixed_unbalanced34.csv, written by that script's simulate()).
# Run: Rscript tests/reference/mixed_unbalanced34_r.R  (lme4, lmerTest, pbkrtest, emmeans); output pinned in
# tests/test_audit_s34_mixbal34.py.
suppressMessages({library(lmerTest); library(emmeans)})
here <- function(f) file.path(dirname(sub("--file=", "", grep("--file=", commandArgs(FALSE), value = TRUE))), f)
d <- read.csv(here("mixed_unbalanced34.csv"))
d$agent <- factor(d$agent, levels = sort(unique(d$agent), method = "radix"))
m <- lmer(score ~ agent + (1 | task) + (1 | task:agent), data = d)
a <- anova(m); k <- anova(m, ddf = "Kenward-Roger")
K <- nlevels(d$agent); M <- diag(K); M[-1, 1] <- 1
U <- svd(diag(K) - 1 / K)$u[, 1:(K - 1)]
o <- contestMD(m, t(U) %*% M)
cat(sprintf("lmertest F %.10g df %.10g p %.10g\n", a$`F value`, a$DenDF, a$`Pr(>F)`))
cat(sprintf("orthonormal F %.10g df %.10g p %.10g\n", o$`F value`, o$DenDF, o$`Pr(>F)`))
cat(sprintf("kenward-roger F %.10g df %.10g p %.10g\n", k$`F value`, k$DenDF, k$`Pr(>F)`))
for (df in c("satterthwaite", "kenward-roger")) {
  emm_options(lmer.df = df)
  p <- as.data.frame(confint(pairs(emmeans(m, ~agent)), adjust = "tukey"))
  q <- as.data.frame(pairs(emmeans(m, ~agent)))
  for (i in c(1, 7, 28)) cat(sprintf("%s %s: est %.10g SE %.10g df %.10g p_adj %.10g low %.10g high %.10g\n", df,
                                     q$contrast[i], q$estimate[i], q$SE[i], q$df[i], q$p.value[i], p$lower.CL[i],
                                     p$upper.CL[i]))
}
