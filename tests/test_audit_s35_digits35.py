"""Audit s35 (digits35): every format printed a number to 5 significant digits (R's format(x, digits = 5)), so scores
shifted by 1e6 printed the bootstrap's agent_1 mean 1000015.133 [1000009.749, 1000021.904] as "1e+06 1e+06 1e+06",
LaTeX moved "estimate: 1e+06" to the caption, the task table read agent_1's task_01 mean 1000047.02 as "1000000 ± 9.4",
curves printed "1e+06 (1e+06 to 1e+06)" and the performance profile's note "tau span 1e+06 to 1e+06". Fixed at the one
home (format.level_digits): levels whose largest |value| reaches 1e5 print to the integer digits of the largest and
so that their smallest spread (down a column, or across a row: an interval's width) shows to 3 significant digits, at
most 15; every value below 1e5 prints as before (the recorded outputs unchanged).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats import format as fmt

F = "score ~ agent | task"


from test_audit_s34_meta34 import _runs  # noqa: E402  the unbalanced 3 x 5 runs meta34 sweeps (one home)


def _bootstrap(df):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return rlstats.bootstrap(df, F, metrics=("mean",), n_resamples=200, rng=1)


def _cells(result, agent="agent_1"):
    return next(line for line in str(result).splitlines() if line.startswith(agent)).split()[2:5]


def test_the_rule_keeps_five_digits_below_1e5_and_shows_the_spread_above():
    assert fmt.level_digits([[15.133, 9.749, 21.904]]) == 5
    assert fmt.level_digits([[99999.0, 99990.0]]) == 5  # below 1e5: R's 5 digits
    # 1e6: 7 integer digits; the interval's width 12.2 (1e1) shown to 3 digits: 6 - 1 + 3 = 8
    assert fmt.level_digits([[1000015.133, 1000009.749, 1000021.904]]) == 8
    assert fmt.level_digits([[1e6 + 15.133, 1e6 + 15.133]]) == 7  # no spread: the integer digits
    assert fmt.level_digits([[1e5, 2e6]]) == 5  # printed exactly at 5 digits (a count, a step): as before
    assert fmt.level_digits([[1e9, 1e9 + 1e-3]]) == 15  # at most 15
    assert fmt.signif_levels([1000000.0, 1000066.3], 3) == ["1000000", "1000066.3"]  # fixed, never 1e+06
    assert fmt.signif_levels([[2e6, 1000015.133, np.nan]], 3) == ["2000000", "1000015", "NaN"]


def test_a_table_below_1e5_prints_as_before():
    frame = pd.DataFrame({"agent": ["a", "b"], "estimate": [15.1333, 99999.4], "conf_low": [1.23456e-6, 0.5]})
    assert fmt.table_text(frame).splitlines()[1:] == ["a        15.133  1.2346e-06", "b         99999         0.5"]


@pytest.mark.parametrize("shift", [1e6, 1e9])
def test_a_shifted_bootstrap_prints_its_levels_apart(shift):
    plain, shifted = _bootstrap(_runs()), _bootstrap(_runs().assign(score=lambda d: d["score"] + shift))
    row = shifted.tidy().iloc[0]
    cells = [float(c) for c in _cells(shifted)]
    # measured unshifted: 15.133 [9.749, 21.904]; shifted, to 0.01 (the column's spread 1.6 at 3 digits)
    assert cells == pytest.approx([row["estimate"], row["conf_low"], row["conf_high"]], abs=0.006)
    assert np.subtract(cells, shift) == pytest.approx([float(c) for c in _cells(plain)], abs=0.02)
    latex, markdown, report = shifted.to_latex(), shifted.to_markdown(), shifted.report()
    assert "e+0" not in latex and "e+0" not in markdown and "e+0" not in report
    said = f"{shift + 15.13:.2f}"  # 1000015.13, 1000000015.13
    assert f"agent\\_1 & {said} & " in latex and f"| agent_1 | mean | {said} |" in markdown
    assert f"agent\\_1 {said} (" in report


def test_tiny_scores_keep_their_digits():
    plain, tiny = _bootstrap(_runs()), _bootstrap(_runs().assign(score=lambda d: d["score"] * 1e-6))
    assert _cells(tiny) == ["1.5133e-05", "9.749e-06", "2.1904e-05"]  # 15.133 [9.749, 21.904] x 1e-6, not 0
    assert _cells(plain) == ["15.133", "9.749", "21.904"]
    assert "agent\\_1 1.51e$-$05 (9.75e$-$06 to 2.19e$-$05)" in tiny.report()


def test_a_shifted_task_table_and_profile_read_their_means():
    df = _runs().assign(score=lambda d: d["score"] + 1e6)
    text = str(rlstats.task_table(df, F))
    assert "1000047.02 ± 9.4 †" in text and "*1000061.23 ± 5.6*" in text  # 47.02, 61.23 unshifted
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        profile = rlstats.performance_profile(df, F)
    assert "tau span 1000000 to 1000066.3" in profile.report()  # 0.0381 to 66.3 unshifted


def test_a_shifted_tuning_reads_its_scores():
    from conftest import lr_sweep
    df = lr_sweep(categorical=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        text = str(rlstats.tuning(df.assign(score=df["score"] + 1e6), "score ~ agent | task/seed", config="lr",
                                  n_resamples=100, rng=1))
    # unshifted: tuned score 1.5193 [-0.30836, 2.7977] (its own mean 1.5193); complete 0.3554 (no interval)
    # at its summary table's digits (audit s36 digits36; the line alone read 1000001.52 [999999.692, 1000002.8])
    assert "tuned score 1000001.519 [999999.6916, 1000002.798] (its own mean 1000001.519)" in text
    assert "ppo on ant: 1000000.355 (no interval" in text and "e+0" not in text
