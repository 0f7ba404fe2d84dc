# Reference values for tests/test_audit_s25_real25b.py (audit s25, real25b): rlstats.mixed on the MuJoCo batches
# of the AdaStop paper (unbalanced: 5 to 30 runs a cell) and on all of Atari 100k, human-normalised (9 agents x 26
# games, 5 to 100 runs a cell; Satterthwaite only: pbkrtest's Kenward-Roger on 16,250 runs needs n x n matrices),
# against lme4/lmerTest/pbkrtest/emmeans.  Produced with
#   Rscript tests/reference/mixed_mujoco_real25b_r.R ../shared/data tests/reference/mixed_mujoco_real25b_r.json
# where ../shared/data holds mujoco_batches.csv, atari100k.csv and atari100k_reference.csv (the tidy published
# scores; never copied here).  Each design is
# fitted by REML with tight optimiser tolerances (the REML optimum, which rlstats reports).
suppressPackageStartupMessages({library(lme4); library(lmerTest); library(pbkrtest); library(emmeans);
                                library(jsonlite)})
args <- commandArgs(trailingOnly = TRUE)
mj <- read.csv(file.path(args[1], "mujoco_batches.csv"), colClasses = c(agent = "character", task = "character"))
tight <- lmerControl(optimizer = "nloptwrap", calc.derivs = FALSE,
                     optCtrl = list(xtol_abs = 1e-14, ftol_abs = 1e-15, xtol_rel = 1e-13, ftol_rel = 1e-15,
                                    maxeval = 1e5),
                     check.conv.singular = .makeCC(action = "ignore", tol = 1e-4))
atari <- read.csv(file.path(args[1], "atari100k.csv"), colClasses = c(agent = "character", task = "character"))
ref <- read.csv(file.path(args[1], "atari100k_reference.csv"), colClasses = c(task = "character"))
atari <- merge(atari, ref, by = "task")
atari$score <- (atari$score - atari$random) / (atari$human - atari$random)
designs <- list(
  # all 415 runs: 4 agents x 5 tasks, 5 to 30 runs a cell
  all = function(d) d,
  # the first two batches only (5 or 10 runs a cell) and SAC left out of halfcheetah: a missing cell
  early = function(d) {
    d <- d[d$batch <= 2, ]
    d[!(d$agent == "SAC" & d$task == "halfcheetah"), ]
  },
  # the first batch (5 runs a cell), SAC's halfcheetah and ant cells and PPO's walker cell left out
  missing3 = function(d) {
    d <- d[d$batch == 1, ]
    d[!(d$agent == "SAC" & d$task %in% c("halfcheetah", "ant")) & !(d$agent == "PPO" & d$task == "walker"), ]
  })
out <- list(versions = list(R = R.version.string, lme4 = as.character(packageVersion("lme4")),
                            lmerTest = as.character(packageVersion("lmerTest")),
                            pbkrtest = as.character(packageVersion("pbkrtest")),
                            emmeans = as.character(packageVersion("emmeans"))))
designs$atari <- function(d) atari[, c("agent", "task", "seed", "score")]
for (name in names(designs)) {
  d <- designs[[name]](mj)
  # the agents in rlstats' order (byte order: SPR before SimPLe), not the locale's: lmerTest's F denominator df
  # depends on the order of the levels (its contrast basis, the Doolittle factor of X'X; 190.575 in the locale's
  # order against 190.589 in byte order on Atari 100k), while the F, the pairs and their df do not
  d$agent <- factor(d$agent, levels = sort(unique(d$agent), method = "radix"))
  m <- lmer(score ~ agent + (1 | task) + (1 | task:agent), data = d, REML = TRUE, control = tight)
  vc <- as.data.frame(VarCorr(m))
  res <- list(n = nrow(d), vc_group = vc$grp, vc_sd = vc$sdcor, reml = unname(REMLcrit(m)),
              fixef = unname(fixef(m)))
  for (mode in if (name == "atari") "satterthwaite" else c("satterthwaite", "kenward-roger")) {
    p <- as.data.frame(summary(pairs(emmeans(m, ~ agent, lmer.df = mode, lmerTest.limit = 2e4, pbkrtest.limit = 2e4),
                                     reverse = FALSE),
                               infer = c(TRUE, TRUE), adjust = "tukey"))
    e <- as.data.frame(summary(emmeans(m, ~ agent, lmer.df = mode, lmerTest.limit = 2e4, pbkrtest.limit = 2e4),
                               infer = c(TRUE, TRUE)))
    a <- anova(m, ddf = if (mode == "satterthwaite") "Satterthwaite" else "Kenward-Roger")
    res[[mode]] <- list(contrast = as.character(p$contrast), estimate = p$estimate, std_error = p$SE, df = p$df,
                        p_tukey = p$p.value, conf_low = p$lower.CL, conf_high = p$upper.CL,
                        emmean = e$emmean, emmean_se = e$SE, emmean_df = e$df,
                        f = a[["F value"]], den_df = a[["DenDF"]], f_p = a[["Pr(>F)"]])
  }
  out[[name]] <- res
}
write_json(out, args[2], digits = NA, auto_unbox = TRUE, pretty = TRUE)
