# Reference values for tests/test_mixed.py (issue 31 item 1: rlstats.mixed against lme4, lmerTest, pbkrtest and
# emmeans), produced with
#   RLSTATS_DATA_MIRROR=../shared/data/raw python tests/reference/mixed_data.py /tmp/mixed_data
#       (the designs as CSV: the simulated ones, and Atari 100k's when its pinned files load offline)
#   Rscript tests/reference/mixed_r.R /tmp/mixed_data tests/reference/mixed_r.json
# and the published designs with unequal run counts (session 19) with
#   python tests/reference/mixed_data.py /tmp/mixed_real --real
#   Rscript tests/reference/mixed_r.R /tmp/mixed_real tests/reference/mixed_real_r.json
# and two agents on three games at 3 runs, a singular fit and a control (audit s21), with
#   python tests/reference/mixed_data.py /tmp/mixed_small --small
#   Rscript tests/reference/mixed_r.R /tmp/mixed_small tests/reference/mixed_small_r.json
# Versions are written into the JSON ("versions").  Each design is fitted by REML twice: with lme4's default
# optimiser settings ("default": the numbers an R user sees) and with tight tolerances ("tight": the REML optimum
# to ~1e-10, which the tests compare against).  Cells with several runs get random task:agent intercepts, as
# rlstats.mixed does:  score ~ agent + (1 | task) + (1 | task:agent); otherwise score ~ agent + (1 | task).
# Kenward-Roger is skipped above 3000 rows (pbkrtest forms the dense n x n inverse covariance).
suppressPackageStartupMessages({library(lme4); library(lmerTest); library(pbkrtest); library(emmeans);
                                library(jsonlite)})
args <- commandArgs(trailingOnly = TRUE)
indir <- args[1]
out <- args[2]
emm_options(lmerTest.limit = 1e6, pbkrtest.limit = 3000)
tight <- lmerControl(optimizer = "nloptwrap", calc.derivs = FALSE,
                     optCtrl = list(xtol_abs = 1e-14, ftol_abs = 1e-15, xtol_rel = 1e-13, ftol_rel = 1e-15,
                                    maxeval = 1e5),
                     check.conv.singular = .makeCC(action = "ignore", tol = 1e-4))
quiet <- lmerControl(check.conv.singular = .makeCC(action = "ignore", tol = 1e-4))

coef_table <- function(m, ddf) {
  s <- summary(m, ddf = ddf)$coefficients
  list(term = rownames(s), estimate = unname(s[, "Estimate"]), std_error = unname(s[, "Std. Error"]),
       df = unname(s[, "df"]), statistic = unname(s[, "t value"]), p_value = unname(s[, "Pr(>|t|)"]))
}

emm_tables <- function(m, mode) {
  e <- emmeans(m, ~ agent, lmer.df = mode)
  es <- as.data.frame(summary(e, infer = c(TRUE, FALSE)))
  p <- pairs(e, reverse = FALSE)
  tukey <- as.data.frame(summary(p, infer = c(TRUE, TRUE), adjust = "tukey"))
  holm <- as.data.frame(summary(p, infer = c(TRUE, TRUE), adjust = "holm"))
  none <- as.data.frame(summary(p, infer = c(TRUE, TRUE), adjust = "none"))
  list(emmeans = list(agent = as.character(es$agent), estimate = es$emmean, std_error = es$SE, df = es$df,
                      conf_low = es$lower.CL, conf_high = es$upper.CL),
       contrasts = list(contrast = as.character(tukey$contrast), estimate = tukey$estimate,
                        std_error = tukey$SE, df = tukey$df, statistic = tukey$t.ratio,
                        p_none = none$p.value, p_tukey = tukey$p.value, p_holm = holm$p.value,
                        tukey_low = tukey$lower.CL, tukey_high = tukey$upper.CL,
                        holm_low = holm$lower.CL, holm_high = holm$upper.CL))
}

anova_table <- function(m, ddf) {
  a <- anova(m, ddf = ddf)
  list(statistic = a[["F value"]], num_df = a[["NumDF"]], den_df = a[["DenDF"]], p_value = a[["Pr(>F)"]])
}

fit_summary <- function(m) {
  vc <- as.data.frame(VarCorr(m))
  list(theta = unname(getME(m, "theta")), sigma = sigma(m), reml = unname(REMLcrit(m)),
       vc_group = vc$grp, vc_sd = vc$sdcor, singular = isSingular(m),
       coef_satterthwaite = coef_table(m, "Satterthwaite"))
}

results <- list()
for (file in sort(list.files(indir, pattern = "\\.csv$", full.names = TRUE))) {
  name <- sub("\\.csv$", "", basename(file))
  d <- read.csv(file, colClasses = c(agent = "character", task = "character"))
  # levels in code-point order, as rlstats sorts them (R's locale order puts "SimPLe" before "SPR")
  d$agent <- factor(d$agent, levels = sort(unique(d$agent), method = "radix"))
  d$task <- factor(d$task, levels = sort(unique(d$task), method = "radix"))
  replicated <- max(table(d$task, d$agent)) > 1
  f <- if (replicated) score ~ agent + (1 | task) + (1 | task:agent) else score ~ agent + (1 | task)
  t0 <- proc.time()[["elapsed"]]
  m <- lmer(f, data = d, REML = TRUE, control = tight)
  seconds <- proc.time()[["elapsed"]] - t0
  m_default <- lmer(f, data = d, REML = TRUE, control = quiet)
  r <- fit_summary(m)
  r$formula <- deparse(f)
  r$nobs <- nrow(d)
  r$seconds_tight_fit <- seconds
  r$default <- fit_summary(m_default)
  r$satterthwaite <- c(emm_tables(m, "satterthwaite"), list(anova = anova_table(m, "Satterthwaite")))
  if (nrow(d) <= 3000) {
    r$coef_kenward_roger <- coef_table(m, "Kenward-Roger")
    r$kenward_roger <- c(emm_tables(m, "kenward-roger"), list(anova = anova_table(m, "Kenward-Roger")))
  }
  results[[name]] <- r
  cat(name, "done in", seconds, "s\n")
}
versions <- list(R = R.version.string)
for (p in c("lme4", "lmerTest", "pbkrtest", "emmeans", "Matrix", "nloptr")) versions[[p]] <- as.character(packageVersion(p))
writeLines(toJSON(list(versions = versions, designs = results), digits = NA, auto_unbox = TRUE, pretty = TRUE), out)
