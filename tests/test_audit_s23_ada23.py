"""Audit s23 (ada23): AdaStop on real data as a user meets it.

Audited: ``rlstats.adastop`` on the published HalfCheetah SAC/TD3 and MuJoCo batch scores and on the SB3 logs'
evaluations (``read_logs`` + ``summarize_runs``), the incremental ``AdaStop`` and its command line
(``rlstats adastop update/status/plot``) batch after batch, resumed from the state file; what the printed result,
its tables and LaTeX say of the rows analysed; invariance to units and row order; one decision against an exact
enumeration.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from pandas import read_csv

import rlstats


def _halfcheetah(published):
    return read_csv(published / "halfcheetah_sac_td3.csv")


# ----------------------------------------------------------------------------- runs given, in the runs-used table

def test_runs_used_counts_every_run_given(published):
    """n_available ('runs given') counted whole batches of n: TD3's 193 runs showed as 192 when the last group
    short of n past K batches is left out."""
    data = _halfcheetah(published)  # SAC 192 runs, TD3 193 (seeds 0..192)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = rlstats.adastop(data, "score ~ agent", n=4, K=5, rng=0, progress=False)
    table = res.runs_used.set_index("agent")
    assert table["n_available"].to_dict() == {"SAC": 192, "TD3": 193}
    assert table["n_runs"].to_dict() == {"SAC": 12, "TD3": 12}
    # the note counts the runs past K batches from the same rows: 193 - 5 * 4 = 173
    assert any("(SAC 172, TD3 173)" in note for note in res.notes)
    assert "n_available: 192" not in res.to_latex()


# ----------------------------------------------------------------------------- an empty batch, fed from Python

def _walker_state(published, batches, permutations="joint"):
    data = read_csv(published / "mujoco_batches.csv")
    walker = data[data["task"] == "walker"]
    seq = rlstats.AdaStop(["SAC", "DDPG", "TRPO", "PPO"], n=5, K=6, rng=0, n_resamples=500,
                          permutations=permutations)
    for b in batches:
        seq.update(walker.loc[walker["batch"] == b, ["agent", "score"]])
    return seq, walker


def test_empty_batch_is_named_empty(published):
    """An empty batch (a filter that kept no rows) was told to lack every agent and given the pairwise replay hint,
    as if a test had stopped all of them."""
    seq, walker = _walker_state(published, [1, 2])
    empty = walker.loc[walker["batch"] == 99, ["agent", "score"]]
    with pytest.raises(rlstats.errors.DesignError) as err:
        seq.update(empty)
    text = str(err.value)
    assert text == ("the batch is empty (no runs); batch 3 needs n = 5 runs of each of: SAC, DDPG, TRPO, PPO")
    assert "pairwise" not in text
    assert seq.interim == 2  # the state is unchanged


# ----------------------------------------------------------------------------- the command line's wording

def _cli(*argv):
    import io

    import rlstats.cli as cli

    out, err = io.StringIO(), io.StringIO()
    from contextlib import redirect_stderr
    with redirect_stderr(err):
        code = cli.main(list(argv), out=out)
    return code, out.getvalue(), err.getvalue()


def test_finished_state_says_new_state_file(published, tmp_path):
    """rlstats adastop update on a finished state said 'start a new AdaStop', the Python wording: the command line
    starts a test with a new state file."""
    data = read_csv(published / "mujoco_batches.csv")
    walker = data[data["task"] == "walker"]
    files = []
    for b in (1, 2):
        path = tmp_path / f"walker{b}.csv"
        walker.loc[walker["batch"] == b, ["agent", "score"]].to_csv(path, index=False)
        files.append(str(path))
    state = str(tmp_path / "state.json")
    assert _cli("adastop", "update", state, files[0], "--K", "2", "--seed", "0", "--n-resamples", "500")[0] == 0
    code, out, _ = _cli("adastop", "update", state, files[1])
    assert code == 0 and "the test is finished" in out
    code, _, err = _cli("adastop", "update", state, files[1])
    assert code == 2
    assert "the test is finished after 2 batches: every comparison is decided" in err
    assert err.endswith(f"start a new state file (or delete {state}) to test again\n")
    assert "AdaStop" not in err


# ----------------------------------------------------------------------------- a failed run in a batch

def test_non_finite_batch_score_says_what_to_do(published):
    """A batch with a missing score named the agent and its values but not what to do."""
    seq, walker = _walker_state(published, [1, 2], permutations="pairwise")
    assert seq.agents_to_run == ("DDPG", "TRPO")  # as in the file of batch 3
    batch = walker.loc[walker["batch"] == 3, ["agent", "score"]].copy()
    batch.loc[batch.index[batch["agent"] == "DDPG"][1], "score"] = np.nan
    with pytest.raises(rlstats.errors.DesignError) as err:
        seq.update(batch)
    assert str(err.value).startswith("agent 'DDPG' has 1 missing or infinite score in this batch (nan) ")
    assert "rerun the failed run" in str(err.value)
    assert seq.interim == 2


# ----------------------------------------------------------------------------- one decision against an enumeration

def _enumerated(a, b, alpha):
    """The paper's test (spec §4) for two agents by listing every path of the tree: each block's C(2n, n) splits,
    |cumulated sum difference|, linear spending on the grid of the paths, conditioning on the earlier boundary,
    the (r+1)-th largest surviving value; boundaries in mean-difference units, by interim."""
    import itertools

    K, n = a.shape
    splits = [list(s) for s in itertools.combinations(range(2 * n), n)]  # split 0 = the identity
    diffs = []
    for k in range(K):
        z = np.concatenate([a[k], b[k]])
        diffs.append(np.array([2 * z[s].sum() - z.sum() for s in splits]))
    paths, alive, spent, bounds = np.zeros(1), np.ones(1, bool), 0.0, []
    for k in range(K):
        paths = (paths[:, None] + diffs[k][None, :]).ravel()
        alive = np.repeat(alive, len(splits))
        stat = np.abs(paths)
        level = np.floor(alpha * (k + 1) / K * stat.size + 1e-9) / stat.size
        r = int(np.floor((level - spent) * stat.size + 1e-9))
        spent = level
        surviving = np.sort(stat[alive])[::-1]
        bound = surviving[r] if r < surviving.size else 0.0
        bounds.append(bound / ((k + 1) * n))
        if stat[0] > bound:
            return "larger" if paths[0] > 0 else "smaller", k + 1, bounds
        alive &= stat <= bound
    return "equal", K, bounds


@pytest.mark.parametrize("start", [0, 6, 12, 30])
def test_decision_matches_enumerated_tree(published, start):
    """HalfCheetah SAC and TD3, 3 runs per interim, 2 interims, alpha = 0.2: every path (10 + 200 distinct) is
    enumerated by rlstats too; decision, interim and boundaries agree with the spec's recipe written apart."""
    data = _halfcheetah(published)
    rows = data[(data["seed"] >= start) & (data["seed"] < start + 6)]
    a, b = (rows[rows["agent"] == g].sort_values("seed")["score"].to_numpy().reshape(2, 3) for g in ("SAC", "TD3"))
    decision, interim, bounds = _enumerated(a, b, 0.2)
    res = rlstats.adastop(rows, "score ~ agent", n=3, K=2, alpha=0.2, rng=0, progress=False)
    row = res.decisions.iloc[0]
    assert (row["decision"], row["interim"]) == (decision, interim)
    np.testing.assert_allclose(res.history["boundary"].to_numpy(dtype=float), bounds, rtol=1e-12)
    assert (res.history["boundary_mc_se"] == 0).all()


