"""Audit s28 (real28): every public back end run as a paper author would on the published scores (Atari 100k raw and
human-normalised, the AdaStop MuJoCo batches, the HalfCheetah SAC/TD3 runs), the hyperparameter sweeps of Dierkes et
al. (rlstats.tuning), the marl-eval log and the Stable-Baselines3 logs, on realistic subsets (one run per cell, one
task with two agents, agents that never shared a task, pandas subsets). The metamorphic checks (score x 1000, rows
shuffled, a polars frame) left every statistic and every sentence unchanged apart from printed units and the polars
note, on the Atari and MuJoCo subsets for the rank test, AdaStop, bootstrap, profiles, probability of improvement,
percentiles, task table, mixed model and Bayesian signed-rank test. Defects found and mended:

- ``bayes()`` on a pair sharing one task printed as its "mean difference" the posterior mean, that task's difference
  times the Dirichlet weight's mean against the prior's pseudo-observation, 1 / (1 + prior): on Pong, DER against
  SPR, -1.21 where the runs' means differ by -1.81 (the probabilities and interval were already withheld as the
  prior's); now the pair's estimate is that task's observed difference, and the note says so.
- ``selection_check()``'s measured-size note quoted the calibration row at 2 runs "of each agent per task" for data
  with one run per cell (and the 3-run row for 4 runs) as if it were the design analysed; it now says which count was
  measured and the data's.
- The refusal of a design with an empty cell offered ``na_action="drop"`` even where no task holds every agent (DER
  on three games, SPR on three others, DrQ on all six), which then refused again; it now says none would be left.
- The rank test's report listed the significant pairs after "... was tested ... with Holm adjustment at alpha = 0.05:"
  (read as the pairs tested); only Tukey's sentence said "differ". With seeds averaged within runs ('| task/run/seed')
  it still said "every seed counts and none is averaged away".
- After '| task/run/seed' averaging, the units read "the units of '`score`'" (the rebuilt formula's quoting).
- summarize_runs(how="time_to_threshold")'s note said rankings "read reversed" even beside ranks read with
  higher_is_better=False (the SB3 logs); it now says to pass it.
- The task table's report never described its aggregate row (aggregate="bootstrap"), which the caption did.
- subset="agent in ['DER', 'SPR', 'Rainbow'] ..." compared 2 agents with no word of 'Rainbow' (Atari's is
  'OTRainbow'); the kept-rows note now names it, as it did for '!=' and 'not in'.

Tests reading the published scores skip with the reason when neither ../shared/data nor the mirror is here."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import load_dataset
import rlstats
from rlstats.tables import read_csv


@pytest.fixture
def atari(published):
    """Atari 100k raw game scores (9 agents, 26 games)."""
    return read_csv(published / "atari100k.csv")


# ----------------------------------------------------------------------------- bayes: a pair on one shared task

def test_bayes_pair_on_one_task_reports_the_observed_difference(atari):
    """DER and SPR on Pong, 10 runs each: the pair's estimate is the difference of the two agents' mean scores there
    (pandas' means, computed apart), not that difference shrunk by the prior's pseudo-observation (2/3 of it at
    prior=0.5, what was printed)."""
    pong = atari[atari.agent.isin(["DER", "SPR"]) & (atari.task == "Pong") & (atari.seed < 10)]
    means = pong.groupby("agent")["score"].mean()
    observed = means["DER"] - means["SPR"]
    res = rlstats.bayes(pong, "score ~ agent | task", rng=0, n_samples=2000)
    row = res.tidy().iloc[0]
    assert (row.agent_1, row.agent_2) == ("DER", "SPR")
    assert row.estimate == pytest.approx(observed, rel=1e-12)
    assert np.isnan(row.p_better) and np.isnan(row.conf_low)
    text = res.report(format="text")
    assert f"mean difference {observed:.3g}" in text
    assert any("that task's observed difference" in note for note in res.notes)


def test_bayes_pair_on_one_task_among_many_reports_its_observed_difference(atari):
    """Agents that met on one game only, among six games: that pair's estimate is its one task's difference (other
    pairs keep the posterior mean, which the prior shrinks by n / (n + 0.5) at n shared tasks)."""
    games = ["Alien", "Boxing", "Breakout", "Pong", "Seaquest", "Kangaroo"]
    keep = ((atari.agent == "DrQ") & atari.task.isin(games)) | ((atari.agent == "DER") & atari.task.isin(games[:4])) \
        | ((atari.agent == "SPR") & atari.task.isin(games[3:]))
    data = atari[keep & (atari.seed < 10)]
    res = rlstats.bayes(data, "score ~ agent | task", rng=0, n_samples=2000)
    tidy = res.tidy().set_index(["agent_1", "agent_2"])
    pong = data[data.task == "Pong"].groupby("agent")["score"].mean()
    assert tidy.loc[("DER", "SPR"), "n_tasks"] == 1
    assert tidy.loc[("DER", "SPR"), "estimate"] == pytest.approx(pong["DER"] - pong["SPR"], rel=1e-12)
    # DER and DrQ share 4 games: the posterior mean, sum of differences over (4 + 0.5) in expectation
    shared = data[data.task.isin(games[:4])].groupby(["task", "agent"])["score"].mean().unstack()
    shrunk = (shared["DER"] - shared["DrQ"]).sum() / 4.5
    assert tidy.loc[("DER", "DrQ"), "estimate"] == pytest.approx(shrunk, rel=0.05)


# ----------------------------------------------------------------------------- selection_check: the size note's runs

@pytest.mark.parametrize("runs, measured", [(1, 2)])
def test_selection_size_note_says_which_runs_were_measured(atari, published, runs, measured):
    """SPR against DER on the Atari games (human-normalised), 8 of 26 reported, with `runs` run per cell: the note
    quoting the calibration table's size at `measured` runs per cell (its nearest count at or below the data's, the
    fewest where the data have fewer: the table's selection.size rows hold 2, 3, 5, 10 and 20) said "`measured` runs
    of each agent per task" as if that were the design analysed; it now also names the data's count."""
    reference = read_csv(published / "atari100k_reference.csv")
    data = atari[atari.agent.isin(["DER", "SPR"]) & (atari.seed < runs)]
    res = rlstats.selection_check(data, "score ~ agent | task", treatment="SPR", baseline="DER",
                                  reported=list(data.task.unique()[:8]), rng=0, n_resamples=199, normalize=reference)
    notes = [note for note in res.notes if note.startswith("measured size")]
    assert notes, res.notes
    word = "run" if runs == 1 else "runs"
    for note in notes:
        assert f"{measured} runs of each agent per task" in note
        assert f"these data have {runs} {word}" in note


# ----------------------------------------------------------------------------- empty cells: no drop that leaves none

def test_empty_cells_refusal_offers_no_drop_when_no_task_holds_every_agent(atari):
    """DER on three games, SPR on three others, DrQ on all six (connected through DrQ, so not the never-met refusal):
    the refusal offered na_action="drop", which leaves out every task and refuses again; it now says so."""
    g1, g2 = ["Alien", "Boxing", "Breakout"], ["Pong", "Seaquest", "Kangaroo"]
    keep = ((atari.agent == "DER") & atari.task.isin(g1)) | ((atari.agent == "SPR") & atari.task.isin(g2)) \
        | ((atari.agent == "DrQ") & atari.task.isin(g1 + g2))
    data = atari[keep & (atari.seed < 5)]
    with pytest.raises(rlstats.DesignError) as raised:
        rlstats.bootstrap(data, "score ~ agent | task", n_resamples=100, rng=0)
    message = str(raised.value)
    assert 'pass na_action="drop"' not in message
    # design28's wording (same mend): the rows to keep as rlstats.bootstrap takes them (audit s35 bench35)
    assert "no task has runs of every agent" in message and "data=df[mask] (a boolean mask of the rows where" in message
    # the refusal after the drop, for comparison: the advice would have led there
    with pytest.raises(rlstats.DesignError, match="no task has runs of every agent"):
        rlstats.bootstrap(data, "score ~ agent | task", n_resamples=100, rng=0, na_action="drop")
    # one task short: the drop still offered, and it still works
    fewer = atari[atari.agent.isin(["DER", "SPR"]) & atari.task.isin(g1) & (atari.seed < 5)
                  & ~((atari.agent == "SPR") & (atari.task == "Alien"))]
    with pytest.raises(rlstats.DesignError, match='pass na_action="drop" to leave out the 1 task'):
        rlstats.bootstrap(fewer, "score ~ agent | task", n_resamples=100, rng=0)


# ----------------------------------------------------------------------------- the rank test's post hoc sentence

def test_rank_test_report_says_the_listed_pairs_differ(atari):
    """DER, SPR and IRIS on four games (5 to 100 runs a cell: Holm on each pair's exact variance): the report said
    "... was tested against its exact permutation variance with Holm adjustment at alpha = 0.05: DER vs IRIS; DER vs
    SPR.", a list a reader takes for the pairs tested (all three were); only the Tukey sentence said "differ". Each
    post hoc sentence now says the pairs listed are those that differ, and they are the table's significant pairs."""
    data = atari[atari.agent.isin(["DER", "SPR", "IRIS"]) & atari.task.isin(["Pong", "Boxing", "Breakout", "Alien"])]
    res = rlstats.skillings_mack(data, "score ~ agent | task", rng=0)
    tidy = res.tidy()
    differing = tidy[tidy.significant]
    assert 0 < len(differing) < len(tidy)  # some pair differs, some does not: the list must say which
    pairs = "; ".join(f"{a} vs {b}" for a, b in zip(differing.agent_1, differing.agent_2))
    text = res.report(format="text")
    assert f"the pairs that differ: {pairs}." in text


# ----------------------------------------------------------------------------- the rank test on runs averaged over seeds

def test_rank_test_report_does_not_claim_every_seed_counts_when_seeds_were_averaged(mirror):
    """Dierkes et al.'s tuning procedures, 'score ~ procedure | task/tuning_run/seed': the seeds of each tuning run are
    averaged (the tuning run is the unit, as the dataset says), and the design's note says so; the report still said
    the Mack-Skillings test ranked runs "so that every seed counts and none is averaged away". It now says each tuning
    run counts as the mean of its seeds."""
    runs = load_dataset("hpo_optimisation").drop_duplicates()
    procedures = ["hpo=base, rpo=dehb, return", "hpo=dehb, rpo=base, return", "hpo=dehb, rpo=dehb, return"]
    data = runs[(runs.algorithm == "ppo") & runs.procedure.isin(procedures)]
    res = rlstats.skillings_mack(data, "score ~ procedure | task/tuning_run/seed", rng=0)
    text = res.report(format="text")
    assert any(note.startswith("seeds ('seed') averaged within each tuning_run") for note in res.notes)
    assert "every seed counts" not in text
    assert "so that every tuning_run counts (each the mean of the seeds nested in it)" in text
    # 5 tuning runs of each procedure on each of 3 tasks: counted from the rows apart
    assert data.groupby(["procedure", "task"]).tuning_run.nunique().eq(5).all()
    # the arm column by its name since audit s32 block32 ("per agent and task" of 'score ~ procedure | task')
    assert "We compared 3 procedures on 3 tasks (5 runs per procedure and task)" in text


# ----------------------------------------------------------------------------- the units of a nested formula's response

def test_units_of_a_response_averaged_over_seeds_are_named_without_formula_quotes(mirror):
    """The same tuning procedures, 'score ~ procedure | task/tuning_run/seed': the averaged runs are analysed under the
    formula "`score` ~ `procedure` | `task`/`tuning_run`", and the results said the margin and ROPE were in "the units
    of '`score`'", formula quotes in a sentence of the paper. The units now name the column."""
    runs = load_dataset("hpo_optimisation").drop_duplicates()
    data = runs[(runs.algorithm == "ppo") & runs.procedure.isin(["hpo=dehb, rpo=base, return",
                                                                  "hpo=dehb, rpo=dehb, return"])]
    formula = "score ~ procedure | task/tuning_run/seed"
    equivalence = rlstats.equivalence(data, formula, margin=100, rng=0, aggregate=None)
    bayes = rlstats.bayes(data, formula, rng=0, n_samples=1000)
    for text in (str(equivalence), equivalence.report(format="text"), str(bayes)):
        assert "the units of 'score'" in text and "`" not in text


# ----------------------------------------------------------------------------- time to threshold: the direction note

def test_time_to_threshold_note_does_not_say_rankings_read_reversed_when_told_lower_is_better(sb3_evaluations):
    """The SB3 logs reduced to the step each run first reached 475 on CartPole-v1 and -100 on Acrobot-v1; a user who
    then passed higher_is_better=False to the rank test (as the note asks in spirit) read "Mean ranks (1 = best): A2C
    (1.25), PPO (1.75)" beside the carried note "smaller is better here, so 'best' in rankings, which favour larger
    values, reads reversed", which was false there: A2C reached the thresholds sooner (2 of its 3 CartPole runs, 1 of
    3 on Acrobot; PPO none, counted from the rows apart) and ranks best. The note now says what to pass."""
    runs = rlstats.summarize_runs(sb3_evaluations, "score ~ agent | task/seed", step="step", how="time_to_threshold",
                                  threshold={"CartPole-v1": 475, "Acrobot-v1": -100})
    pair = runs[runs.agent != "DQN"]
    reached = (~pair.censored).groupby(pair.agent).sum()
    assert reached.to_dict() == {"A2C": 3, "PPO": 0}
    res = rlstats.skillings_mack(pair, "score ~ agent | task", higher_is_better=False, rng=0)
    assert res.mean_ranks[list(res.agents).index("A2C")] < res.mean_ranks[list(res.agents).index("PPO")]
    text = res.report(format="text")
    assert "reads reversed" not in text
    # audit s33 ttt33: the note says what a function taking the option does unless told (here it was told: no line)
    assert "smaller is better here: a function taking higher_is_better= reads it as False unless it is given" in text
    assert "read from the data" not in text


# ----------------------------------------------------------------------------- the task table's aggregate row in the report

def test_task_table_report_describes_its_aggregate_row(atari, published):
    """DER, SPR and IRIS on the 26 games (5 runs each, human-normalised) with aggregate='bootstrap': the table prints an
    'aggregate mean' row with intervals, and its LaTeX caption says how they were made, but the report (the methods
    paragraph) never mentioned the row. It now says what the row is and how its intervals were made, as the caption
    does."""
    reference = read_csv(published / "atari100k_reference.csv")
    data = atari[atari.agent.isin(["DER", "SPR", "IRIS"]) & (atari.seed < 5)]
    res = rlstats.task_table(data, "score ~ agent | task", aggregate="bootstrap", normalize=reference, rng=0,
                             n_resamples=200)
    assert "aggregate mean" in str(res)
    text = res.report(format="text")
    assert "Aggregate: mean of the task means, with 95% stratified bootstrap intervals (200 resamples)." in text


# ----------------------------------------------------------------------------- subset=: a value in a list that is no value

def test_subset_in_list_names_a_value_the_column_lacks(atari):
    """subset="agent in ['DER', 'SPR', 'Rainbow'] and task == 'Pong'" on Atari 100k (whose Rainbow is 'OTRainbow'):
    the rank test compared 2 agents, and the note said only 'kept 200 of 16250 rows'; the typo was said for '!=' and
    'not in' (which keep rows) and where nothing was kept, not where a list of agents silently lost one. The note now
    names it with the column's closest value."""
    res = rlstats.compare(atari, "score ~ agent | task", subset="agent in ['DER', 'SPR', 'Rainbow'] and task == 'Pong'")
    assert res.n_agents == 2 == atari[atari.agent.isin(["DER", "SPR"]) & (atari.task == "Pong")].agent.nunique()
    note = next(n for n in res.notes if n.startswith("subset="))
    assert note.endswith("kept 200 of 16250 rows; 'Rainbow' is no value of column 'agent' (did you mean "
                         "'OTRainbow'?)"), note
