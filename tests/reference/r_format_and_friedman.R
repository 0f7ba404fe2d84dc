# Reference values for tests/test_format.py and tests/test_skillings_mack.py, produced with
#   Rscript tests/reference/r_format_and_friedman.R
# R version 4.2.2 Patched (2022-11-10 r83330), Debian bookworm package r-base-core,, no add-on packages.
for (v in c(5.333333333, 12, 15.4930487975, 2977.30712, 123456.7, 0.0001, -0.55555, 0, 1e5))
  cat(format(v, digits = 5), "\n")
for (v in c(1.737935948866618e-10, 0.0014402963, 0.06948, 0.007383160505, 2.5e-05))
  cat(format(v, digits = 4), "\n")
cat(format.pval(1e-30, digits = 4), "\n")
# Spec skillings_mack.md §10.2 (d): complete design with ties; R applies its tie correction.
d <- data.frame(
  task = rep(paste0("g", 0:7), each = 4),
  agent = rep(c("agentA", "agentB", "agentC", "agentD"), 8),
  score = c(10, 10, 12, 9, 5, 7, 7, 7, 0, 0, 0, 1, 3, 4, 4, 6, 8, 8, 9, 9, 2, 1, 2, 3, 11, 13, 13, 12, 4, 4, 5, 4))
print(friedman.test(score ~ agent | task, data = d))
