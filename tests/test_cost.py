"""rlstats.cost (issue 43 item 2): each back end's work known before it is spent, progress by default above a few
seconds, and an explicit max_seconds= above the bound. Nothing here is timed: formulas are checked against counts
made independently from the frame, and the bar against a fake terminal."""

import io
import math
import sys
import types

import numpy as np
import pytest

import rlstats
from rlstats import cost
from rlstats.design import design_of
from rlstats.methods import DECLARATIONS, load


class Terminal(io.StringIO):
    def isatty(self):
        return True


def terminal(monkeypatch):
    """A fake terminal as stderr, set inside the test (pytest's capture resets sys.stderr after fixtures)."""
    stream = Terminal()
    monkeypatch.setattr(sys, "stderr", stream)
    return stream


def _contract_data(name):
    if DECLARATIONS[name].reads_curves:
        return rlstats.datasets.simulate_curves(agents=3, tasks=4, seeds=3, steps=5, effect=0.5, rng=0)
    return rlstats.datasets.simulate(agents=3, tasks=6, seeds=4, effect=1.0, rng=0)


def test_every_back_end_declares_a_cost_formula_that_counts_its_work():
    for name, declared in DECLARATIONS.items():
        assert declared.cost is not None, name
        formula = load(declared.cost)
        shape = cost.Shape(rows=1000, agents=4, tasks=10, cells=40, most_runs=25)
        options = types.SimpleNamespace(n_resamples=100, metrics=("mean",), pairs=None, interval="pbp", pvalue="auto",
                                        aggregate="iqm", control=None, model="signed_rank", n_samples=100, chains=2,
                                        warmup=10, draws=10, permutations="joint")
        work = formula(shape, options)
        assert isinstance(work, cost.Work) and work.units > 0 and 0 < work.per_unit < 1, name
        assert work.what and work.unit, name


def _design(agents, tasks, seeds):
    return design_of(rlstats.datasets.simulate(agents=agents, tasks=tasks, seeds=seeds, rng=0), "score ~ agent | task")


def _options(name, **given):
    """A back end's checked options, from its public function's defaults and ``given``."""
    import inspect

    function = load(DECLARATIONS[name].function)
    keywords = {k: p.default for k, p in inspect.signature(function).parameters.items()
                if p.default is not inspect.Parameter.empty}
    return types.SimpleNamespace(**{**keywords, **given})


@pytest.mark.parametrize("agents, tasks, seeds, resamples", [(3, 5, 4, 2000), (10, 26, 5, 10_000), (2, 1, 7, 3)])
def test_the_bootstrap_counts_resamples_times_runs_and_agents_with_its_passes(agents, tasks, seeds, resamples):
    # session 11: the studentised interval (the default) passes over the resamples 3 times, the metrics share one
    # draw (each adds 1e-9 s to the 7e-9 a resampled run), each agent adds 100 runs' worth a resample, and a call
    # costs 0.006 s (it counted resamples x runs x metrics at 2e-8 s, 2.5-6.6x off; test_audit_s11_cost.py)
    design = _design(agents, tasks, seeds)
    options = _options("bootstrap", n_resamples=resamples)
    work = load(DECLARATIONS["bootstrap"].cost)(cost.Shape.of(design), options)
    rows = agents * tasks * seeds  # the frame simulate() draws, counted apart from the Design
    assert work.per_unit == pytest.approx(7e-9 + 4 * 1e-9)  # the four default metrics
    assert work.seconds == pytest.approx(3 * resamples * (rows + 100 * agents) * 11e-9 + 0.006)
    assert (f"3 passes (studentised) x {resamples:,} resamples x ({rows:,} runs + 100 x {agents} agents), 4 metrics"
            in work.text)


