"""Audit s30 (rfix30a): a review of the session's changes.

1. performance_profile(kind="tasks", task_bootstrap=True)'s band withheld below 5 tasks said "task_bootstrap=False
   gives the bands of these tasks (interval='t': ...)", but task_bootstrap=False alone gives the skew-corrected t
   band, withheld there too: only interval='t' gives bands.
2. _population_tasks_bounds' docstring (and tboot30's test) quoted 0.13 at 26 tasks of 3 runs; the table has 0.10.
3. task_bootstrap's docstring quoted "measured 0.23-0.28" at the 10% and 90% points: true of the 10% point only.
4. calibration's module docstring described bootstrap.profile_population as kind="runs" only.
5. The AdaStop MuJoCo vignette's "0.068 to 0.110 in the adastop.fwe_spread rows where every agent is identical" is
   true of the normal rows that can reject only.
6. The result re-derived Holm's levels from its spending table (a float sum): the back end now stores them
   (``holm_levels``, :func:`kernels.spendable_level`'s Fraction sums) and the result reads them.
7. The vocabulary's level_spent: "the level the test can actually spend" is, under holm with J > 1, the level of a
   comparison tested at alpha (c = 1).
"""
import pathlib
import re
import warnings

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats.methods.bootstrap import _api as boot_api

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _flat(text):
    """Docstring or comment text as one line: its line breaks, indents and comment marks read as one space."""
    return re.sub(r"\s+", " ", re.sub(r"^\s*# ?", "", text, flags=re.M))