def test_enumerated_decisions_on_halfcheetah(published):
    """The four windows above: the numbers they decide (so a change in the recipe cannot pass silently)."""
    data = _halfcheetah(published)
    got = []
    for start in (0, 6, 12, 30):
        rows = data[(data["seed"] >= start) & (data["seed"] < start + 6)]
        a, b = (rows[rows["agent"] == g].sort_values("seed")["score"].to_numpy().reshape(2, 3)
                for g in ("SAC", "TD3"))
        decision, interim, bounds = _enumerated(a, b, 0.2)
        got.append((decision, interim, round(bounds[-1], 2)))
    assert got == [("equal", 2, 1021.66), ("larger", 1, 1109.98), ("larger", 2, 1396.51), ("larger", 2, 848.79)]


# ----------------------------------------------------------------------------- an agent's name in the wrong case

def test_reference_in_wrong_case_is_hinted(published):
    """reference='ppo' for the agent 'PPO' got no 'did you mean': difflib's ratio of 'ppo' and 'PPO' is 0, so the
    commonest slip had no hint (errors.agent_named, the one wording of every option's unknown agent)."""
    data = read_csv(published / "mujoco_batches.csv")
    ant = data[data["task"] == "ant"]
    with pytest.raises(rlstats.errors.OptionError) as err:
        rlstats.adastop(ant, "score ~ agent", batch="batch", reference="ppo", progress=False)
    assert str(err.value) == ("reference='ppo' is not an agent in column 'agent' (did you mean 'PPO'?); the agents are: 'DDPG', 'PPO', "
                              "'SAC', 'TRPO'")
    with pytest.raises(rlstats.errors.OptionError, match=r"^'sac' in comparisons= is not an agent \(did you mean 'SAC'\?\)"):
        rlstats.AdaStop(["PPO", "SAC"], n=5, K=3, comparisons=[("PPO", "sac")])


