"""Audit s29 (taskboot29): the default interval of ``bootstrap(task_bootstrap=True)`` is replaced, not quoted.

Found: with tasks resampled the studentised default gave way to the percentile interval, which the 780
``bootstrap.interval_tasks`` rows of rlstats/calibration.csv (``tests/reference/coverage_tasks_resampled.py``: 2, 3,
5, 10 and 26 tasks x 3, 5, 10 runs, normal or skewed task means, runs' sd 0.3 or 2 times theirs, 1,000 data sets a
point) show missing 95% at every number of tasks (the mean: 0.52-0.87 at 2 tasks, 0.84-0.96 at 10, 0.89-0.98 at 26);
the result only quoted that. Also: the note read the runs' rows at the NEAREST simulated count (8 and 9 runs read
the 10-run rows) where the package's other notes read the largest at or below, and quoted one run count for every
metric.

Measured (screening at 400 data sets, then the table's 1,000 for the adopted rows): the mean's bootstrap-t over tasks
(each resample's mean of task means studentised by the sd of its task means over sqrt(n)) read at the expanded level
sqrt(n/(n-1)) t_{n-1} (``expanded_tasks_t`` rows) holds from 10 tasks on skewed task means, where the percentile
interval expanded the same way reached 0.884 at 10 and 0.906 at 26, Student's t 0.85-0.94, BCa over tasks 0.73-0.92,
Johnson's and Hall's skew-corrected t 0.83-0.93 and the unexpanded bootstrap-t 0.88-0.93; at 5 tasks it held only as
3 to 7 times as wide as Student's t (resamples of nearly one task), so it is not given there. The median and IQM hold with
the expanded percentile interval from 5 tasks (given from 6 until audit s29 tbfix29b, on a quantile interval's
ceiling 1 - 2^(1 - n) that does not bound this interval), the optimality gap from 10.

Fixed: the default with tasks resampled is ``interval="expanded_tasks"`` (named in the result), each metric given
from the tasks where it held and withheld below with a note naming it; ``interval="percentile"`` keeps the old
reading; the rows are read at the largest simulated run count at or below the design's, each metric's count quoted.
Checked independently: the median's, IQM's and gap's bounds against numpy quantiles of the result's own resamples at
the closed-form level; the mean's against the reference script's bootstrap-t on its own resamples (another random
stream) within Monte Carlo error; the coverage by a reduced simulation; the rows' reading against the csv read with
pandas.
"""
import pathlib
import runpy

import numpy as np
import pandas as pd
import pytest
from scipy import special, stats

import rlstats
from rlstats import calibration
from rlstats.errors import OptionError
from rlstats.methods.bootstrap import _small_runs as small_runs

HERE = pathlib.Path(__file__).resolve().parent
SIM = runpy.run_path(str(HERE / "reference" / "coverage_tasks_resampled.py"))
TABLE = pd.read_csv(HERE.parent / "rlstats" / "calibration.csv", dtype=str, keep_default_na=False)
ROWS = TABLE[TABLE["procedure"] == "bootstrap.interval_tasks"]


def _frame(tasks, runs, rng=0):
    return rlstats.datasets.simulate(2, tasks, runs, rng=rng)


def _default(tasks, runs=3, n_resamples=400, **options):
    return rlstats.bootstrap(_frame(tasks, runs), "score ~ agent | task", task_bootstrap=True, n_resamples=n_resamples,
                             rng=1, progress=False, **options)


@pytest.mark.parametrize("tasks", [5, 10, 26])
def test_the_default_holds_wherever_it_is_given(tasks):
    # the reproducer: the interval bootstrap(task_bootstrap=True) gives by default, for each metric it gives one for,
    # holds 95% within 3 Monte Carlo SE in every row at that number of tasks (pandas over the csv; every law, noise and
    # run count); the percentile default missed at every count (132 of its 240 rows)
    res = _default(tasks, n_resamples=100)
    for j, metric in enumerate(res.metrics):
        if np.isnan(res.intervals[:, j]).all():
            continue
        label = "expanded_tasks_t" if (res.interval, metric) == ("expanded_tasks", "mean") else res.interval
        rows = ROWS[(ROWS["interval"] == label) & (ROWS["metric"] == metric) & (ROWS["tasks"] == str(tasks))]
        assert len(rows) == 12, (metric, label)
        worst = rows["coverage"].astype(float).min()
        assert worst >= 0.95 - 3 * np.sqrt(0.95 * 0.05 / 1000), (metric, tasks, worst)
    # and it gives every metric's interval from 10 tasks
    assert np.isfinite(res.intervals).all() or tasks < 10


