"""Session 15, power('skillings_mack') under the default p-value: its speed and the one home of pvalue="auto"'s rule.

Checked: the rule's decisions on a grid of design shapes, from the kernel's setup (what skillings_mack() does) and
from the Design's shape (the cost estimate power() and skillings_mack() admit their work by), against the decisions
the code made before the rule got one home (written below from that code); the vectorised p-values of power()
against skillings_mack()'s own on each data set, to the bit, ties included; and that power under the default
p-value grows with the effect and with the seeds where that p-value is exact.
"""

import dataclasses
import types

import numpy as np
import pandas as pd
import pytest

import rlstats
from conftest import quietly
from rlstats.cost import Shape
from rlstats.methods.skillings_mack import _api as sm_api
from rlstats.methods.skillings_mack import _backend as backend
from rlstats.methods.skillings_mack import _kernels as kernels
from rlstats.planning import _api as planning


# --------------------------------------------------------------------------- pvalue="auto": one rule, two callers

#: The tasks of the grid of balanced shapes.
TASKS = (*range(1, 13), 15, 20, 30, 39, 40, 41, 50)
#: pvalue="auto"'s decisions before its rule had one home (read from skillings_mack()'s kernel at c412d1e): for
#: (agents, runs per cell), the most tasks whose null is enumerated and the most given a Monte Carlo p-value;
#: chi-squared above. Two agents: the exact null convolved on every shape of the grid.
#: Since audit s31 trialfix31 the test's null is enumerated up to pvalue="exact"'s 200,000 arrangements (was 20,000):
#: 3 agents x 6 tasks x 1 run (46,656) and 5 agents x 1 task x 2 runs (113,400) moved from Monte Carlo and chi-squared.
OLD_THRESHOLDS = {(3, 1): (6, 39), (3, 2): (2, 2), (3, 3): (1, 1), (4, 1): (3, 3), (4, 2): (1, 1), (4, 3): (0, 0),
                  (5, 1): (2, 2), (5, 2): (1, 1), (5, 3): (0, 0), (6, 1): (1, 1), (6, 2): (0, 0), (6, 3): (0, 0)}
#: Two agents with many runs: (tasks, runs per cell) -> the old decision (Monte Carlo where the convolution's lattice
#: or work passes its limits).
OLD_TWO_AGENTS = {(60, 30): "convolve", (10, 40): "convolve", (30, 40): "monte_carlo", (20, 50): "monte_carlo"}


def _old_decision(agents, tasks, runs):
    if agents == 2:
        return OLD_TWO_AGENTS.get((tasks, runs), "convolve")
    enumerated, monte_carlo = OLD_THRESHOLDS[agents, runs]
    return "enumerate" if tasks <= enumerated else "monte_carlo" if tasks <= monte_carlo else "asymptotic"


def _grid():
    shapes = [(a, t, r) for a in range(2, 7) for r in (1, 2, 3) for t in TASKS]
    return shapes + [(2, t, r) for t, r in OLD_TWO_AGENTS]


def _kernel_decision(counts, variant):
    """What skillings_mack()'s kernel decides on a design with these runs per (task, agent) cell (its exact null
    named, not computed)."""
    n, k = counts.shape
    task = np.repeat(np.arange(n), counts.sum(axis=1))
    agent = np.concatenate([np.repeat(np.arange(k), row) for row in counts])
    setup = kernels.build_setup(np.arange(task.size, dtype=float), agent, task, k, n, variant=variant)
    method, _, null = kernels.auto_pvalue_method(setup)
    return null.method if method == "exact" else method


@pytest.fixture
def named_nulls(monkeypatch):
    """The kernel's exact nulls replaced by their method's name: the decisions alone, in a fraction of the time."""
    monkeypatch.setattr(kernels, "exact_null", lambda setup, method="auto", limit=None: types.SimpleNamespace(
        method=method))


def _cost_decision(agents, tasks, runs):
    """What the cost estimate counts for the default p-value on a design of this shape."""
    shape = Shape(rows=agents * tasks * runs, agents=agents, tasks=tasks, cells=agents * tasks, most_runs=runs)
    work = backend.cost(shape, types.SimpleNamespace(pvalue="auto", n_resamples=10_000))
    return {"permuted values": "monte_carlo", "arrangements": "enumerate"}.get(
        work.unit, "convolve" if "exact null" in work.what else "rows")


