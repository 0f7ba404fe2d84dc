"""Audit of session 10 (helper ``order``): the random back ends left out of session 9's fix, AdaStop and the
permutation test, under another order of the agents and tasks (a Categorical's category order, the order an
incremental AdaStop lists its agents in, the rows of the command line's first batch file), and a state saved before
the fix; then the rest of the package for results that change with the rows' order, a category order (of the agent,
task, seed, config and batch columns), the score's units (positive scaling, also of tied integer scores against the
same scores in tenths or thirds, which the metamorphic suite's continuous scores never tie) or the frame library
(polars, pyarrow; pyarrow dictionary columns), on every back end of tests/test_metamorphic.py's cases, power() from a
pilot, and the printed forms (print, summary, to_latex, Markdown).

Defects found, each a reproducer below with the numbers seen, all fixed: AdaStop's and the permutation test's paths
followed the design's order of the agents and tasks (and the incremental AdaStop its agents' listed order); their
path statistics that tie were split by the rounding of sums (p-values and decisions moved with the units of tied
scores); curves' sup-t band counted a step's rounding noise as spread, and laid out a task's runs in the seed
column's category order; tuning's best set compared tied bootstrap means exactly; to_latex moved a column between
the table and its caption when its values differed in the last bit (the rows' order sets the summation order).
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats.methods.adastop import AdaStop, adastop, permutation

#: a version 3 state written by rlstats before this fix (session 9, commit 9370b69): agents listed unsorted, one
#: batch fed; with the agents' names sorted its later interims would draw other paths
OLD_STATE = {'format': 'rlstats.AdaStop',
 'version': 3,
 'agents': ['ppo', 'dqn', 'sac'],
 'options': {'n': 5,
             'K': 4,
             'n_resamples': 500,
             'alpha': 0.05,
             'beta': 0.0,
             'comparisons': 'all',
             'reference': None,
             'permutations': 'joint'},
 'seed': {'entropy': 3, 'spawn_key': [], 'record': 3},
 'batches': [{'ppo': [-0.802, -1.324, -0.248, 0.42, 1.136],
              'dqn': [0.61, -0.053, -0.285, 1.249, 2.135],
              'sac': [1.273, -0.233, 0.042, 2.6, 1.203]}],
 'digests': ['1f2af78f5f6ac8f0fb89ea918114038b817de97af4388c0dec18ed306124e1bf'],
 'integrity': {'algorithm': 'sha256',
               'fields': {'agents': 'd4e40812b04e02ea',
                          'options.n': '569333fdce61d024',
                          'options.K': '37bc1e8b2fea690a',
                          'options.n_resamples': '4596d80a9d8388b2',
                          'options.alpha': '3fd6dc6e2ad6206b',
                          'options.beta': '2218f2e70ce8f8dd',
                          'options.comparisons': '0692941e2a70c2c6',
                          'options.reference': '9d20196c1824d7e4',
                          'options.permutations': '6aeb160f76306f62',
                          'seed': '1713ebbef04d0eb2',
                          'migrated': 'c85ad7a822ccc949'},
               'scores': ['22f53f2a7c7adf85'],
               'end': 'b90adb085533f9e7874bc3232572e4bbe97a1e9e290ff6cc312489a9be0dbf31'}}

#: the batches of that campaign (the first is the state's)
OLD_BATCHES = [{'dqn': [0.61, -0.053, -0.285, 1.249, 2.135],
  'ppo': [-0.802, -1.324, -0.248, 0.42, 1.136],
  'sac': [1.273, -0.233, 0.042, 2.6, 1.203]},
 {'dqn': [-0.213, 1.053, 0.437, -0.089, 0.91],
  'ppo': [-1.732, -0.084, -1.163, -0.629, -0.488],
  'sac': [1.83, -0.643, 0.743, 0.019, 0.827]},
 {'dqn': [0.104, -0.591, -0.855, 0.725, -0.609],
  'ppo': [-1.289, 0.021, -0.038, -0.304, -1.048],
  'sac': [2.17, 1.717, -0.998, 1.272, -0.102]},
 {'dqn': [1.462, -0.681, 1.238, -0.599, 0.169],
  'ppo': [0.033, 0.044, -1.988, -0.233, -0.256],
  'sac': [0.16, 2.449, 1.568, 3.432, 1.642]}]


def _reordered(df, column):
    """The same rows and labels, ``column`` a Categorical whose categories are in reverse sort order."""
    out = df.copy()
    labels = out[column].astype(str)
    out[column] = pd.Categorical(labels, categories=sorted(set(labels))[::-1])
    return out


def _quiet(call, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return call(*args, **kwargs)


_MIRROR = {"larger": "smaller", "smaller": "larger"}


def _by_pair(decisions, *columns):
    """{(task, name, name) sorted: (decision read in that orientation, *columns)}: tables of another agent order
    name a pair the other way round."""
    out = {}
    for row in decisions.to_dict("records"):
        a, b, decision = str(row["agent_1"]), str(row["agent_2"]), row["decision"]
        sign = 1.0
        if a > b:
            a, b, decision, sign = b, a, _MIRROR.get(decision, decision), -1.0
        values = tuple(sign * row[c] if c == "estimate" else row[c] for c in columns)
        out[(str(row.get("task", "")), a, b)] = (decision, *values)
    return out


def _pvalues(res):
    tidy = res.tidy()
    task = tidy["task"].astype(str) if "task" in tidy else pd.Series("", index=tidy.index)
    return {(t, *sorted((str(a), str(b)))): p for t, a, b, p in zip(task, tidy["agent_1"], tidy["agent_2"],
                                                                     tidy["p_adjusted"])}


# ------------------------------------------------------------------------------------------------ the permutation test

def test_permutation_pvalues_do_not_depend_on_agent_category_order():
    """The step-down p-values changed when only the agent column's category order was reversed (same rows, labels,
    rng=1, 2000 relabellings, 3 agents x 6 runs): agent_1 vs agent_2 0.1705 became 0.1680, agent_1 vs agent_3
    0.1390 became 0.1425, agent_2 vs agent_3 0.8730 became 0.8535. The joint relabelling pooled the agents in the
    design's order. (The joint relabelling's numbers: holm is the default since audit s29b.)"""
    df = rlstats.datasets.simulate(agents=3, tasks=1, seeds=6, effect=[0.0, 0.6, 1.2], rng=0)
    a = permutation(df, "score ~ agent", rng=1, n_resamples=2000, permutations="joint")
    b = permutation(_reordered(df, "agent"), "score ~ agent", rng=1, n_resamples=2000, permutations="joint")
    assert _pvalues(b) == _pvalues(a)
    assert _pvalues(a)[("", "agent_1", "agent_2")] == 0.1705


def test_permutation_pvalues_do_not_depend_on_task_category_order():
    """The p-values of tasks 1 and 3 changed when only the task column's category order was reversed (same rows,
    labels, rng=1): task_03's agent_1 vs agent_2 0.0130 became 0.0155, task_01's agent_2 vs agent_3 0.8730 became
    0.8615. Each task's stream was keyed by its position in the design."""
    df = rlstats.datasets.simulate(agents=3, tasks=3, seeds=6, effect=[0.0, 0.6, 1.2], rng=0)
    a = permutation(df, "score ~ agent | task", rng=1, n_resamples=2000)
    b = permutation(_reordered(df, "task"), "score ~ agent | task", rng=1, n_resamples=2000)
    assert _pvalues(b) == _pvalues(a)