def test_reduced_simulation_reproduces_the_miss_and_the_fix():
    # 10 tasks x 3 runs, skewed task means, runs' sd 0.3, 200 data sets of 200 resamples: the percentile interval
    # misses the mean by far (0.82 here; the table's 1,000 data sets: 0.839), Student's t too (0.87); the bootstrap-t
    # over tasks holds within 3 SE (0.94)
    rows = {(r["interval"], r["metric"]): r["coverage"]
            for r in SIM["measure"](10, 3, "skewed", 0.3, 200, seed=29, n_resamples=200)}
    se = np.sqrt(0.95 * 0.05 / 200)
    assert rows["percentile", "mean"] < 0.95 - 4 * se
    assert rows["t_tasks", "mean"] < 0.95 - 3 * se  # Student's t on skewed task means
    assert rows["expanded_tasks_t", "mean"] > 0.95 - 3 * se


def test_the_default_is_named_and_withheld_below_its_tasks():
    # audit s29 tbfix29b (on purpose): the median and IQM from 5 tasks, not 6
    few = _default(4)
    assert few.interval == "expanded_tasks"
    assert np.isnan(few.intervals).all()  # the mean and gap from 10 tasks, the median and IQM from 5
    withheld = [n for n in few.notes if "intervals withheld with tasks resampled (task_bootstrap=True) from 4 tasks" in n]
    assert len(withheld) == 4 and any(n.startswith("the mean:") and "(given from 10 tasks)" in n for n in withheld)
    assert any(n.startswith("the median of task means:") and "(given from 5 tasks)" in n for n in withheld)
    five = _default(5, metrics=["mean", "median"])
    assert np.isnan(five.intervals[:, 0]).all() and np.isfinite(five.intervals[:, 1]).all()
    ten = _default(10)
    assert np.isfinite(ten.intervals).all() and not any("intervals withheld" in n for n in ten.notes)
    assert "bootstrap-t over tasks" in ten.report() or "bootstrap-t over tasks" in ten._prose()
    # the old reading stays selectable
    assert _default(5, interval="percentile").interval == "percentile"


def test_bounds_against_independent_values():
    df = _frame(12, 3, rng=4)
    res = rlstats.bootstrap(df, "score ~ agent | task", task_bootstrap=True, n_resamples=4000, rng=2,
                            progress=False, normalize=False)
    n = 12
    z = np.sqrt(n / (n - 1)) * stats.t.ppf(0.975, n - 1)
    wide = special.ndtr(-z)
    dist = np.asarray(res.bootstrap_distribution)  # (K, M, B)
    for j, metric in enumerate(res.metrics):
        if metric != "mean":  # percentiles of the result's own resamples at the closed-form level
            expected = np.quantile(dist[:, j], [wide, 1 - wide], axis=-1).T
            np.testing.assert_allclose(res.intervals[:, j], expected, rtol=1e-10, atol=1e-12)
    # the mean's bootstrap-t: the reference script's, on its own resamples of the same data, agrees within Monte
    # Carlo error (4 SE of the difference of two independent reads, each with the bound's order-statistic SE)
    j = list(res.metrics).index("mean")
    assert np.isfinite(res.interval_mc_se[:, j]).all()
    for a, agent in enumerate(res.agents):
        mine = df[df["agent"] == agent].sort_values(["task", "seed"])
        scores = mine["score"].to_numpy().reshape(n, 3)[None]
        both = SIM["resampled"](scores, 4000, np.random.default_rng(9))
        means = scores.mean(axis=-1)
        theirs = SIM["studentized_mean"](means.mean(axis=1), means.std(axis=1, ddof=1) / np.sqrt(n),
                                         both[..., 0], both[..., -1], z)[0]
        assert (np.abs(res.intervals[a, j] - theirs) < 4 * np.sqrt(2) * res.interval_mc_se[a, j]).all(), (
            agent, res.intervals[a, j], theirs, res.interval_mc_se[a, j])


def test_rows_read_at_the_largest_run_count_at_or_below():
    # 9 runs read the 5-run rows (the nearest was 10), 4 the 3-run rows, 20 the 10-run rows
    for runs, read in ((9, "5"), (4, "3"), (20, "10"), (2, "3")):
        rows = small_runs.tasks_rows("percentile", "mean", 10, runs)
        assert {r["runs"] for r in rows} == {read}, runs


def test_clause_quotes_each_metrics_run_count(monkeypatch):
    # rows of two metrics simulated at different runs: each quoted with its own count (one count was said for all)
    def row(metric, runs, coverage):
        return {"procedure": small_runs.TASKS_PROCEDURE, "interval": "percentile", "metric": metric, "tasks": "10",
                "runs": str(runs), "distribution": "skewed", "configuration": "run sd 0.3", "n_sim": "1000",
                "coverage": str(coverage), "se": "0.01", "coverage_min": "", "design_draws": ""}
    rows = (row("mean", 3, 0.80), row("iqm", 5, 0.85))
    monkeypatch.setattr(calibration, "rows", lambda procedure: rows)
    said = small_runs.tasks_measured_clause("percentile", ["mean", "iqm"], ["mean", "iqm"], 10, 6)
    assert "0.80 of data sets for the mean (skewed task means, runs' sd 0.3 times theirs, 3 runs per task)" in said
    assert "0.85 for the IQM (skewed task means, runs' sd 0.3 times theirs, 5 runs per task)" in said
    one = small_runs.tasks_measured_clause("percentile", ["mean"], ["mean"], 10, 6)
    assert "with 3 runs per task" in one


