# Reference values for tests/test_audit_s24_realdata24.py (audit s24, realdata24): rlstats.mixed on human-normalised
# Atari 100k scores at 3 runs a cell, against lme4/lmerTest/pbkrtest/emmeans.  Produced with
#   Rscript tests/reference/mixed_realdata24_r.R ../shared/data tests/reference/mixed_realdata24_r.json
# where ../shared/data holds atari100k.csv and atari100k_reference.csv (the tidy published scores).  Each design is
# fitted by REML with tight optimiser tolerances (the REML optimum, which rlstats reports) and with lme4's defaults.
suppressPackageStartupMessages({library(lme4); library(lmerTest); library(pbkrtest); library(emmeans);
                                library(jsonlite)})
args <- commandArgs(trailingOnly = TRUE)
atari <- read.csv(file.path(args[1], "atari100k.csv"), colClasses = c(agent = "character", task = "character"))
ref <- read.csv(file.path(args[1], "atari100k_reference.csv"), colClasses = c(task = "character"))
atari <- merge(atari, ref, by = "task")
atari$score <- (atari$score - atari$random) / (atari$human - atari$random)
atari <- atari[atari$seed < 3, c("agent", "task", "seed", "score")]
tight <- lmerControl(optimizer = "nloptwrap", calc.derivs = FALSE,
                     optCtrl = list(xtol_abs = 1e-14, ftol_abs = 1e-15, xtol_rel = 1e-13, ftol_rel = 1e-15,
                                    maxeval = 1e5),
                     check.conv.singular = .makeCC(action = "ignore", tol = 1e-4))
quiet <- lmerControl(check.conv.singular = .makeCC(action = "ignore", tol = 1e-4))

designs <- list(
  # a singular fit: the task SD at 0 beside a task:agent SD of about 1.08
  singular = function(d) d[d$agent %in% c("DER", "DrQ", "SPR") & d$task %in% c("Pong", "Boxing", "Breakout"), ],
  # one agent missing a task (CURL on Pong), one cell with a single run (DER on Boxing)
  unbalanced = function(d) {
    d <- d[d$agent %in% c("CURL", "DER", "DrQ", "SPR") &
           d$task %in% c("Pong", "Breakout", "Boxing", "Freeway", "Seaquest", "Kangaroo"), ]
    d <- d[!(d$agent == "CURL" & d$task == "Pong"), ]
    d[!(d$agent == "DER" & d$task == "Boxing" & d$seed > 0), ]
  })

fit_numbers <- function(m) {
  vc <- as.data.frame(VarCorr(m))
  out <- list(vc_group = vc$grp, vc_sd = vc$sdcor, singular = isSingular(m), reml = unname(REMLcrit(m)))
  for (mode in c("satterthwaite", "kenward-roger")) {
    p <- as.data.frame(summary(pairs(emmeans(m, ~ agent, lmer.df = mode), reverse = FALSE),
                               infer = c(TRUE, TRUE), adjust = "tukey"))
    a <- anova(m, ddf = if (mode == "satterthwaite") "Satterthwaite" else "Kenward-Roger")
    out[[mode]] <- list(contrast = as.character(p$contrast), estimate = p$estimate, std_error = p$SE, df = p$df,
                        p_tukey = p$p.value, conf_low = p$lower.CL, conf_high = p$upper.CL,
                        f = a[["F value"]], den_df = a[["DenDF"]])
  }
  out
}

results <- list()
for (name in names(designs)) {
  d <- designs[[name]](atari)
  d$agent <- factor(d$agent, levels = sort(unique(d$agent), method = "radix"))
  d$task <- factor(d$task, levels = sort(unique(d$task), method = "radix"))
  f <- score ~ agent + (1 | task) + (1 | task:agent)
  results[[name]] <- list(nobs = nrow(d), tight = fit_numbers(lmer(f, data = d, REML = TRUE, control = tight)),
                          default = fit_numbers(lmer(f, data = d, REML = TRUE, control = quiet)))
}
versions <- list(R = R.version.string)
for (p in c("lme4", "lmerTest", "pbkrtest", "emmeans", "Matrix", "nloptr")) versions[[p]] <- as.character(packageVersion(p))
write_json(list(versions = versions, designs = results), args[2], digits = NA, auto_unbox = TRUE, pretty = TRUE)