# ------------------------------------------------------------------------------------------------ AdaStop

@pytest.mark.parametrize("agents, effect, permutations, seed", [(3, [0.0, 0.5, 1.0], "joint", 1),
                                                                (2, [0.0, 0.8], "joint", 2),
                                                                (3, [0.0, 0.5, 1.0], "pairwise", 6)])
def test_adastop_decisions_do_not_depend_on_agent_category_order(agents, effect, permutations, seed):
    """AdaStop's decisions changed when only the agent column's category order was reversed (same rows, labels,
    rng=1, n=5, K=4, 500 paths, 20 runs per agent): with 3 agents agent_1 < agent_3 was decided at interim 4, at
    interim 3 reversed; with 2 agents (slot choices, the pair then named agent_2 vs agent_1) agent_1 < agent_2 at
    interim 3 became interim 2; with permutations="pairwise" agent_1 vs agent_2 'equal' became 'smaller'. The joint
    relabelling pooled the agents in the design's order, and a slot choice applies to a pair in its orientation,
    which for "all" pairs the design's order set."""
    df = rlstats.datasets.simulate(agents=agents, tasks=1, seeds=20, effect=effect, rng=seed)
    options = dict(n=5, K=4, n_resamples=500, rng=1, permutations=permutations)
    a = adastop(df, "score ~ agent", **options)
    b = adastop(_reordered(df, "agent"), "score ~ agent", **options)
    columns = ("interim", "estimate", "n_1", "boundary")
    assert _by_pair(b.decisions, *columns) == _by_pair(a.decisions, *columns)
    assert [str(x) for x in b.decisions["agent_1"]] == [str(x) for x in b.tidy()["agent_1"]]


