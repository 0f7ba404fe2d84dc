# Audit s33 (mixed33): lmerTest's Satterthwaite F of the agents on an unbalanced design (mixed_relabel33.csv:
# 4 agents x 6 Atari 100k tasks, CURL and DER never on a common task) for three orders of the agent factor's
# levels, Kenward-Roger's F, and a balanced design where every basis gives one df; then the one-run design
# (mixed_onerun33.csv: NEW has one run) with emmeans' pairs under both df methods and lme4's ranef.
# Run: Rscript tests/reference/mixed_relabel33_r.R  (lme4, lmerTest, pbkrtest, emmeans); output pinned in
# tests/test_audit_s33_mixed33.py.
suppressMessages({library(lmerTest); library(emmeans)})
here <- function(f) file.path(dirname(sub("--file=", "", grep("--file=", commandArgs(FALSE), value = TRUE))), f)
d <- read.csv(here("mixed_relabel33.csv"))
for (lv in list(c("CURL", "DER", "DrQ", "SPR"), c("CURL", "DrQ", "SPR", "DER"), c("CURL", "DER", "SPR", "DrQ"))) {
  d$agent <- factor(d$agent, levels = lv)
  m <- lmer(score ~ agent + (1 | task) + (1 | task:agent), data = d)
  a <- anova(m); k <- anova(m, ddf = "Kenward-Roger")
  cat(sprintf("order %s: sat F %.10g df %.10g p %.10g | KR F %.10g df %.10g p %.10g\n", paste(lv, collapse = ","),
              a$`F value`, a$DenDF, a$`Pr(>F)`, k$`F value`, k$DenDF, k$`Pr(>F)`))
}
# the orthonormal basis of the agents' mean contrasts (rlstats' default f_basis), mapped onto lmer's treatment-coded
# coefficients (mu = M beta), through lmerTest's own contestMD: one df in every order
for (lv in list(c("CURL", "DER", "DrQ", "SPR"), c("CURL", "DrQ", "SPR", "DER"), c("CURL", "DER", "SPR", "DrQ"))) {
  d$agent <- factor(d$agent, levels = lv)
  m <- lmer(score ~ agent + (1 | task) + (1 | task:agent), data = d)
  k <- nlevels(d$agent); M <- diag(k); M[-1, 1] <- 1
  U <- svd(diag(k) - 1 / k)$u[, 1:(k - 1)]
  o <- contestMD(m, t(U) %*% M)
  cat(sprintf("orthonormal %s: sat F %.10g df %.10g p %.10g\n", paste(lv, collapse = ","), o$`F value`, o$DenDF,
              o$`Pr(>F)`))
}
# balanced: the same design's tasks where CURL, DrQ and SPR all ran, one run each of DrQ's seed 0
b <- d[d$task %in% c("Alien", "Amidar", "Assault") & d$agent %in% c("CURL", "DrQ", "SPR") & d$seed == 0, ]
b <- rbind(b, transform(b, score = score * 1.1 + 0.01, seed = 1))
for (lv in list(c("CURL", "DrQ", "SPR"), c("SPR", "DrQ", "CURL"))) {
  b$agent <- factor(b$agent, levels = lv)
  m <- lmer(score ~ agent + (1 | task) + (1 | task:agent), data = b); a <- anova(m)
  cat(sprintf("balanced %s: sat F %.10g df %.10g p %.10g\n", paste(lv, collapse = ","), a$`F value`, a$DenDF,
              a$`Pr(>F)`))
}
o <- read.csv(here("mixed_onerun33.csv")); o$agent <- factor(o$agent, levels = sort(unique(o$agent), method = "radix"))
m <- lmer(score ~ agent + (1 | task), data = o)
for (df in c("kenward-roger", "satterthwaite")) {
  emm_options(lmer.df = df); p <- as.data.frame(pairs(emmeans(m, ~agent)))
  cat(sprintf("onerun %s DrQ - NEW: est %.10g SE %.10g df %.10g p_adj %.10g\n", df, p$estimate[8], p$SE[8], p$df[8],
              p$p.value[8]))
}
r <- ranef(m)$task
cat("onerun ranef task:", sprintf("%s=%.10g", rownames(r), r[, 1]), "\n")