@pytest.mark.parametrize("options, words", [
    ({"interval": "expanded_tasks"}, "needs task_bootstrap=True"),
    ({"interval": "expanded_tasks", "task_bootstrap": True, "metrics": {"m": np.mean}}, "built-in metrics only"),
])
def test_bad_expanded_tasks(options, words):
    with pytest.raises(OptionError, match=words):
        rlstats.bootstrap(_frame(3, 3), "score ~ agent | task", n_resamples=50, rng=0, progress=False, **options)


PROFILE = runpy.run_path(str(HERE / "reference" / "coverage_profile_tasks_resampled.py"))


def test_profile_bands_with_tasks_resampled_quote_what_they_covered():
    # item 5: performance_profile(task_bootstrap=True)'s bands carried only the ceiling note (nothing from 6 tasks);
    # measured they miss, and the note quotes the lowest of the bootstrap.profile_population rows bracketing the
    # design at its runs (pffix29: it quoted the script's 400-data-set screen, MEASURED, 0.69 at 10 tasks; the rows,
    # 1,000 data sets, read here with pandas: 10 and 26 tasks at 3 runs)
    table = pd.read_csv(HERE.parent / "rlstats" / "calibration.csv", dtype=str)
    rows = table[(table.procedure == "bootstrap.profile_population") & (table.interval == "percentile")
                 & table.tasks.isin(["10", "26"]) & (table.runs == "3")
                 & (table.metric == "runs")]  # audit s30 tboot30: kind="tasks" rows beside them
    worst = rows.coverage.astype(float).min()
    assert len(rows) == 40 and worst == 0.757
    df = _frame(12, 3)
    res = rlstats.performance_profile(df, "score ~ agent | task", task_bootstrap=True, n_resamples=200, rng=1,
                                      progress=False, tau=[10.0, 20.0], interval="percentile")  # profile29
    said = [n for n in res.notes if n.startswith("in simulations of 10 and 26 tasks with 3 runs")]
    assert len(said) == 1 and f"in as few as {worst:.2f} of data sets" in said[0]
    assert not any(n.startswith("in simulations of") for n in rlstats.performance_profile(
        df, "score ~ agent | task", n_resamples=200, rng=1, progress=False, tau=[10.0]).notes)


def test_profile_reduced_point_and_the_scripts_band_is_the_packages():
    # a reduced point (5 tasks x 3 runs, normal task means, runs' sd 0.3; 200 data sets of 200 resamples): the band
    # misses the population's profile at its tails by far (the script's 400 data sets: 0.525)
    out = PROFILE["measure"](5, 3, "normal", 0.3, 200, n_resamples=200, seed=1)
    assert out["lowest"] < 0.8
    # the script's band on one data set is rlstats'; both percentile bands of 4,000 two-stage resamples, within one step of the profile
    rng = np.random.default_rng(5)
    scores = SIM["data"]("skewed", 6, 3, 2.0, 1, rng)[0]
    df = pd.DataFrame({"agent": "A", "task": np.repeat([f"t{i}" for i in range(6)], 3), "seed": np.tile([0, 1, 2], 6),
                       "score": scores.ravel()})
    tau = np.quantile(scores, [0.25, 0.5, 0.75])
    res = rlstats.performance_profile(df, "score ~ agent | task", task_bootstrap=True, n_resamples=4000, rng=2,
                                      progress=False, tau=tau, normalize=False, interval="percentile")  # profile29
    mine = PROFILE["bands"](scores[None], tau, 4000, np.random.default_rng(3))[0]
    np.testing.assert_allclose(np.asarray(res.intervals)[0], mine, atol=1 / 18 + 1e-9)  # one step of 18 runs


@pytest.mark.slow
@pytest.mark.parametrize("point", [(10, 3, "skewed", 0.3), (26, 10, "skewed", 0.3)])
def test_the_tables_rows_are_the_scripts(point):
    # the table's rows of a grid point, the new expanded_tasks_t among them (written by a run of the same draws),
    # are what the script gives there on its own seeds (calibrate.py --only bootstrap.interval_tasks)
    tasks, runs, distribution, sd = point
    rows = ROWS[(ROWS["tasks"] == str(tasks)) & (ROWS["runs"] == str(runs)) & (ROWS["distribution"] == distribution)
                & (ROWS["configuration"] == f"run sd {sd:g}")]
    table = {(r.interval, r.metric): float(r.coverage) for r in rows.itertuples()}
    fresh = {(r["interval"], r["metric"]): r["coverage"] for r in SIM["measure"](*point, 1000)}
    assert table == fresh