def test_auto_rule_from_the_kernels_setup_makes_the_old_decisions(named_nulls):
    """skillings_mack()'s kernel decides as before on every balanced shape of the grid, and on designs with empty
    cells (a task of one agent leaves two agents' lattice incommensurable: Monte Carlo; tasks of one run are not
    counted among the tasks)."""
    for agents, tasks, runs in _grid():
        variant = "skillings_mack" if runs == 1 else "mack_skillings"
        counts = np.full((tasks, agents), runs)
        assert _kernel_decision(counts, variant) == _old_decision(agents, tasks, runs), (agents, tasks, runs)
    one_missing = np.ones((8, 3), int)
    one_missing[np.arange(8), np.arange(8) % 3] = 0  # 2**8 arrangements
    assert _kernel_decision(one_missing, "skillings_mack") == "enumerate"
    ten_missing = np.ones((45, 3), int)
    ten_missing[:10, 0] = 0
    assert _kernel_decision(ten_missing, "skillings_mack") == "asymptotic"
    two_single = np.ones((41, 3), int)
    two_single[:2, :2] = 0  # 39 tasks with more than one run
    assert _kernel_decision(two_single, "skillings_mack") == "monte_carlo"
    single = np.ones((6, 2), int)
    single[0, 0] = 0
    assert _kernel_decision(single, "skillings_mack") == "monte_carlo"
    unbalanced = np.full((6, 2), 3)
    unbalanced[0, 0] = 1
    assert _kernel_decision(unbalanced, "mack_skillings") == "convolve"
    one_cell_two = np.ones((10, 3), int)
    one_cell_two[0, 0] = 2
    assert _kernel_decision(one_cell_two, "mack_skillings") == "asymptotic"


def test_auto_rule_from_the_shape_agrees_with_the_kernel():
    """The cost estimate counts the p-value skillings_mack() computes on every balanced shape of the grid: Monte
    Carlo permutations where it draws them, two agents' convolution where it convolves, a pass over the rows for the
    chi-squared p-value, its enumeration for the enumerated one (audit s32 rfix32: a pass over the rows). Before:
    at 2 agents x 30 tasks x 40 runs, past the convolution's work limit,
    skillings_mack() draws 10,000 permutations (1.1 s measured) but the estimate counted the convolution, 0.039 s: the
    rule was written twice and the shape's copy had no case for two agents' Monte Carlo p-value."""
    for agents, tasks, runs in _grid():
        expected = {"asymptotic": "rows"}.get(_old_decision(agents, tasks, runs),
                                                                  _old_decision(agents, tasks, runs))
        assert _cost_decision(agents, tasks, runs) == expected, (agents, tasks, runs)


# --------------------------------------------------------------------------- power() under the default p-value


def _template(agents, tasks, seeds):
    """power()'s simulated design (balanced, stored task by task) and its draws of data sets."""
    study, *_ = planning._prepare("skillings_mack", None, None, 1.0, tasks, agents, "mixed", 1.0, "agents", None,
                                  0.05, 40, 3, 1, None, None, False, None, {}, None)
    return study.source.template(seeds), study


def _with_ties(responses):
    """Rows 0-5 as drawn; 6-10 rounded to whole numbers (ties within tasks); 11-13 with near ties (a value 1e-14
    from another); 14: every score of a task equal; 15: every score equal."""
    responses = responses.copy()
    responses[6:11] = np.round(responses[6:11])
    responses[11:14, 1] = responses[11:14, 0] + 1e-14 * np.abs(responses[11:14, 0])
    responses[14, :4] = 7.0
    responses[15] = 7.0
    return responses