def _profile(**options):
    df = rlstats.datasets.simulate(agents=2, tasks=3, seeds=3, rng=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return rlstats.performance_profile(df, "score ~ agent | task", kind="tasks", normalize=False, **options)


def test_the_withheld_task_band_advises_what_gives_bands():
    """2 agents x 3 tasks x 3 runs: the wilson_tasks band is withheld (NaN, fewer than 5 tasks); the note's advice,
    run as written, gives bands; task_bootstrap=False alone gives the skew-corrected t band, withheld too."""
    withheld = _profile(task_bootstrap=True)
    assert withheld.interval == "wilson_tasks" and np.isnan(withheld.intervals).all()
    note = next(n for n in withheld.notes if "withheld" in n)
    assert ("task_bootstrap=False, interval='t' gives the bands of these tasks (Student t bands, which hold their "
            "level for normal runs; task_bootstrap=False alone gives the skew-corrected t band, withheld as this "
            "one); add tasks to speak of tasks in general") in note
    advised = _profile(task_bootstrap=False, interval="t")
    assert advised.interval == "t" and not np.isnan(advised.intervals).any()
    alone = _profile(task_bootstrap=False)
    assert alone.interval == "skew_t" and np.isnan(alone.intervals).all()


def _population_rows():
    table = pd.read_csv(ROOT / "rlstats" / "calibration.csv")
    rows = table[(table["procedure"] == "bootstrap.profile_population") & (table["interval"] == "percentile")
                 & (table["metric"] == "tasks")]
    return rows.assign(point=rows["configuration"].str[-4:], sd=rows["configuration"].str.split(",").str[0])


def test_the_docstrings_quote_the_tables_least_coverage_at_26_tasks():
    rows = _population_rows()
    least = rows[(rows["tasks"] == 26) & (rows["runs"] == 3)].sort_values("coverage").iloc[0]
    assert (round(least["coverage"], 2), least["distribution"], least["configuration"]) == (
        0.10, "skewed", "run sd 2, profile 0.90")
    assert "it held as little as 0.10 at 26 tasks of 3 runs" in _flat(boot_api._population_tasks_bounds.__doc__)
    assert "and 0.10 at 26 (3 runs, skewed task means" in _flat(rlstats.performance_profile.__doc__)
    tboot30 = (ROOT / "tests" / "test_audit_s30_tboot30.py").read_text(encoding="utf-8")
    assert "as little as 0.10 (26" in _flat(tboot30) and "0.13" not in tboot30


def test_task_bootstraps_docstring_quotes_each_points_rows():
    """At 2 tasks with runs' sd 0.3 times the task means': the 10% point 0.226-0.278, the 90% point 0.249-0.294
    (normal) and 0.423-0.519 (skewed); skewed at the 90% point 0.951-0.976 from 10 tasks."""
    rows = _population_rows()
    two = rows[(rows["tasks"] == 2) & (rows["sd"] == "run sd 0.3")]

    def span(frame):
        return round(frame["coverage"].min(), 2), round(frame["coverage"].max(), 2)

    assert span(two[two["point"] == "0.10"]) == (0.23, 0.28)
    ninety = two[two["point"] == "0.90"]
    assert span(ninety[ninety["distribution"] == "normal"]) == (0.25, 0.29)
    assert span(ninety[ninety["distribution"] == "skewed"]) == (0.42, 0.52)
    ten = rows[(rows["tasks"] >= 10) & (rows["sd"] == "run sd 0.3") & (rows["point"] == "0.90")
               & (rows["distribution"] == "skewed")]
    assert span(ten) == (0.95, 0.98)
    doc = _flat(rlstats.performance_profile.__doc__)
    assert ("Measured at 2 tasks with runs' sd 0.3 times the tasks': 0.23-0.28 at the 10% point, at the 90% point "
            "0.25-0.29 for normal and 0.42-0.52 for skewed task means (skewed: 0.95-0.98 from 10 tasks there).") in doc
    assert "measured 0.23-0.28 with runs' sd 0.3" not in doc


def test_the_calibration_module_names_both_kinds_of_population_rows():
    table = rlstats.calibration_table("bootstrap.profile_population")
    assert set(table["metric"]) == {"runs", "tasks"}
    doc = _flat(rlstats.calibration.__doc__)
    assert ("``bootstrap.profile_population`` (a band of ``performance_profile(task_bootstrap=True)`` holds the "
            "profile of the population of tasks at one threshold; ``metric`` the profile's ``kind``: ``runs``") in doc
    assert "``tasks`` (the fraction of its tasks whose mean is above it, audit s30)" in doc


def test_the_mujoco_vignette_quotes_the_rows_of_identical_agents():
    table = pd.read_csv(ROOT / "rlstats" / "calibration.csv")
    rows = table[(table["procedure"] == "adastop.fwe_spread") & (table["interval"] == "pairwise")
                 & table["configuration"].str.endswith(",ratio=1")]
    rows = rows.assign(fwe=(1 - rows["coverage"]).round(3))
    cannot = (rows["agents"] == 4) & (rows["runs"] == 3) & (rows["configuration"] == "K=1,ratio=1")
    normal = rows[(rows["distribution"] == "normal") & ~cannot]["fwe"]
    assert (len(normal), normal.min(), normal.max()) == (7, 0.068, 0.110)
    assert rows[cannot]["fwe"].tolist() == [0.0]
    assert sorted(rows[rows["distribution"] == "skewed"]["fwe"]) == [0.037, 0.040]
    text = _flat((ROOT / "vignettes" / "adastop_mujoco.py").read_text(encoding="utf-8"))
    assert ("0.068 to 0.110 in the 7 `adastop.fwe_spread` rows of `calibration_table()` where every agent is "
            "identical and normal and the test can reject (see `adastop`'s Notes; 0 at 4 agents x 3 runs with one "
            "interim, where no comparison can be rejected, and 0.037 and 0.040 with skewed scores)") in text


def _three():
    df = rlstats.datasets.simulate(agents=3, tasks=1, seeds=10, effect=[0.0, 0.0, 2.0], rng=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return rlstats.adastop(df, "score ~ agent", n=5, K=2, n_resamples=200, rng=0, progress=False)


def test_the_back_end_stores_holms_levels_and_level_spent_is_the_c1_level():
    """3 agents, n = 5, K = 2, 200 paths (holm30's case): Holm's first step spends alpha / 3 on 1 of the 126 classes
    and 1 of 200 paths, 1/126 + 1/200 each; two comparisons rejected, c = 1, whose level is alpha's grid, 3/126 +
    5/200 = 0.04881, which level_spent holds (the vocabulary now says so)."""
    result = _three()
    levels = result.holm_levels
    assert levels[["n_comparisons", "alpha_divisor", "interim"]].values.tolist() == [[3, 1, 2]]
    assert levels["level_each"].iloc[0] == pytest.approx(1 / 126 + 1 / 200, rel=1e-15)
    assert levels["level_spent_each"].iloc[0] == pytest.approx(3 / 126 + 5 / 200, rel=1e-15)
    assert result.level_spent == pytest.approx(3 / 126 + 5 / 200, rel=1e-15)
    description = rlstats.vocabulary.VOCABULARY["level_spent"].description
    assert "under permutations=\"holm\" with several comparisons, the level of one tested at alpha (Holm's c = 1)" \
        in description and "actually spend" not in description
    df = rlstats.datasets.simulate(agents=3, tasks=1, seeds=10, effect=[0.0, 0.0, 2.0], rng=0)
    joint = rlstats.permutation(df, "score ~ agent", n_resamples=300, rng=0, permutations="joint")
    assert joint.holm_levels.empty


def test_an_unfinished_holm_test_stores_what_each_undecided_comparison_spent():
    """After interim 1 of 2 (nothing rejected, c = 3): 1 of the 126 classes, 1/126, as its header prints."""
    from rlstats.methods.adastop import AdaStop

    seq = AdaStop(["a", "b", "c"], n=5, K=2, n_resamples=200, rng=0)
    gen = np.random.default_rng(0)
    seq.update({a: gen.normal(0, 1, 5) for a in "abc"})
    levels = seq.result().holm_levels
    assert levels[["n_comparisons", "alpha_divisor", "interim"]].values.tolist() == [[3, 3, 1]]
    assert levels["level_spent_each"].iloc[0] == pytest.approx(1 / 126, rel=1e-15)
