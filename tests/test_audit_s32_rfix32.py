"""Audit s32 rfix32: the rank test's exact enumeration priced (F1), equivalence's per-pair work priced (F2), the rank
test's chi-squared reason placed on or off its measured grid (F3), AUTO_EXACT_LIMIT's comment and docstring (F4),
R's exact=TRUE as numpy bool or 1.0 (F5), equivalence's aggregate_tasks in JSON (F6), automatic figure sizes bounded
(F7)."""

import logging

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats.errors import OptionError


def _work(caplog, call, *args, **kwargs):
    """The estimate a call logs on ``rlstats.cost`` (the first record whose message starts with ``call``)."""
    caplog.clear()
    with caplog.at_level(logging.DEBUG, logger="rlstats.cost"):
        getattr(rlstats, call)(*args, **kwargs)
    return [r.work for r in caplog.records if r.name == "rlstats.cost" and r.getMessage().startswith(call)][0]


def _tied_one_task(agents=5, runs=2):
    """``agents`` agents x 1 task x ``runs`` runs, integer scores 0-3 (ties): 10! / 2!^5 = 113,400 arrangements."""
    rng = np.random.default_rng(0)
    rows = [(f"a{j}", "t0", s, float(rng.integers(0, 4))) for j in range(agents) for s in range(runs)]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])


def test_f1_enumeration_is_priced(caplog):
    """5 agents x 1 task x 2 runs: 113,400 arrangements of the one task enumerated, 0.17-0.20 s CPU measured warm
    (OPENBLAS_NUM_THREADS=1); estimated 8.5e-5 s when a row was priced and nothing else."""
    work = _work(caplog, "skillings_mack", _tied_one_task(), "score ~ agent | task/seed", progress=False)
    assert 0.15 < work.seconds < 0.6
    assert "113,400" in work.what


def test_f1_power_refuses_enumerations_past_max_seconds():
    """Each data set of the tied pilot has an exact null of its own (0.26 s a data set measured, 10.4 s for 40):
    max_seconds=1 refuses before any is computed."""
    with pytest.raises(OptionError, match="max_seconds"):
        rlstats.power("skillings_mack", design=_tied_one_task(), formula="score ~ agent | task/seed", effect=1.0,
                      seeds=[2], n_sim=40, rng=0, max_seconds=1, progress=False)


def _many(agents, tasks=5, runs=5, missing=True):
    """``agents`` agents x ``tasks`` tasks x ``runs`` runs, a00 missing t0 (two task sets bootstrapped) or not."""
    rng = np.random.default_rng(0)
    rows = [(f"a{j:02d}", f"t{i}", s, rng.normal()) for j in range(agents) for i in range(tasks) for s in range(runs)
            if not (missing and j == 0 and i == 0)]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])


def _equivalence_estimate(df, **options):
    """equivalence()'s estimate of a call on ``df``, from its cost formula and the passes it makes, not run."""
    from rlstats.cost import Shape
    from rlstats.design import design_of
    from rlstats.methods.equivalence import _api, _backend

    design = design_of(df, "score ~ agent | task/seed")
    checked = _api.EquivalenceOptions.checked(margin=0.5, **options)
    passes = _api._passes(design, checked.for_agents(design.agents))
    return _backend.cost(Shape.of(design), checked, passes=passes)


#: CPU seconds of equivalence() on ``_many(agents)`` (margin 0.5, rng=0, the defaults), warm, OPENBLAS_NUM_THREADS=1,
#: best of 5, as benchmarks/equivalence_cost.py printed them (benchmarks/README.md, round s39, 2026-12-07, load 2.7-3.6)
MEASURED_SECONDS = {3: 0.078, 8: 0.229, 40: 2.501}


@pytest.mark.parametrize("agents", [8, 40])
def test_f2_equivalence_prices_each_pair(agents):
    """40 agents x 5 tasks x 5 runs, a00 missing t0: 780 pairs, each tested on every task and across tasks, each
    aggregate read again on its own rows (bootstrap.agents_alone); audit s32 measured 5.3 s CPU and estimated 0.12 s
    before pricing them. Since audit s39 (eq39) the pairs' work is read in one pass (15.4 s CPU idle on the machine
    that failed this test's former timing, 2.5 s after at load 3-4) and the estimate was fitted again: it lies within a
    factor 2 of the CPU seconds benchmarks/equivalence_cost.py measured at 8 and 40 agents (and at 3, 0.078 s
    measured). Speed figures live in benchmarks/: this test times nothing, it reads the estimate against them."""
    estimate = _equivalence_estimate(_many(agents)).seconds
    measured = MEASURED_SECONDS[agents]
    assert measured / 2 < estimate < measured * 2, (measured, estimate)


