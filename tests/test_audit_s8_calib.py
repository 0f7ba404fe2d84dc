"""Audit s8 (calib): default claims at their stated level where ``rlstats/calibration.csv`` has no row, or rows on
an easy part of the grid only. Each test re-measures, on few simulated data sets, a claim a user sees (an interval,
a decision, a band, a power figure), with a bound that can fail; a strict xfail is a defect not fixed yet."""

from __future__ import annotations

import math
import warnings


import rlstats


def test_noninferiority_rows_of_the_default_tests_are_marked_default():
    """``equivalence(alternative="noninferior")`` runs Welch's tests per task and across tasks and the IQM's
    bootstrap-t, as TOST does; the table measures them (``test="noninferior"``) but :data:`DEFAULTS` marked only
    TOST's rows, so ``calibration_table(default=True, misses=True)`` -- what the docs call "what still misses" --
    and the docs' count of the defaults' rows left the non-inferiority test out."""
    table = rlstats.calibration_table("equivalence.size", test="noninferior")
    default = table[table["default"]]
    assert set(default["interval"]) == {"welch", "welch_mean", "bootstrap_t"}
    # 48 + 12 Welch per task, 32 + 8 across tasks, 32 + 8 IQM bootstrap-t (+: saturated); audit s23: Welch's with
    # unlike spreads, 3 families x (1 + 2 tasks) x 3 runs x 6 spreads; audit s32 (cal32): pairs that did not share
    # every task, 6 pairs x 2 scopes x 3 runs x 4 families
    spread = default["configuration"].str.contains(", spread ")
    incomplete = default["configuration"].str.contains("tasks shared")
    assert len(default) == 446 and spread.sum() == 162 and incomplete.sum() == 144


def _null_bootstrap_power(tasks, seeds, rng):
    """power("bootstrap") on simulated data where nothing differs: its rejection rate is the rule's size."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the simulated tasks' own scales: not what is measured here
        res = rlstats.power("bootstrap", effect=0.0, seeds=[seeds], tasks=tasks, n_sim=100, rng=rng, progress=False,
                            bootstrap={"n_resamples": 200})
    return res.tidy().iloc[0]


def test_bootstrap_power_rule_is_conservative_or_withheld_at_two_seeds():
    """``power("bootstrap")`` separates percentile intervals (the thesis's rule) and notes that it is conservative,
    "expect a rejection rate below alpha when nothing differs". Percentile intervals of 2 runs per task are far
    too narrow: with nothing different the rule rejected 0.35 (1 task), 0.20-0.26 (5 tasks) and 0.08-0.09 (26
    tasks) of 200 data sets, and 0.07-0.12 at 3 seeds; so power at 2-3 seeds, and ``sample_size("bootstrap")``'s
    search, which starts at 2 seeds, count false rejections as power. The claim holds when the rate is within
    3 Monte Carlo SE of alpha, or the row is withheld (NaN) with the way on."""
    row = _null_bootstrap_power(tasks=1, seeds=2, rng=1)
    assert math.isnan(row["power"]) or row["power"] <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / row["n_tests"])


def test_mixed_marginal_means_intervals_hold_what_the_result_says_they_hold():
    """``rlstats.mixed`` printed each agent's estimated marginal mean with a 95% interval without saying of what:
    its standard error counts the tasks' spread (the model's random tasks), so it reads as an interval of the agent's
    mean over tasks like these, which it held only 0.89-0.94 of the time at 3-5 tasks of different levels and
    spreads (``mixed.means`` rows "tasks drawn afresh"; the tasks' variance is one for every agent in the model, but
    agents' differences grow with the task). No interval from 3-5 tasks holds that reading on such tasks: the
    cluster-robust CR2 interval (per agent, from its own task means; tests/reference/mixed_cr2.py) covered
    0.917-0.955 at 3 tasks and 0.932-0.948 at 5 (8 agents, 600 data sets a design), 1.1-1.6 times as wide. The
    result now names its estimand, each agent's mean over the tasks analysed, which the intervals hold (0.975-1,
    "tasks at hand" rows, the default's): no default row misses; the other reading's misses are quoted in the
    notes wherever the nearest design measured shows them (tests/test_calibration.py)."""
    short = rlstats.calibration_table("mixed.means", default=True, misses=True)
    assert short.empty, short[["agents", "tasks", "runs", "distribution", "coverage", "coverage_min"]]
    fresh = rlstats.calibration_table("mixed.means", configuration="tasks drawn afresh", test="satterthwaite")
    assert fresh["misses"].any()  # the other reading still misses somewhere, so the notes have something to quote
    df = rlstats.datasets.simulate(agents=3, tasks=4, seeds=3, effect=0.5, distribution="normal", rng=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # simulate()'s tasks differ in scale on purpose
        tables = rlstats.mixed(df, "score ~ agent | task/seed").summary().tables
    assert "Estimated marginal means (95% intervals of each agent's mean over these 4 tasks)" in tables


def test_bootstrap_power_rule_keeps_the_thesis_rule_on_request_and_withholds_what_it_cannot_decide():
    """The thesis's rule stays as it was under interval="percentile" (its rate at 2 seeds is a number again, the
    default's rows at 4 or more seeds are the same bits); a studentised interval, which bootstrap() withholds at 2
    runs per task, no longer counts every data set as no rejection (power 0) but is withheld with its reason."""
    def run(seeds, **options):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return rlstats.power("bootstrap", effect=0.5, seeds=seeds, tasks=2, n_sim=12, rng=3, progress=False,
                                 bootstrap={"n_resamples": 100, **options})

    default, thesis, studentized = run([2, 4]), run([2, 4], interval="percentile"), run([2], interval="studentized")
    rows = default.tidy().set_index("seeds")
    assert math.isnan(rows.loc[2, "power"]) and math.isnan(rows.loc[2, "conf_high"])
    # the two rules' rates at 4 seeds were equal (3 of 12) on the data sets drawn before audit s35: a coincidence since
    # session 10 made the studentised interval the default; on audit s35's (drawn a block at a time) 2 and 3 of 12,
    # the percentile intervals, narrower, separating at least as often
    assert 0 < rows.loc[4, "power"] <= thesis.tidy().set_index("seeds").loc[4, "power"]
    assert not math.isnan(thesis.tidy().set_index("seeds").loc[2, "power"])
    assert any(n.startswith("bootstrap interval separation withheld at 2 seeds") for n in default.notes)
    assert not any("withheld" in n for n in thesis.notes)
    assert math.isnan(studentized.tidy()["power"].iloc[0])
    assert any("withholds studentized intervals" in n for n in studentized.notes)
