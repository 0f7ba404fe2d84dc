# Reference values for tests/test_audit_s32_rhabit32.py (audit s32 rhabit32): emmeans' adjustments of the pairwise
# contrasts of an lmer fit, each adjust= that rlstats.mixed takes beside tukey/holm/none, on one small design built
# here from a closed formula (4 agents x 5 tasks x 3 seeds; no random numbers), written with the data into
#   Rscript tests/reference/mixed_adjust_r.R tests/reference/mixed_adjust_r.json
# Fitted by REML with tight tolerances (as mixed_r.R's "tight" fits), Satterthwaite df.  emmeans gives Bonferroni's
# intervals beside the p.adjust methods' p-values (holm, hochberg, BH, BY, hommel), and its message says so.
suppressPackageStartupMessages({library(lme4); library(lmerTest); library(emmeans); library(jsonlite)})
args <- commandArgs(trailingOnly = TRUE)
emm_options(lmerTest.limit = 1e6)
tight <- lmerControl(optimizer = "nloptwrap", calc.derivs = FALSE,
                     optCtrl = list(xtol_abs = 1e-14, ftol_abs = 1e-15, xtol_rel = 1e-13, ftol_rel = 1e-15,
                                    maxeval = 1e5))
d <- expand.grid(seed = 1:3, task = paste0("t", 1:5), agent = paste0("a", 1:4), stringsAsFactors = FALSE)
i <- seq_len(nrow(d))
a <- as.integer(substr(d$agent, 2, 2)); t <- as.integer(substr(d$task, 2, 2))
d$score <- 0.3 * a + 0.7 * t + 1.5 * sin(3.1 * a * t) + sin(1.7 * i) + 0.5 * cos(0.9 * i + t)
m <- lmer(score ~ agent + (1 | task) + (1 | task:agent), data = d, control = tight)
p <- pairs(emmeans(m, ~ agent, lmer.df = "satterthwaite"), reverse = FALSE)
out <- list(versions = list(R = R.version.string, lme4 = as.character(packageVersion("lme4")),
                            lmerTest = as.character(packageVersion("lmerTest")),
                            emmeans = as.character(packageVersion("emmeans"))),
            data = d[, c("agent", "task", "seed", "score")], singular = isSingular(m))
for (adj in c("none", "tukey", "holm", "bonferroni", "sidak", "scheffe", "hochberg", "hommel", "BH", "BY", "mvt")) {
  s <- summary(p, infer = c(TRUE, TRUE), adjust = adj)
  out[[adj]] <- list(contrast = as.character(s$contrast), estimate = s$estimate, std_error = s$SE, df = s$df,
                     statistic = s$t.ratio, p_value = s$p.value, conf_low = s$lower.CL, conf_high = s$upper.CL,
                     message = attr(s, "mesg"))
}
writeLines(toJSON(out, digits = NA, auto_unbox = TRUE, pretty = TRUE), args[1])
