"""Audit s29 (mends29): the items session 28's reviewers found and left, each checked real before it was mended.

1. curves(): the statistic whose calibration rows the default bands' notes quote (``calibration.quoted_kinds``) was
   chosen among the agents of the design's fewest runs in a task, while the rows were read at the fewest runs of a
   task logged at a step with a band (audit s28 early28). A (6 runs a task, every score below gamma = 1: the mean's
   bands reflected) and B (10 runs, 5 of which end after step 1; a score above gamma: the gap's own bands): the rows
   were read at B's 5 runs but chosen at A's 6, so the note read the mean's rows (silent at 5 runs x 2 tasks) for B's
   bands, the gap's own, which no simulation measured. Now chosen and read at the same count (the fewest logged).
"""

import numpy as np
import pandas as pd

import rlstats


# ------------------------------------------------------------------ 1. the rows chosen at the count they are read at

def _early_gap_frame():
    """A: 6 runs x 2 tasks x 4 steps, every score below gamma = 1; B: 10 runs, runs 5-9 logged at steps 0-1 only,
    scores above gamma at step 0 alone (so B keeps the gap's own bands, and its bands at steps 2-3 rest on 5 runs)."""
    rng = np.random.default_rng(5)
    rows = []
    for agent, n, top in (("A", 6, 0.9), ("B", 10, 1.3)):
        for t in range(2):
            for r in range(n):
                for s in range(4):
                    if agent == "B" and r >= 5 and s >= 2:
                        continue
                    rows.append({"agent": agent, "task": f"t{t}", "seed": r, "step": s,
                                 "score": (top if s == 0 else 0.9) - rng.lognormal(-1.0, 0.6)})
    return pd.DataFrame(rows)


def test_rows_chosen_at_the_fewest_runs_logged():
    df = _early_gap_frame()
    assert df[(df.agent == "B") & (df.step == 0)].score.max() > 1 >= df[df.agent == "A"].score.max()
    res = rlstats.curves(df, "score ~ agent | task/seed", step="step", statistic="optimality_gap", gamma=1.0,
                         n_resamples=200, rng=1, progress=False, normalize=False)
    # the design: A's fewest 6, B's 10 but 5 logged at steps 2-3, where B's bands are given
    np.testing.assert_array_equal(res.fewest_logged, [[6, 6, 6, 6], [10, 10, 5, 5]])
    assert np.isfinite(res.pointwise[1, 2:]).all()
    assert any(n.startswith("every score of A logged at the grid steps is at or below gamma") for n in res.notes)
    # the rows read are those of 5 runs, B's alone: B's bands are the gap's own, which have no rows of their own
    # (the table's gap rows are all of agents below gamma), so the note says they were not measured
    assert "the bands of the optimality gap have not been measured by simulation" in res.notes
