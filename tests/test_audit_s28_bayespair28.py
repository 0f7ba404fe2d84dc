"""Audit s28 bayespair28: rlstats.bayes and pairs of agents that never ran on a common task.

Found: bayes() refused the whole analysis when one pair of agents shared no task (audit design28 had the refusal
offer control= or compare's subset=), so on a chain design (A and B on tasks 1-3, B on every task, C on tasks 4-6)
the two pairs that met, A-B and B-C, went unanalysed for want of A-C; rlstats.equivalence on the same data tests A-B
and B-C and withholds A-C with a note. Groups of agents that never met (A, B on 1-3; C, D on 4-6) were refused too,
though each of bayes' models compares a pair on the tasks where both ran.

Fixed: bayes() compares every pair that shares a task and withholds the others (NaN probabilities, estimate and
credible interval in tidy(); "withheld" in the print, the prose, summary() and its LaTeX; a panel saying so in both
figures), with one note naming them through rlstats.connectivity's ComparisonGraph.never_met_phrase, the words
skillings_mack and mixed now read from the same home. The signed-rank model's orderings need a complete design and
the hierarchical model's orderings=True refuses an incomplete one, as before, so nothing pooled over pairs is given
from pairs that never met; the note of runs at a score cap no longer speaks of a withheld pair. A design where no
pair shares a task is still refused, with its groups and their subset=.

Measured (independent values): the analysed pairs' numbers are those of the model fitted without the withheld
pair, bit for bit. The signed-rank model's Dirichlet weights are drawn over all the design's tasks and shared by all
pairs (the call on two agents' rows, which holds only their tasks, draws other weights: A-B differed there by 1 ulp,
B-C by 0.047 in its mean difference), so its pairs are compared with control='B' on the same data, the way on that
ran before this change: A vs B bit for bit, B vs C as C vs B mirrored bit for bit. The hierarchical model fits a pair alone when no other pair has its tasks, from a stream keyed
by its agents' places among the names: A-B is compared with the call on A's and B's rows (places 0, 1 in both),
and B-C with a design where A also ran tasks 4-5 (so every pair met, the path that ran before this change; B-C
keeps its places 1, 2 and its tasks).
"""

import re

import matplotlib
import numpy as np
import pandas as pd
import pytest

from conftest import BAYES_CHAINS as CHAINS, BAYES_LONG_CHAINS as LONG_CHAINS, pair_row, same_bits
import rlstats
from rlstats.errors import DesignError

matplotlib.use("Agg")

QUICK = {"n_samples": 400, "rng": 3, "progress": False}
PAIR_COLUMNS = ["p_better", "p_rope", "p_worse", "estimate", "conf_low", "conf_high", "n_tasks"]


def _chain(runs=5, rng=2):
    """A on tasks 1-3, B on every task, C on tasks 4-6: A-B and B-C share 3 tasks each, A-C none."""
    df = rlstats.datasets.simulate(["A", "B", "C"], 6, runs, effect=[0.0, 0.5, 1.0], rng=rng)
    tasks = sorted(df.task.unique())
    gone = ((df.agent == "A") & df.task.isin(tasks[3:])) | ((df.agent == "C") & df.task.isin(tasks[:3]))
    return df[~gone].reset_index(drop=True)


# ----------------------------------------------------------------------------- the signed-rank model