def test_other_formulas_count_what_their_kernels_do():
    design = _design(4, 10, 5)
    shape = cost.Shape.of(design)
    assert (shape.rows, shape.agents, shape.tasks, shape.cells, shape.most_runs) == (200, 4, 10, 40, 5)
    count = {name: load(DECLARATIONS[name].cost) for name in DECLARATIONS}
    # percentiles: PBP does not resample and grows as agents^3 x tasks (issue 43 item 1); its bootstrap resamples
    assert count["percentiles"](shape, _options("percentiles")).units == 4**3 * 10
    assert count["percentiles"](shape, _options("percentiles", interval="bootstrap")).units == 10_000 * 200 * 4
    # the rank test permutes only for Monte Carlo p-values
    # (and the call's own 3 ms, which power() multiplies by its data sets: session 11)
    # (and Tukey's tails of the balanced design's post hoc pairs, 1.5e-6 s a pair and agent: audit s31 bounds31)
    tukey = shape.agents * (shape.agents - 1) // 2 * shape.agents * 1.5e-6
    assert count["skillings_mack"](shape, _options("skillings_mack", pvalue="monte_carlo")).seconds == pytest.approx(
        10_000 * 200 * 1.1e-8 + 0.003 + tukey)
    assert count["skillings_mack"](shape, _options("skillings_mack")).units == pytest.approx(200 + tukey / 1e-6)
    # probability of improvement: every pair's two agents' runs in each resample; the score interval (default)
    # draws none; each first passes over the pairs' runs, worth 36 resamples (session 11: it was 1, 18x under)
    # (audit s37 bounds37) + each pair's own work, 4e-5 s + 3.5e-5 s a task, in 5e-9 s values
    own = 6 * (4e-5 + 3.5e-5 * 10) / 5e-9
    assert count["probability_of_improvement"](shape, _options("probability_of_improvement", interval="percentile",
                                                               n_resamples=2000)).units == pytest.approx(
        2036 * 6 * 100 + own)
    assert count["probability_of_improvement"](shape, _options("probability_of_improvement")).units == pytest.approx(
        36 * 6 * 100 + own)
    assert count["probability_of_improvement"](shape, _options("probability_of_improvement")).memory == 6 * 1200
    # task table (audit s37 bounds37): the rows' pass and each task's agent x agent entries, 4e-6 s and 250 bytes each
    work = count["task_table"](shape, _options("task_table"))
    assert work.units == pytest.approx(200 * 1400 + 10 * 4 * 4 * 4e-6 / 2.2e-8) and work.memory == 250 * 10 * 4 * 4
    # Bayesian signed-rank: draws x pairs x tasks; hierarchical: iterations x (chains x pairs x tasks + a sweep's)
    assert count["bayes"](shape, _options("bayes")).units == 50_000 * 6 * 10
    assert count["bayes"](shape, _options("bayes", control="agent_1")).units == 50_000 * 3 * 10
    assert count["bayes"](shape, _options("bayes", model="hierarchical")).units == 1300 * (8 * 6 * 10 + 450)
    # the selection check permutes the tasks' effects, after reading the runs (a run's pass costs 50 permuted values)
    assert count["selection"](shape, _options("selection")).units == 9_999 * 10 + 50 * 200
    # the profile's Wilson band draws no resample: its pass over the runs is worth 60 resamples (session 11); a
    # resampled band adds 200 values a cell in each resample
    assert count["performance_profile"](shape, _options("performance_profile", interval="wilson")).units == 60 * 200
    assert count["performance_profile"](shape, _options("performance_profile", interval="percentile",
                                                        n_resamples=100)).units == 160 * 200 + 100 * 200 * 40


def test_issue_43s_bootstrap_of_a_million_runs_shows_progress_by_default_and_runs():
    # 10^6 runs with the default 10,000 resamples (176 s CPU measured in the issue): above the progress threshold,
    # below the bound, so it runs with a bar and without asking
    shape = cost.Shape(rows=10**6, agents=1, tasks=10, cells=10, most_runs=10**5)
    work = load(DECLARATIONS["bootstrap"].cost)(shape, _options("bootstrap"))
    assert work.seconds == pytest.approx(3 * 10_000 * (10**6 + 100) * 11e-9 + 0.006)  # about 330 s, studentised
    assert cost.PROGRESS_SECONDS < work.seconds < cost.MAX_SECONDS
    assert cost.within(work, cost.MAX_SECONDS) is work
    assert cost.shows(work, True) and not cost.shows(work, False)