def test_adastop_decisions_do_not_depend_on_task_category_order():
    """Reversing only the task column's category order changed a task's decisions (same rows, labels, rng=1):
    each task's paths came from a stream keyed by its position in the design."""
    df = rlstats.datasets.simulate(agents=3, tasks=3, seeds=20, effect=[0.0, 0.5, 1.0], rng=1)
    options = dict(n=5, K=4, n_resamples=500, rng=1)
    a = adastop(df, "score ~ agent | task", **options)
    b = adastop(_reordered(df, "task"), "score ~ agent | task", **options)
    columns = ("interim", "estimate", "boundary")
    assert _by_pair(b.decisions, *columns) == _by_pair(a.decisions, *columns)


def _campaign(agents, upto=4):
    seq = AdaStop(agents, n=5, K=4, n_resamples=500, rng=3)
    for batch in OLD_BATCHES[:upto]:
        if seq.done:
            break
        seq.update({a: batch[a] for a in seq.agents_to_run})
    return seq


def test_incremental_adastop_does_not_depend_on_the_order_agents_are_listed():
    """AdaStop(["ppo", "dqn", "sac"]) and AdaStop(["dqn", "ppo", "sac"]) fed the same batches with rng=3 decided
    ppo < sac at interim 3 and at interim 2: the paths relabelled the agents in the order listed (on the command
    line, the order they first appear in the first batch file)."""
    a = _campaign(["dqn", "ppo", "sac"])
    b = _campaign(["ppo", "dqn", "sac"])
    assert _by_pair(b.decisions, "interim") == _by_pair(a.decisions, "interim")
    assert _by_pair(a.decisions, "interim")[("", "ppo", "sac")] == ("smaller", 2)


def test_a_state_written_before_resumes_with_its_decisions():
    """A version 3 state written before the fix (agents listed unsorted) replays and continues with the paths it
    was begun with: ppo < sac at interim 3, as the uninterrupted old run decided, where the names' sorted order
    would decide it at interim 2."""
    seq = _quiet(AdaStop.from_state, json.loads(json.dumps(OLD_STATE)))
    for batch in OLD_BATCHES[1:]:
        if seq.done:
            break
        seq.update({a: batch[a] for a in seq.agents_to_run})
    assert seq.decisions[["agent_1", "agent_2", "decision", "interim"]].values.tolist() == [
        ["ppo", "dqn", "equal", 4], ["ppo", "sac", "smaller", 3], ["dqn", "sac", "equal", 4]]
    def mean(agent, interims):  # an agent's mean over its runs of the first ``interims`` batches
        return np.mean([x for batch in OLD_BATCHES[:interims] for x in batch[agent]])

    # each pair's estimate is the difference of the two agents' means over the runs up to its decision
    expected = [mean("ppo", 4) - mean("dqn", 4), mean("ppo", 3) - mean("sac", 3), mean("dqn", 4) - mean("sac", 4)]
    assert seq.result().decisions["estimate"].tolist() == pytest.approx(expected, rel=1e-12)