def test_default_n_too_large_is_not_called_a_flag(tmp_path):
    """A first batch of 10,001 runs per agent without --n was refused as '--n 10001 is more than ...', a flag the
    user never passed."""
    import pandas as pd

    batch = tmp_path / "batch1.csv"
    pd.DataFrame({"agent": np.repeat(["a", "b"], 10_001), "score": np.arange(20_002.0)}).to_csv(batch, index=False)
    state = tmp_path / "state.json"
    code, _, err = _cli("adastop", "update", str(state), str(batch), "--seed", "0")
    assert code == 2 and not state.exists()
    assert "--n 10001" not in err
    assert err == ("rlstats: error: the first batch has 10,001 runs per agent, which would make n (the runs per agent "
                   "per batch, read from the first batch when --n is not given) more than 10,000, the most rlstats "
                   "takes; feed the runs in batches of n runs per agent (RL studies use 5 to 20)\n")


# ----------------------------------------------------------------------------- the scores figure of one task

def test_scores_plot_says_what_the_diamond_is(published):
    """One task's scores figure marked each mean by a diamond but said so only in the multi-panel figure's title."""
    seq, _ = _walker_state(published, [1, 2, 3, 4, 5, 6], permutations="pairwise")
    ax = seq.result().plot(kind="scores")
    try:
        labels = [t.get_text() for t in ax.get_xticklabels()]
        assert labels == ["SAC\n(10)", "PPO\n(10)", "TRPO\n(30)", "DDPG\n(30)"]
        assert ax.get_ylabel() == "score (n: runs used; diamond: mean)"
    finally:
        import matplotlib.pyplot as plt

        plt.close(ax.figure)


# ----------------------------------------------------------------------------- joint relabelling under a partial null

def _partial_null_rate(permutations, reps, seed=123):
    """How often AdaStop (one interim, n = 5) rejects a and b, which are identical (N(0, 1)), beside four agents
    of the same mean whose runs barely vary (N(0, 0.001)): a true hypothesis of the family."""
    import pandas as pd

    gen = np.random.default_rng(seed)
    n, rejected = 5, 0
    for rep in range(reps):
        scores = {"a": gen.normal(0, 1, n), "b": gen.normal(0, 1, n)}
        scores.update({f"c{j}": gen.normal(0, 0.001, n) for j in range(4)})
        data = pd.DataFrame([(agent, i, v) for agent, x in scores.items() for i, v in enumerate(x)],
                            columns=["agent", "seed", "score"])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = rlstats.adastop(data, "score ~ agent", n=n, K=1, n_resamples=2000, rng=rep,
                                  permutations=permutations, progress=False)
        row = res.decisions[(res.decisions["agent_1"] == "a") & (res.decisions["agent_2"] == "b")]
        rejected += row["decision"].iloc[0] in ("larger", "smaller")
    return rejected / reps


@pytest.mark.slow
@pytest.mark.xfail(strict=True, reason="large, left for the lead: the default joint relabelling pools the runs of "
                                       "every running agent, so agents that differ from a and b in spread (not in "
                                       "mean) shrink the boundary of the true a = b: measured 0.105 +- 0.010 "
                                       "(M = 1000) against alpha = 0.05; pairwise 0.039. Strong family-wise control "
                                       "fails under this partial null")
def test_joint_relabelling_keeps_a_true_comparison_at_alpha_beside_tight_agents():
    reps = 600
    rate = _partial_null_rate("joint", reps)
    assert rate <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / reps)  # 0.077