def test_f2_max_seconds_refuses_many_pairs():
    with pytest.raises(OptionError, match="max_seconds"):
        rlstats.equivalence(_many(40), "score ~ agent | task/seed", margin=0.5, rng=0, max_seconds=1, progress=False)


def _balanced(agents, tasks, runs, seed=0):
    rng = np.random.default_rng(seed)
    rows = [(f"a{j}", f"t{i}", s, rng.normal()) for j in range(agents) for i in range(tasks) for s in range(runs)]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])


@pytest.mark.parametrize("agents, tasks, runs, said", [
    (3, 4, 3, "3 agents x 4 tasks x 3 runs per cell, is one of those measured"),
    (4, 7, 2, "4 agents x 7 tasks x 2 runs per cell, lies within that range but was not itself measured"),
    (9, 4, 1, "9 agents x 4 tasks x 1 run per cell, lies outside that range: its size there was not measured"),
    (3, 60, 2, "3 agents x 60 tasks x 2 runs per cell, lies outside that range: its size there was not measured")])
def test_f3_chi_squared_reason_places_the_design(agents, tasks, runs, said):
    """The measured designs are complete and balanced, 3-8 agents x 3-50 tasks (3, 4, 5, 6, 8, 10, 12, 16, 20, 26, 30,
    40, 50) x 1, 2, 3, 5, 10 or 20 runs per cell (audit s38 sm38, which added 6-8 agents, 26 tasks and 5-20 runs to
    test_audit_s31_autocal31's 97): 3 x 4 x 3 is one, 4 x 7 x 2 lies between two of its task counts, 9 agents (6
    before sm38) and 60 tasks lie outside it."""
    res = rlstats.skillings_mack(_balanced(agents, tasks, runs), "score ~ agent | task" + ("/seed" if runs > 1 else ""),
                                 progress=False)
    assert res.pvalue_method == "asymptotic"
    assert said in res.pvalue_rule
    assert "not on this design" not in res.pvalue_rule


def test_f3_chi_squared_reason_on_unequal_cells():
    """3 agents x 5 tasks x 3 runs with one run removed: within the range, not itself measured (unequal cells)."""
    df = _balanced(3, 5, 3).iloc[1:]
    res = rlstats.skillings_mack(df, "score ~ agent | task/seed", progress=False)
    assert res.pvalue_method == "asymptotic"
    assert "3 agents x 5 tasks x 2-3 runs per cell, lies within that range but was not itself measured" \
        in res.pvalue_rule


def test_f4_monte_carlo_switch_limit_is_the_documented_one():
    """pvalue="monte_carlo" enumerates a design's relabellings instead of drawing them when they number at most
    n_resamples and AUTO_EXACT_LIMIT (20,000), the docstring's number; pvalue="exact" and "auto" enumerate up to
    _ENUMERATION_LIMIT (200,000), the docstring's other number. 3 agents x 1 task x 4 runs: 34,650 relabellings, drawn
    at n_resamples=50,000 (past 20,000), enumerated under "exact"."""
    import re

    from rlstats.methods.skillings_mack import _kernels

    doc = re.sub(r"\s+", " ", rlstats.skillings_mack.__doc__)
    assert f"more relabellings than ``n_resamples`` and {_kernels.AUTO_EXACT_LIMIT:,}" in doc
    assert f"enumerate up to {_kernels._ENUMERATION_LIMIT:,}" in doc
    df = _balanced(3, 1, 4)
    drawn = rlstats.skillings_mack(df, "score ~ agent | task/seed", pvalue="monte_carlo", n_resamples=50_000, rng=0,
                                   progress=False)
    assert drawn.pvalue_method == "monte_carlo"
    exact = rlstats.skillings_mack(df, "score ~ agent | task/seed", pvalue="exact", progress=False)
    assert exact.pvalue_method == "exact"
    small = _balanced(3, 1, 2)  # 90 relabellings, fewer than 10,000 draws: enumerated
    few = rlstats.skillings_mack(small, "score ~ agent | task/seed", pvalue="monte_carlo", rng=0, progress=False)
    assert few.pvalue_method == "exact"
    assert few.pvalue == rlstats.skillings_mack(small, "score ~ agent | task/seed", pvalue="exact",
                                                progress=False).pvalue