def test_an_old_state_keeps_its_order_through_saves_and_says_so(tmp_path):
    """The version 3 state above, loaded, saved and loaded again: it is written as version 4 with "draws": "listed",
    loads without a warning, keeps its decisions, and its result's notes say that its paths follow the order
    listed; a version 3 state whose agents are listed sorted draws as a new test does ("sorted")."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a version 3 state loads without a warning
        seq = AdaStop.from_state(json.loads(json.dumps(OLD_STATE)))
    path = seq.save(tmp_path / "state.json")
    state = json.loads(path.read_text())
    assert state["version"] == 4 and state["draws"] == "listed" and "migrated" not in state
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        again = AdaStop.load(path)
    for batch in OLD_BATCHES[1:]:
        if again.done:
            break
        again.update({a: batch[a] for a in again.agents_to_run})
    assert again.decisions["interim"].tolist() == [4, 3, 4]
    assert any("lay the agents out in the order listed (ppo, dqn, sac)" in note for note in again.result().notes)
    fresh = _campaign(["dqn", "ppo", "sac"], upto=1).to_state()
    assert fresh["version"] == 4 and fresh["draws"] == "sorted"
    assert not any("order listed" in note for note in _campaign(["dqn", "ppo", "sac"]).result().notes)


def test_a_states_draw_order_is_covered_by_its_digests():
    """"draws" of a version 4 state is a setting its digests cover: edited, it is refused naming it; missing or
    unknown, the state is damaged; a later version is refused with what to do."""
    state = _campaign(["ppo", "dqn", "sac"], upto=1).to_state()
    edited = dict(state, draws="listed")
    with pytest.raises(rlstats.errors.DesignError, match="the order its random paths draw the agents in changed"):
        AdaStop.from_state(edited)
    for value in (None, "shuffled"):
        broken = dict(state, draws=value)
        with pytest.raises(rlstats.errors.DesignError, match="\"draws\" must be one of 'sorted', 'listed'"):
            AdaStop.from_state(broken)
    with pytest.raises(rlstats.errors.DesignError, match="version 5 is not supported .* reads versions 1, 2, 3, 4"):
        AdaStop.from_state(dict(state, version=5))


def test_the_command_line_does_not_depend_on_the_row_order_of_the_first_batch_file(tmp_path):
    """`rlstats adastop update` takes the agents in the order they first appear in the first batch file: two files
    with the same runs, rows in another order, began tests that decided ppo < sac at interim 3 or 2. The paths now
    follow the names sorted: both decide at interim 2."""
    import io

    import rlstats.cli as cli

    decided = []
    for order in (["ppo", "dqn", "sac"], ["dqn", "ppo", "sac"]):
        state = tmp_path / f"{order[0]}.json"
        for k, batch in enumerate(OLD_BATCHES, start=1):
            path = tmp_path / f"{order[0]}{k}.csv"
            pd.DataFrame([(a, x) for a in order for x in batch[a]], columns=["agent", "score"]).to_csv(path)
            argv = ["adastop", "update", str(state), str(path)] + (["--K", "4", "--seed", "3", "--n-resamples", "500",
                                                                     "--permutations", "joint"]
                                                                    if k == 1 else [])
            assert cli.main(argv, out=io.StringIO()) == 0
        decided.append(_by_pair(AdaStop.load(state).decisions, "interim"))
    assert decided[0] == decided[1] and decided[0][("", "ppo", "sac")] == ("smaller", 2)


# ------------------------------------------------------------------------------------------- the rest: printed forms

def test_latex_layout_does_not_depend_on_the_row_order():
    """The mixed model's LaTeX changed with the rows' order (simulate rng=1, 3 agents x 6 tasks x 4 runs, rows
    shuffled): its marginal means' std. errors 1.3958869702542909, 1.395886970254291, 1.395886970254291 (sums in
    one order) became 1.3958869702543 in every row (in another), so one table printed a row "std. error & 1.3959 &
    1.3959 & 1.3959" where the other stated "In every row, std. error: 1.3959" in its caption, and the
    pairwise table's df moved the other way; in 6 of 10 simulated data sets. A column is stated once when its
    cells print alike."""
    df = rlstats.datasets.simulate(agents=3, tasks=6, seeds=4, effect=1.0, rng=1)
    df.attrs = {}
    base = rlstats.mixed(df, "score ~ agent | task").to_latex()
    shuffled = rlstats.mixed(df.sample(frac=1.0, random_state=1).reset_index(drop=True), "score ~ agent | task")
    assert shuffled.to_latex() == base
    assert rlstats.mixed(_reordered(df, "task"), "score ~ agent | task").to_latex() == base
    assert "In every column, std. error: 1.3959; df: 5.885." in base and "df & 10" not in base


# ------------------------------------------------------------------------------------------------ the rest: units

def _successes(seed, rates, runs):
    gen = np.random.default_rng(seed)
    rows = [(a, int(gen.binomial(10, p))) for a, p in zip("abc", rates) for _ in range(runs)]
    return pd.DataFrame(rows, columns=["agent", "score"])


def test_permutation_pvalues_do_not_depend_on_the_units_of_tied_scores():
    """Successes out of 10 (integers) and the same runs as success rates (/ 10) gave other step-down p-values with
    the same rng (3 agents x 10 runs, rates 0.5, 0.6, 0.7, 2000 relabellings): 0.2765, 0.2765, 0.9575 became
    0.2485, 0.237, 0.913. Tied scores make many relabellings tie with the observed statistic; in integers their sums
    are exact and count as reaching it, in rates they differ in the last bits and about half fell below, which
    lowered the p-values. Path statistics within 1e-12 of the runs' summed |score| now count as ties. (The joint relabelling's numbers: holm is the default since audit s29b.)"""
    df = _successes(0, (0.5, 0.6, 0.7), 10)
    a = permutation(df, "score ~ agent", rng=1, n_resamples=2000, permutations="joint").tidy()["p_adjusted"].tolist()
    for factor in (0.1, 1 / 3, 7.0):
        b = permutation(df.assign(score=df.score * factor), "score ~ agent", rng=1, n_resamples=2000, permutations="joint")
        assert b.tidy()["p_adjusted"].tolist() == a
    assert a == [0.2765, 0.2765, 0.9575]


def test_adastop_decisions_do_not_depend_on_the_units_of_tied_scores():
    """AdaStop on successes out of 10 decided a < b at interim 4, on the same runs as rates (/ 10) at interim 2
    (2 agents x 20 runs, rates 0.5 and 0.65, n=5, K=4, rng=1): the exact first interim's paths that tie with the
    observed sum fell on either side of it by rounding."""
    df = _successes(17, (0.5, 0.65), 20)
    options = dict(n=5, K=4, n_resamples=500, rng=1)
    a = adastop(df, "score ~ agent", **options).decisions[["decision", "interim"]].values.tolist()
    for factor in (0.1, 1 / 3):
        b = adastop(df.assign(score=df.score * factor), "score ~ agent", **options)
        assert b.decisions[["decision", "interim"]].values.tolist() == a
    assert a == [["smaller", 4]]


def test_curve_bands_do_not_depend_on_the_units_of_tied_scores():
    """curves()' simultaneous band of agent_1 at step 250k was [4.438, 7.852] on integer scores (3 agents x 4 tasks x
    3 runs x 5 steps, rng=1, 100 resamples) and [0.2726, 0.9607] on the same scores / 10, that is [2.726, 9.607]
    in the first units (x 1/3 and x 10 kept it). At step 0 every run ties: the resamples' standard deviation is 0
    in integers, so the step is left out of the sup-t band's maximum, but 1.7e-15 in tenths (the rounding of
    sums), which let ratios of noise to noise set that maximum. A spread within TIE_TOLERANCE of the step's
    largest |value| is now none (the sup-t band and the max-T tests of differences)."""
    df = rlstats.datasets.simulate_curves(agents=3, tasks=4, seeds=3, steps=5, effect=0.5, rng=0)
    df["score"] = np.round(df["score"] * 2)
    bands = []
    for factor in (1.0, 0.1):
        res = _quiet(rlstats.curves, df.assign(score=df["score"] * factor), "score ~ agent | task/seed", step="step",
                     rng=1, n_resamples=100)
        bands.append(res.tidy()[["conf_low", "conf_high", "conf_low_simultaneous", "conf_high_simultaneous"]]
                     .to_numpy() / factor)
    np.testing.assert_allclose(bands[1], bands[0], rtol=1e-9)
    # since the saturation rule (audit s10 saturated), agent_1's band at 250k is withheld in every unit (3/4 of its
    # runs there tie at a task's largest or smallest score) and the sup-t band spans the other steps
    assert np.isnan(bands[0][1, 2:]).all()
    # audit s32 curves32: each agent's resamples from its label's stream moved it from [5.666667, 8.518724], which
    # the former keys gave (test_audit_s32_curves32 checked it until audit s34)
    # audit s33 curvestream33 (a stream a task, its runs in their content's order): from [5.833333, 7.250723]
    assert bands[0][2, 2:] == pytest.approx([5.833333, 8.457126], abs=1e-6)


def test_tuned_score_does_not_depend_on_the_units_of_tied_scores():
    """tuning()'s tuned score of ppo on hopper was 2.0225 on integer scores (a sweep of 3 learning rates x 4 seeds,
    rng=1, 100 resamples) and 0.20075 on the same scores / 10, 2.0075 in the first units; its lr=0.01's probability
    of being best 0.95 and 0.945. Resamples whose bootstrap means tie exactly in integers (shared in the best set's
    credit, the winner the first in search order) differed in their last bits in tenths, and the rounding picked
    the winner."""
    gen = np.random.default_rng(0)
    rows = [(a, t, lr, s, (lr == 0.01) + gen.normal()) for a in ("ppo", "sac") for t in ("ant", "hopper")
            for lr in (0.001, 0.01, 0.1) for s in range(4)]
    df = pd.DataFrame(rows, columns=["agent", "task", "lr", "seed", "score"])
    df["score"] = np.round(df["score"] * 2)
    found = []
    for factor in (1.0, 0.1):
        res = rlstats.tuning(df.assign(score=df["score"] * factor), "score ~ agent | task/seed", config="lr",
                             n_resamples=100, rng=1)
        tidy = res.tidy()
        found.append((tidy[["estimate", "conf_low", "conf_high"]].to_numpy() / factor,
                      res.best_set()["probability_best"].to_numpy()))
    np.testing.assert_allclose(found[1][0], found[0][0], rtol=1e-9)
    np.testing.assert_allclose(found[1][1], found[0][1], rtol=1e-12)
    # audit s32 stream32: each sweep's resamples from its agent's and task's names' stream moved it from 2.0225, which
    # the former keys gave (test_audit_s32_stream32 checked it until audit s34)
    # audit s33 curvestream33 (a configuration's runs in their scores' order): from 2.1525
    assert found[0][0][2, 0] == pytest.approx(2.1575)


def test_adastop_power_from_a_pilot_does_not_depend_on_its_units():
    """power("adastop") from a pilot gave 0.35 at 10 seeds and 0.375 from the same pilot x 1000 (rng=1, 10 data
    sets from 3 agents x 4 tasks x 5 runs): the data sets resample the pilot's runs with replacement, so their runs
    tie, and so do many permutation paths with the observed statistic; the rounding of sums in the other units split
    those ties (the fix of the test above). The joint relabelling's numbers (holm, the default since audit s29b, has others)."""
    df = rlstats.datasets.simulate(agents=3, tasks=4, seeds=5, effect=1.0, rng=0)
    df.attrs = {}

    def power(frame):
        res = rlstats.power("adastop", design=frame, formula="score ~ agent | task", seeds=[10], n_sim=10, rng=1,
                            progress=False, permutations="joint")
        return res.tidy()["power"].tolist()
    # 0.35 until audit s33 keyed each task's stream by its name (test_audit_s33_stream33: 0.35 under the former keys),
    # 0.4 until audit s34 powerstream34 drew each pilot cell's runs from its labels' stream
    assert power(df.assign(score=df["score"] * 1000)) == power(df) == [0.375]


