"""Audit s21 (review21d): how often the signed-rank model reads 'practically equivalent' (P(rope) >= 0.95) at
2 tasks x 3 runs with the true mean difference on the ROPE's edge (0.5, half a noise unit), a design below the
smallest of the bayes.decision rows (5 tasks). Printed: 11 / 60 (0.18; the 5-task rows read 0.025-0.063 at 3 runs).
Run: PYTHONPATH=. python tests/reference/bayes_decision_two_tasks.py"""

import pathlib
import sys
import warnings

import numpy as np

import rlstats

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
from test_audit_s21_bayescal21b import _frame  # noqa: E402

warnings.simplefilter("ignore")
rng = np.random.default_rng(21)
hits, n = 0, 60
for i in range(n):
    x = 0.5 + rng.normal(0.0, 1.0, size=(2, 3))
    res = rlstats.bayes(_frame(x), "score ~ agent | task/seed", rope=0.5, rng=i, progress=False)
    hits += bool(res.comparisons["p_rope"].iloc[0] >= 0.95)
print("2 tasks x 3 runs, delta = rope: read 'practically equivalent' in", hits, "/", n)
