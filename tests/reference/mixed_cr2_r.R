# Reference values for the mixed model's cluster-robust pairwise contrasts (rlstats.mixed(contrast_se="cr2")):
# clubSandwich's CR2 covariance clustered by task on the lme4 fit, and its Satterthwaite df (linear_contrast).
#   Rscript tests/reference/mixed_cr2_r.R > tests/reference/mixed_cr2_r.json
suppressMessages({library(lme4); library(clubSandwich); library(jsonlite)})

one <- function(d, formula) {
  f <- lmer(formula, data = d, REML = TRUE)
  V <- vcovCR(f, type = "CR2", cluster = d$task)
  k <- nlevels(d$agent)
  pairs <- t(combn(k, 2))
  means <- cbind(1, diag(k)[, -1, drop = FALSE])          # each agent's mean: intercept + its effect
  C <- means[pairs[, 1], , drop = FALSE] - means[pairs[, 2], , drop = FALSE]
  out <- linear_contrast(f, vcov = V, contrasts = C, test = "Satterthwaite")
  list(data = d, estimate = out$Est, std_error = out$SE, df = out$df,
       versions = list(R = as.character(getRversion()), lme4 = as.character(packageVersion("lme4")),
                       clubSandwich = as.character(packageVersion("clubSandwich"))))
}

set.seed(40)
# balanced, capped at 1: agents near the cap vary less
d <- expand.grid(seed = 1:3, agent = factor(paste0("a", 1:3)), task = factor(paste0("t", 1:5)))
d$score <- pmin(rnorm(5)[d$task] + c(0, 0.3, 0.8)[d$agent] + rnorm(nrow(d)) * c(1, 2, 0.5)[d$agent], 1)
# unbalanced: 4 agents on 6 tasks, a fifth of the runs missing, tasks on different scales
u <- expand.grid(seed = 1:4, agent = factor(paste0("a", 1:4)), task = factor(paste0("t", 1:6)))
u$score <- rnorm(6)[u$task] + c(0, 0.5, 1, 0.2)[u$agent] + rnorm(nrow(u)) * exp(rnorm(6, 0, 0.5))[u$task]
u <- u[-sample(nrow(u), nrow(u) %/% 5), ]
u$agent <- droplevels(u$agent)
f2 <- score ~ agent + (1 | task) + (1 | task:agent)
cat(toJSON(list(balanced_capped = one(d, f2), unbalanced = one(u, f2)), digits = NA, auto_unbox = TRUE,
           pretty = TRUE), "\n")