def test_signed_rank_compares_the_pairs_that_met_and_withholds_the_one_that_did_not():
    df = _chain()
    res = rlstats.bayes(df, "score ~ agent | task", rope=0.2, **QUICK)
    assert res.tidy()[["agent_1", "agent_2", "n_tasks"]].values.tolist() == [["A", "B", 3], ["A", "C", 0],
                                                                            ["B", "C", 3]]
    assert pair_row(res, "A", "C")[PAIR_COLUMNS[:-1]].isna().all()
    said = [n for n in res.notes if "never ran on a common task" in n]
    assert len(said) == 1 and said[0].startswith("1 pair of agents never ran on a common task (A-C): its "
                                                 "probabilities, mean difference and credible interval are withheld")
    # the partial-tasks note counts the pairs compared, not the one withheld
    assert any(n.startswith("2 pairs of agents compared did not share every task") for n in res.notes)  # s38
    assert not any("A vs C" in n for n in res.notes)
    # each pair that met is what control='B' gave before this change (design28's way on), bit for bit: A vs B as is,
    # C vs B mirrored (the kernel computes each side's mass directly, so mirrored data give the same bits)
    hub = rlstats.bayes(df, "score ~ agent | task", rope=0.2, control="B", **QUICK)
    assert hub.tidy()[["agent_1", "agent_2"]].values.tolist() == [["A", "B"], ["C", "B"]]
    same_bits(pair_row(res, "A", "B")[PAIR_COLUMNS], pair_row(hub, "A", "B")[PAIR_COLUMNS])
    same_bits(res.posterior_draws[0], hub.posterior_draws[0])
    same_bits(res.simplex_draws[0], hub.simplex_draws[0])
    mirrored = pair_row(hub, "C", "B")
    same_bits(pair_row(res, "B", "C")[["p_better", "p_rope", "p_worse", "estimate", "n_tasks"]],
               [mirrored.p_worse, mirrored.p_rope, mirrored.p_better, -mirrored.estimate, mirrored.n_tasks])
    # the interval's quantiles of the negated draws interpolate with their own rounding (1 ulp apart here)
    assert pair_row(res, "B", "C")[["conf_low", "conf_high"]].to_numpy(dtype=float) == pytest.approx(
        [-mirrored.conf_high, -mirrored.conf_low], rel=1e-14)
    same_bits(res.posterior_draws[2], -hub.posterior_draws[1])
    same_bits(res.simplex_draws[2], hub.simplex_draws[1][:, ::-1])
    # independent value of a met pair's estimate: each posterior draw is a Dirichlet-weighted mean of the pair's
    # task differences, so the posterior mean is close to their plain mean (weights 1 each, prior 0.5 at 0)
    means = df.groupby(["agent", "task"]).score.mean().unstack()
    d = (means.loc["A"] - means.loc["B"]).dropna()
    assert pair_row(res, "A", "B")["estimate"] == pytest.approx(d.sum() / (len(d) + 0.5), abs=0.1 * d.abs().max())
    assert np.isnan(res.posterior_draws[1]).all() and np.isnan(res.simplex_draws[1]).all()
    # nothing pooled over pairs: orderings need every agent on every task
    assert res.orderings is None and any("not given for this incomplete design" in n for n in res.notes)


def test_withheld_pair_in_print_prose_summary_latex_and_figures():
    res = rlstats.bayes(_chain(), "score ~ agent | task", rope=0.2, **QUICK)
    printed = str(res)
    line = [x for x in printed.splitlines() if "A vs C" in x]
    assert len(line) == 1 and "withheld" in line[0]
    assert "A vs C: withheld (the agents never ran on a common task)" in res.report()
    pairs = res.summary().tables["Pairs"]
    assert pairs.loc[pairs.agent_1.eq("A") & pairs.agent_2.eq("C"), "p_better"].tolist() == ["withheld"]
    latex = res.summary().to_latex()
    assert "withheld" in latex and not re.search(r"&\s*nan\b|\bnan\s*&", latex, re.IGNORECASE)
    for kind in ("posterior", "simplex"):
        fig = res.plot(kind=kind)
        panel = fig.axes[1]
        assert panel.get_title().startswith("A vs C")
        assert any("withheld" in t.get_text() and "never ran on a common task" in t.get_text() for t in panel.texts)
        assert not panel.patches and not panel.collections  # no histogram or draws of a pair not compared
        matplotlib.pyplot.close(fig)