def test_the_bound_names_the_option_and_quotes_the_estimate():
    # a 120,000-row frame with n_resamples=10**6 asks for about 66 minutes, studentised (a 6,000-row frame's 80
    # minutes at 2e-8 s x 4 metrics a resampled run became 35 minutes in session 11; 12,000 rows with 10**7 resamples,
    # 68 minutes, is refused first for the memory its resamples would keep, session 18)
    design = _design(3, 10, 4000)
    options = _options("bootstrap", n_resamples=10**6)
    formula = load(DECLARATIONS["bootstrap"].cost)
    with pytest.raises(rlstats.OptionError) as caught:
        cost.admit(formula, design, options, None, "bootstrap()")
    message = str(caught.value)
    seconds = 3 * 10**6 * (120_000 + 300) * 11e-9 + 0.006
    assert message.startswith("bootstrap() would take about 66.2 minutes (3.6e+11 resampled runs: 3 passes "
                              "(studentised) x 1,000,000 resamples x (120,000 runs + 100 x 3 agents), 4 metrics, + "
                              "the call's own 0.006 s), more than the 60 minutes")
    accept = math.ceil(seconds * cost.FACTOR / 60) * 60
    assert accept == 15900
    assert ("pass max_seconds=15900 (or float('inf'); on the command line --max-seconds 15900 or inf) to run it"
            in message)
    assert cost.admit(formula, design, options, 15900, "bootstrap()").seconds == pytest.approx(seconds)
    assert cost.admit(formula, design, options, math.inf).seconds == pytest.approx(seconds)
    # the public function refuses before drawing anything
    df = rlstats.datasets.simulate(agents=3, tasks=10, seeds=4000, rng=0)
    with pytest.raises(rlstats.OptionError, match="pass max_seconds=15900"):
        rlstats.bootstrap(df, "score ~ agent | task", n_resamples=10**6, normalize=False)


def test_fast_calls_draw_no_bar_and_long_ones_do_unless_progress_is_false(monkeypatch):
    terminal_ = terminal(monkeypatch)
    df = rlstats.datasets.simulate(agents=3, tasks=5, seeds=5, rng=0)
    quick = rlstats.bootstrap(df, "score ~ agent | task", n_resamples=500, rng=0, normalize=False)
    assert terminal_.getvalue() == ""  # about 0.004 s estimated: no bar by default
    monkeypatch.setattr(cost, "PROGRESS_SECONDS", 0.0)  # every call is now "long"
    shown = rlstats.bootstrap(df, "score ~ agent | task", n_resamples=500, rng=0, normalize=False)
    assert "bootstrap:   0%" in terminal_.getvalue()
    before = terminal_.getvalue()
    silent = rlstats.bootstrap(df, "score ~ agent | task", n_resamples=500, rng=0, normalize=False, progress=False)
    assert terminal_.getvalue() == before  # progress=False: nothing, even when long
    for res in (shown, silent):  # a bar changes no number
        np.testing.assert_array_equal(res.intervals, quick.intervals)
        np.testing.assert_array_equal(res.estimates, quick.estimates)
    # issue 43 tidy: the result records what was asked (progress=True by default), not whether a bar was drawn
    assert [r.options["progress"] for r in (quick, shown, silent)] == [True, True, False]


def test_a_back_end_without_steps_of_its_own_shows_a_bar_over_the_estimated_seconds(monkeypatch):
    stream = terminal(monkeypatch)
    df = rlstats.datasets.simulate(agents=3, tasks=6, seeds=4, rng=0)
    options = {"n_samples": 500, "rng": 0, "normalize": False}
    quiet = rlstats.bayes(df, "score ~ agent | task", **options)
    assert stream.getvalue() == ""
    monkeypatch.setattr(cost, "PROGRESS_SECONDS", 0.0)
    shown = rlstats.bayes(df, "score ~ agent | task", **options)
    assert "bayes (estimated 0.00036 s):   0%" in stream.getvalue()  # 500 draws x 3 pairs x 6 tasks x 4e-8 s
    before = stream.getvalue()
    silent = rlstats.bayes(df, "score ~ agent | task", progress=False, **options)
    assert stream.getvalue() == before
    assert shown.tidy().equals(quiet.tidy())
    assert [r.options["progress"] for r in (quiet, shown, silent)] == [True, True, False]  # issue 43 tidy: as asked