@pytest.mark.parametrize("given, offered", [(np.True_, "exact"), (np.False_, "asymptotic"), (1.0, "exact"),
                                            (0.0, "asymptotic"), (np.int64(1), "exact"), (np.float64(1.0), "exact")])
def test_f5_r_exact_as_numpy_bool_or_float(given, offered):
    """A numpy bool (a column's value, ``df.flag.all()``) or 1.0 is R's TRUE as Python's True is: offered
    pvalue='exact', not both ways with '(it was True)'."""
    with pytest.raises(OptionError) as info:
        rlstats.skillings_mack(_balanced(3, 4, 1), "score ~ agent | task", exact=given)
    assert str(info.value).endswith(f"pass pvalue={offered!r}")


@pytest.mark.parametrize("given", [2.0, 0.5, float("nan"), np.float64(2.0)])
def test_f5_other_numbers_are_offered_both_ways(given):
    with pytest.raises(OptionError) as info:
        rlstats.skillings_mack(_balanced(3, 4, 1), "score ~ agent | task", exact=given)
    assert "pass pvalue='exact' for exact=True; pass pvalue='asymptotic' for exact=False (it was" in str(info.value)


def _incomplete():
    """A, B on t0-t3; C on t1-t3 (the reviewer's eq1): A vs C and B vs C aggregate on 3 tasks."""
    rng = np.random.default_rng(1)
    cells = {"A": ["t0", "t1", "t2", "t3"], "B": ["t0", "t1", "t2", "t3"], "C": ["t1", "t2", "t3"]}
    rows = [(a, t, s, rng.normal(loc=int(t[1]))) for a, ts in cells.items() for t in ts for s in range(4)]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])


def test_f6_aggregate_tasks_in_json_are_records():
    import json

    res = rlstats.equivalence(_incomplete(), "score ~ agent | task/seed", margin=1.0, rng=3, n_resamples=200,
                              progress=False)
    assert res.aggregate_tasks == {("A", "C"): ("t1", "t2", "t3"), ("B", "C"): ("t1", "t2", "t3")}
    exported = json.loads(res.to_json())["aggregate_tasks"]
    assert exported == [{"agent_1": "A", "agent_2": "C", "tasks": ["t1", "t2", "t3"]},
                        {"agent_1": "B", "agent_2": "C", "tasks": ["t1", "t2", "t3"]}]
    assert res.to_dict()["aggregate_tasks"] == exported
    complete = rlstats.equivalence(_incomplete()[lambda d: d["agent"] != "C"], "score ~ agent | task/seed",
                                   margin=1.0, rng=3, n_resamples=200, progress=False)
    assert json.loads(complete.to_json())["aggregate_tasks"] is None


def test_f7_own_figure_past_the_bound_is_refused_before_drawing():
    """8 agents x 26 tasks x 3 runs, aggregate=None, every scope: 28 pairs x 27 rows = 756 rows, 0.14 in apart at
    least, a figure 5 x 106.9 in (the reviewer's 30 agents: 5 x 244.7 in); refused with the ways to draw fewer rows.
    The default scopes' 28 rows (7.26 in) are drawn as before."""
    import matplotlib.pyplot as plt

    from rlstats import plotting

    res = rlstats.equivalence(_balanced(8, 26, 3), "score ~ agent | task/seed", margin=0.5, aggregate=None, rng=0,
                              progress=False)
    with pytest.raises(OptionError) as info:
        res.plot(scopes=("task", "across tasks", "aggregate"))
    message = str(info.value)
    assert "5 x 106.9 in" in message and "more than the 100 inches" in message
    assert "draw fewer of its 756 rows: pass scopes=" in message
    assert not plt.get_fignums()  # refused before a figure was made
    ax = res.plot()
    assert ax.figure.get_size_inches() == pytest.approx((5.0, 1.1 + 0.22 * 28))
    plt.close("all")
    with pytest.raises(OptionError, match="more than the 100 inches"):
        plotting.axes_or_new(None, (6.4, 0.8 + 0.25 * 400))  # the task table's size at 400 tasks
    plt.close("all")
