# Kenward-Roger's df on a singular fit count the zero component (tests/test_audit_s21_kr21.py, audit s21): on
# CURL and PlayVirtual, BankHeist, Kangaroo and PrivateEye, seeds 0-2 of Atari 100k, human-normalised (the
# design "atari_singular_2x3x3" of tests/reference/mixed_data.py), produced with
#   RLSTATS_DATA_MIRROR=../shared/data/raw python tests/reference/mixed_data.py /tmp/mixed_small --small
#   Rscript tests/reference/mixed_singular_dropped_r.R /tmp/mixed_small/atari_singular_2x3x3.csv
# the task:agent SD is estimated at 0 and the same REML criterion (30.79146) is reached without that term; with
# it pbkrtest gives the agent F test 2 denominator df (p 0.2595), without it 14 (p 0.1415), Satterthwaite's 14 both
# ways (R 4.2.2, lme4 1.1.31, lmerTest 3.1.3, pbkrtest 0.5.2).
suppressPackageStartupMessages({library(lme4); library(lmerTest); library(pbkrtest)})
d <- read.csv(commandArgs(trailingOnly = TRUE)[1], colClasses = c(agent = "character", task = "character"))
d$agent <- factor(d$agent); d$task <- factor(d$task)
quiet <- lmerControl(check.conv.singular = .makeCC(action = "ignore", tol = 1e-4))
with_term <- lmer(score ~ agent + (1 | task) + (1 | task:agent), data = d, REML = TRUE, control = quiet)
without <- lmer(score ~ agent + (1 | task), data = d, REML = TRUE, control = quiet)
for (m in list(with_term, without)) {
  cat(deparse(formula(m)), " REML criterion", format(REMLcrit(m), digits = 10), "\n")
  for (ddf in c("Kenward-Roger", "Satterthwaite")) {
    a <- anova(m, ddf = ddf)
    cat(sprintf("  %-14s F %.6f  df %g, %.6f  p %.6f\n", ddf, a[["F value"]], a[["NumDF"]], a[["DenDF"]],
                a[["Pr(>F)"]]))
  }
}