def test_the_timed_bar_advances_with_a_fake_clock_and_completes(monkeypatch):
    terminal_ = terminal(monkeypatch)
    now = [0.0]
    monkeypatch.setattr(cost.time, "monotonic", lambda: now[0])
    work = cost.Work(units=10, unit="rows", per_unit=1.0)
    with cost.timed_bar(work, True, "demo"):
        now[0] = 4.0  # the ticker reads 4 s on its next tick
        import time

        time.sleep(0.7)
        assert "4/10" in terminal_.getvalue()
    assert "10/10" in terminal_.getvalue()
    with cost.timed_bar(work, False, "demo"):
        pass


def test_power_estimates_the_study_and_gives_its_analyses_no_bar_or_bound(monkeypatch):
    from rlstats.planning import _api

    import functools

    seen = []
    original = _api._public_function

    def spy(method):
        function = original(method)

        @functools.wraps(function)  # power() reads the signature
        def call(*args, **kwargs):
            seen.append((kwargs.get("progress"), kwargs.get("max_seconds")))
            return function(*args, **kwargs)
        return call

    monkeypatch.setattr(_api, "_public_function", spy)
    rlstats.power("bootstrap", effect=1.0, seeds=[3], tasks=3, n_sim=2, rng=0, n_resamples=200, progress=False)
    # the dry run's whole call (the first) is bounded by power()'s max_seconds (audit s31 bfix31), the data sets' not
    assert seen[0] == (False, 3600.0) and len(seen) > 1 and all(s == (False, math.inf) for s in seen[1:])
    # the study's estimate: n_sim times the method's formula on one simulated data set (4 agents x 3 tasks x 3 runs)
    # and the source's drawing of them and of the dry run's (1e-4 s a data set here, audit s35: draw_seconds(shape,
    # n_sim) prices n_sim data sets; the bootstrap has no vectorised path)
    template = types.SimpleNamespace(template=lambda seeds: _design(4, 3, seeds),
                                     draw_seconds=lambda shape, n_sim: n_sim * 1e-4, untied=True)
    study = types.SimpleNamespace(source=template, methods=(("bootstrap", {"n_resamples": 200}),), alpha=0.05)
    monkeypatch.setattr(_api, "_public_function", original)
    work = _api._study_work(study, (3, 5), 10)
    assert work.units == 20
    # bootstrap()'s default studentised interval of the rule's one metric (the IQM, 8e-9 s a resampled run): 3 passes,
    # 100 runs' worth an agent, and a call's 0.006 s for each data set (session 11), and once more for the dry run
    assert work.seconds == pytest.approx(sum(11 * (3 * 200 * (rows + 400) * 8e-9 + 0.006) + 11 * 1e-4
                                             for rows in (36, 60)))


def test_every_estimate_is_logged_with_its_work(caplog):
    """The estimate a call made is on the rlstats.cost logger at DEBUG level (what benchmarks/cost_calibration.py
    reads), and it is the formula's count: passes x resamples x (runs + 100 an agent) for the bootstrap."""
    data = rlstats.datasets.simulate(2, 3, 4, rng=0)
    with caplog.at_level("DEBUG", logger="rlstats.cost"):
        rlstats.bootstrap(data, "score ~ agent | task", metrics=["iqm"], n_resamples=50, rng=0)
    works = [r.work for r in caplog.records if r.name == "rlstats.cost"]
    assert works and "bootstrap()" in caplog.records[0].getMessage()
    # studentised (3 passes), the IQM alone (8e-9 s a resampled run), 2 agents, the call's 0.006 s
    assert works[0].seconds == pytest.approx(3 * 50 * (len(data) + 200) * 8e-9 + 0.006)
