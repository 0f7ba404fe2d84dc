# Audit s35 (mixed35): lmerTest's F of the agents with ddf = "Satterthwaite" and "Kenward-Roger" on two data sets whose
# task:agent SD is estimated at 0 (mixed_boundary35.csv, drawn by size_mixed_boundary.py: agents alike, no task x agent
# term; 2 agents x 3 tasks x 10 runs normal, 3 agents x 10 tasks x 3 runs skewed).
# Run: Rscript tests/reference/mixed_boundary35_r.R > tests/reference/mixed_boundary35_r.out (lme4, lmerTest,
# pbkrtest); read by tests/test_audit_s35_mixed35.py.
suppressMessages({library(lmerTest)})
here <- function(f) file.path(dirname(sub("--file=", "", grep("--file=", commandArgs(FALSE), value = TRUE))), f)
all <- read.csv(here("mixed_boundary35.csv"))
for (name in unique(all$design)) {
  d <- all[all$design == name, ]
  d$agent <- factor(d$agent); d$task <- factor(d$task)
  m <- suppressMessages(lmer(score ~ agent + (1 | task) + (1 | task:agent), data = d))
  s <- anova(m); k <- anova(m, ddf = "Kenward-Roger")
  cat(sprintf("%s theta_cell %.6g satterthwaite F %.10g df %.10g p %.10g kenward-roger F %.10g df %.10g p %.10g\n",
              name, getME(m, "theta")[["task:agent.(Intercept)"]], s$`F value`, s$DenDF, s$`Pr(>F)`,
              k$`F value`, k$DenDF, k$`Pr(>F)`))
}