def test_groups_apart_compare_within_groups():
    # {A, B} on tasks 1-3, {C, D} on tasks 4-6: audit design28 refused this with the groups' subset=
    df = _chain()
    df = pd.concat([df[~((df.agent == "B") & df.task.isin(["task_04", "task_05", "task_06"]))],
                    df[df.agent == "C"].assign(agent="D", score=lambda d: d.score + 1.0)], ignore_index=True)
    res = rlstats.bayes(df, "score ~ agent | task", **QUICK)
    tidy = res.tidy()
    assert tidy.loc[tidy.n_tasks > 0, ["agent_1", "agent_2"]].values.tolist() == [["A", "B"], ["C", "D"]]
    assert tidy.loc[tidy.n_tasks == 0, "p_better"].isna().all() and (tidy.n_tasks == 0).sum() == 4
    assert any(n.startswith("4 pairs of agents never ran on a common task (A-C, A-D, B-C and B-D): their ")
               for n in res.notes)
    alone = rlstats.bayes(df[df.agent.isin(["C", "D"])], "score ~ agent | task", **QUICK)
    # C and D hold tasks 4-6 only, so their Dirichlet weights are not the full call's: the same model, other draws
    assert pair_row(res, "C", "D")["estimate"] == pytest.approx(alone.tidy().iloc[0]["estimate"], abs=0.05)


def test_no_pair_that_met_is_still_refused():
    # every task the design keeps holds 2 agents, so some pair met wherever a design is analysed at all
    df = _chain()
    with pytest.raises(DesignError, match="no task has runs of at least two agents"):  # the design's own refusal
        rlstats.bayes(df[df.agent.isin(["A", "C"])], "score ~ agent | task", **QUICK)


def test_control_that_some_agent_never_met():
    res = rlstats.bayes(_chain(), "score ~ agent | task", control="A", **QUICK)
    assert res.tidy()[["agent_1", "agent_2", "n_tasks"]].values.tolist() == [["B", "A", 3], ["C", "A", 0]]
    assert np.isfinite(pair_row(res, "B", "A")["p_better"]) and np.isnan(pair_row(res, "C", "A")["p_better"])
    assert any(n.startswith("1 pair of agents never ran on a common task (C-A)") for n in res.notes)


def test_cap_note_leaves_out_a_withheld_pair():
    df = _chain()
    capped = df.copy()
    on = (capped.agent == "A") & (capped.task == "task_01")
    capped.loc[on, "score"] = np.where(np.arange(on.sum()) < 4, 50.0, 1.0)  # 4 of A's 5 runs at the task's top
    res = rlstats.bayes(capped, "score ~ agent | task", **QUICK)
    cap = [n for n in res.notes if "as at a score cap" in n]
    assert len(cap) == 1 and "A vs B on 1 of 3 tasks" in cap[0] and "A vs C" not in cap[0]


# ----------------------------------------------------------------------------- the hierarchical model


@pytest.mark.filterwarnings("ignore:the chains of")  # chains this short miss R-hat, which is not what is tested
@pytest.mark.parametrize("settings", [CHAINS, pytest.param(LONG_CHAINS, marks=pytest.mark.slow)],
                         ids=["first fit", "run again"])