def test_curve_bands_do_not_depend_on_the_seed_category_order():
    """curves()' bands changed when only the seed column's category order was reversed (same rows and labels, rng=1,
    100 resamples, 3 agents x 3 tasks x 4 seeds x 4 steps): agent_1's simultaneous upper end at step 0 12.811 became
    12.460, its pointwise band at 666,667 [7.639, 16.931] became [7.013, 16.754]. A row shuffle changed nothing: the
    runs of a cell were laid out in the seed's design order, which a Categorical's category order sets, and the
    resamples pick positions."""
    df = rlstats.datasets.simulate_curves(agents=3, tasks=3, seeds=4, steps=4, effect=0.5, rng=0)
    df.attrs = {}
    a = rlstats.curves(df, "score ~ agent | task/seed", step="step", rng=1, n_resamples=100).tidy()
    reordered = df.assign(seed=pd.Categorical(df["seed"], categories=sorted(set(df["seed"]))[::-1]))
    b = rlstats.curves(reordered, "score ~ agent | task/seed", step="step", rng=1, n_resamples=100).tidy()
    columns = ["estimate", "conf_low", "conf_high", "conf_low_simultaneous", "conf_high_simultaneous"]
    np.testing.assert_allclose(b[columns].to_numpy(), a[columns].to_numpy(), rtol=1e-12)