@pytest.mark.parametrize("agents, tasks, seeds, options, case", [
    (2, 6, 1, {}, "convolve"),
    (2, 4, 3, {}, "convolve"),
    (3, 4, 1, {}, "enumerate"),          # Friedman's test: tie correction on tied data sets
    (3, 1, 2, {}, "enumerate"),          # Mack-Skillings on one task
    (2, 5, 1, {"pvalue": "exact", "variant": "mack_skillings"}, None),
])
def test_vectorised_exact_pvalues_are_skillings_macks_own(agents, tasks, seeds, options, case):
    """power()'s vectorised p-values where pvalue="auto" (or "exact") takes the exact null are, to the bit, the
    p-values skillings_mack() gives on each data set, ties and near ties included (before: no vectorised path, 3.2 ms
    a data set, the default power study 12.8 s of CPU instead of 1.5)."""
    design, study = _template(agents, tasks, seeds)
    assert case is None or kernels.auto_case(design.counts, "skillings_mack" if seeds == 1 else "mack_skillings") \
        == case
    responses = _with_ties(study.source.draws(study.root, seeds, 0, 16))
    batch = sm_api.batch_pvalues(design, responses, **options)
    assert batch is not None
    own = [quietly(rlstats.skillings_mack, dataclasses.replace(design, y=y), progress=False, **options).pvalue
           for y in responses]
    assert batch.tolist() == own
    assert 0 < min(own) < max(own) and own[-1] == 1.0  # the data sets tell apart; all tied: p = 1


def test_monte_carlo_pvalues_are_left_to_each_data_sets_streams():
    """The Monte Carlo p-value (asked for, or pvalue="auto"'s at 3 agents x 7 tasks x 1 run; 6 tasks are enumerated
    since audit s31 trialfix31) is not vectorised: each data set draws its permutations from power()'s stream of that
    data set (see batch_pvalues)."""
    design, study = _template(3, 7, 1)
    responses = study.source.draws(study.root, 1, 0, 3)
    assert sm_api.batch_pvalues(design, responses) is None
    assert sm_api.batch_pvalues(design, responses, pvalue="monte_carlo") is None
    assert sm_api.batch_pvalues(design, responses, pvalue="asymptotic") is not None


def test_default_power_grows_with_the_effect_and_the_seeds_where_the_pvalue_is_exact():
    """2 agents x 6 tasks, pvalue="auto" (the exact null convolved at every number of seeds): power grows with the
    effect at each number of seeds and with the seeds at each effect (150 data sets each, margins of 0.05 or more;
    measured 0.05/0.31/0.53 at effect 0.5 and 0.19/0.77/0.97 at effect 1 for 1, 3, 6 seeds)."""
    table = {effect: quietly(rlstats.power, "skillings_mack", effect=effect, agents=2, tasks=6, seeds=[1, 3, 6],
                              n_sim=150, rng=1, progress=False).table["power"].to_numpy()
             for effect in (0.5, 1.0)}
    assert np.all(table[1.0] > table[0.5] + 0.05)
    for powers in table.values():
        assert np.all(np.diff(powers) > 0.05)


def test_default_power_study_is_the_one_without_the_vectorised_path(monkeypatch):
    """power() with the default p-value gives the same table whether the exact p-values are vectorised or every
    data set runs through skillings_mack() (2 agents x 6 tasks at 1 and 3 seeds, exact nulls both)."""
    kwargs = dict(effect=0.8, agents=2, tasks=6, seeds=[1, 3], n_sim=40, rng=7, progress=False)
    fast = quietly(rlstats.power, "skillings_mack", **kwargs)
    monkeypatch.setattr(planning, "_batch_pvalues", lambda method: None)
    slow = quietly(rlstats.power, "skillings_mack", **kwargs)
    assert fast.table.equals(slow.table)
    assert 0 < fast.table["power"].min() < fast.table["power"].max() < 1


def test_exact_p_value_is_never_above_one():
    """The exact p-value sums the null's probabilities at and above the statistic; where the statistic is the
    null's smallest value the sum rounds above one: 1.0000000000000002 printed for two agents x 7 tasks x 3 runs
    whose rank sums were as equal as a task allows."""
    rng = np.random.default_rng(1)
    worst = 0.0
    for _ in range(60):
        n_tasks, runs = 7, 3
        rows = []
        for t in range(n_tasks):
            order = rng.permutation(2 * runs).astype(float)
            first, second = order[0::2], order[1::2]
            if rng.random() < 0.5:
                first, second = second, first
            rows += [("A", f"t{t}", s, x) for s, x in enumerate(first)]
            rows += [("B", f"t{t}", s, x) for s, x in enumerate(second)]
        frame = pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])
        worst = max(worst, rlstats.skillings_mack(frame, "score ~ agent | task").pvalue)
    assert worst == 1.0