def test_hierarchical_compares_the_pairs_that_met_bit_for_bit(settings):
    df = _chain(runs=4)
    res = rlstats.bayes(df, "score ~ agent | task/seed", rope=0.2, **settings)
    row = pair_row(res, "A", "C")
    assert row[PAIR_COLUMNS[:-1] + ["p_better_next", "r_hat", "ess_bulk"]].isna().all() and row["n_tasks"] == 0
    assert not (res.diagnostics.agent_1.eq("A") & res.diagnostics.agent_2.eq("C")).any()
    assert any(n.startswith("1 pair of agents never ran on a common task (A-C): its probabilities, centre of the "
                            "differences (delta0) and credible interval are withheld") for n in res.notes)
    columns = PAIR_COLUMNS + ["p_better_next", "p_rope_next", "p_worse_next", "r_hat", "ess_bulk"]
    # A-B alone in its tasks and at places 0, 1: the call on A's and B's rows fits the same pair from the same stream
    alone = rlstats.bayes(df[df.agent.isin(["A", "B"])], "score ~ agent | task/seed", rope=0.2, **settings)
    same_bits(pair_row(res, "A", "B")[columns], alone.tidy().iloc[0][columns])
    same_bits(res.posterior_draws[0], alone.posterior_draws[0])
    # B-C (places 1, 2) against a design where A also ran tasks 4-5, so that every pair met (the path that ran before)
    more = rlstats.datasets.simulate(["A"], ["task_04", "task_05"], 4, rng=5)
    linked = pd.concat([df, more], ignore_index=True)
    met = rlstats.bayes(linked, "score ~ agent | task/seed", rope=0.2, **settings)
    assert met.tidy().n_tasks.tolist() == [5, 2, 3]
    same_bits(pair_row(res, "B", "C")[columns], pair_row(met, "B", "C")[columns])
    same_bits(res.posterior_draws[2], met.posterior_draws[2])
    by = ["agent_1", "agent_2", "parameter"]
    mine = res.diagnostics[res.diagnostics.agent_1.eq("B")].set_index(by)
    theirs = met.diagnostics[met.diagnostics.agent_1.eq("B")].set_index(by)
    same_bits(mine.to_numpy(), theirs.loc[mine.index].to_numpy())
    # independent value: with flat priors and 4 paired runs a task, delta0 sits near the median task difference
    paired = df.pivot_table(index=["task", "seed"], columns="agent", values="score")
    d = (paired["A"] - paired["B"]).dropna().groupby(level=0).mean()
    assert d.min() - 0.5 <= pair_row(res, "A", "B")["estimate"] <= d.max() + 0.5
    assert "A vs C: withheld (the agents never ran on a common task)" in res.report()


@pytest.mark.filterwarnings("ignore:the chains of")
def test_hierarchical_withholds_a_pair_on_one_task_and_fits_the_others():
    # C also ran task_03: A and C share that task alone, which refused the whole call ("needs at least 2 tasks")
    df = _chain(runs=4)
    more = rlstats.datasets.simulate(["C"], ["task_03"], 4, effect=1.0, rng=7)
    df = pd.concat([df, more], ignore_index=True)
    res = rlstats.bayes(df, "score ~ agent | task/seed", rope=0.2, **CHAINS)
    row = pair_row(res, "A", "C")
    assert row["n_tasks"] == 1 and row[PAIR_COLUMNS[:-1] + ["p_better_next", "r_hat"]].isna().all()
    said = [n for n in res.notes if "share only one" in n]
    assert len(said) == 1 and "A vs C (task_03) share only one, so its probabilities, centre of the differences " \
        "(delta0) and credible interval are withheld" in said[0]
    assert not any("A vs C" in n for n in res.notes if n not in said)  # the few-runs note leaves it out
    # its task's observed difference: the mean of the runs' differences paired by seed, from the frame itself
    paired = df[df.task == "task_03"].pivot_table(index="seed", columns="agent", values="score")
    effects = res.task_effects[res.task_effects.agent_1.eq("A") & res.task_effects.agent_2.eq("C")]
    assert effects["observed"].tolist() == pytest.approx([(paired["A"] - paired["C"]).mean()], rel=1e-12)
    assert effects["estimate"].isna().all()
    # A-B keeps its tasks and places: the call on A's and B's rows, bit for bit
    alone = rlstats.bayes(df[df.agent.isin(["A", "B"])], "score ~ agent | task/seed", rope=0.2, **CHAINS)
    columns = PAIR_COLUMNS + ["p_better_next", "p_rope_next", "p_worse_next", "r_hat", "ess_bulk"]
    same_bits(pair_row(res, "A", "B")[columns], alone.tidy().iloc[0][columns])
    line = [x for x in str(res).splitlines() if x.strip().startswith("A vs C")]
    assert len(line) == 1 and line[0].split() == ["A", "vs", "C", "withheld", "1"]
    assert "A vs C: probabilities and credible interval withheld (one shared task);" in res.report()
    assert "nan" not in res.report().lower().replace("(nan in tidy())", "")
    fig = res.plot()
    assert any("one shared task" in t.get_text() for t in fig.axes[1].texts) and not fig.axes[1].patches
    matplotlib.pyplot.close(fig)
