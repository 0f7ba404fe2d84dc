"""Session 17 user audit of rlstats.tuning() and rlstats.curves() on real data: the Dierkes et al. LunarLander
landscapes and tuning procedures (``hpo_landscapes``, ``hpo_optimisation``), the Spinning Up HalfCheetah curves and
the shared Stable-Baselines3 logs, read through every output form (print, summary, LaTeX, report, tidy, plots, the
CLI).

Checked and found right: the expected maximum against the order-statistic formula computed apart (with and without
replacement) and the weighted complete algorithm against the ratio of weighted means, on a real procedure (and, slow,
the landscape); the per-step IQM of the HalfCheetah curves against scipy's trim_mean; every tuning view and curves
table unchanged by row order, by the score in thousandths, by a polars frame and by agents renamed in the same order;
one seed, NaN, inf, a repeated seed or (run, step), a single configuration or agent and constant scores each give an
rlstats error or a note. Defects found: each test's docstring says what was wrong.
"""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import rlstats
from conftest import load_dataset, one_sweep


def _sweep(means, seeds=3, agent="ppo", task="ant", spread=0.0):
    """One sweep: configuration c's seeds at means[c] (plus -spread, 0, +spread, ... by seed)."""
    offsets = spread * (np.arange(seeds) - (seeds - 1) / 2)
    return one_sweep([[m + o for o in offsets] for m in means], agent, task)


def test_complete_interval_withheld_where_every_configuration_ties():
    """A sweep whose configurations all have one mean (every run at a cap, here 5.0) printed the complete algorithm
    as '5 [5, 5] over 40 configurations': a 95% interval of one point, while the tuned-score interval and the
    expected-max bands of the same sweep were withheld with a note (an interval of one point says nothing of runs not
    yet seen). The same held where seeds vary but the configurations' means tie (the default interval reads the
    means alone)."""
    for spread in (0.0, 1.0):
        res = rlstats.tuning(_sweep([5.0] * 40, spread=spread), "score ~ agent | task/seed", config="lr", rng=0,
                             n_resamples=100, views=["complete"])
        row = res.complete_summary().iloc[0]
        assert row["estimate"] == 5.0
        assert np.isnan(row["conf_low"]) and np.isnan(row["conf_high"])
        assert any("complete-algorithm intervals are withheld in 1 sweep (ant/ppo)" in n and "means all tie" in n
                   for n in res.notes), res.notes
        assert "5 (no interval: see the notes) over 40 configurations" in str(res)
    # the two-stage bootstrap resamples seeds too: withheld only where no run varies
    flat = rlstats.tuning(_sweep([5.0] * 5), "score ~ agent | task/seed", config="lr", rng=0, n_resamples=100,
                          views=["complete"], complete_interval="two_stage")
    assert np.isnan(flat.complete_summary()["conf_low"].iloc[0])
    varied = rlstats.tuning(_sweep([5.0] * 5, spread=1.0), "score ~ agent | task/seed", config="lr", rng=0,
                            n_resamples=100, views=["complete"], complete_interval="two_stage")
    assert varied.complete_summary()["conf_low"].iloc[0] < 5.0 < varied.complete_summary()["conf_high"].iloc[0]
    # configurations whose means differ keep their interval
    res = rlstats.tuning(_sweep(np.arange(40.0)), "score ~ agent | task/seed", config="lr", rng=0,
                         n_resamples=100, views=["complete"])
    assert np.isfinite(res.complete_summary()[["conf_low", "conf_high"]].to_numpy()).all()


def test_mean_over_tasks_budget_cut_is_said():
    """On the real tuning procedures (PPO, return objective: the default-hyperparameter baseline has one
    configuration per task, the tuned procedures 5 tuning runs), the printed expected-max section showed every
    procedure 'averaged over tasks: k=1' alone, and the mean over tasks stopped at k=1 for all: the common budgets
    are those of the smallest sweep, which nothing said, so a procedure with 5 tuning runs per task read as a curve
    of one budget."""
    frames = [_sweep([1.0, 2.0, 3.0, 4.0, 5.0], agent="tuned", task=t, spread=0.5) for t in ("ant", "hopper")]
    frames += [_sweep([2.0, 3.0], agent="base", task=t, spread=0.5) for t in ("ant", "hopper")]
    res = rlstats.tuning(pd.concat(frames, ignore_index=True), "score ~ agent | task/seed", config="lr", rng=0,
                         n_resamples=100, views=["expected_max"])
    em = res.expected_max()
    assert em[em["task"] == "(mean over tasks)"]["budget"].max() == 2
    assert em[(em["task"] == "ant") & (em["agent"] == "tuned")]["budget"].max() == 5
    note = [n for n in res.notes if n.startswith("expected_max(): the mean over tasks")]
    assert note == ["expected_max(): the mean over tasks is given at budgets up to 2, the fewest configurations of "
                    "a sweep (base on ant and hopper), so that every agent is compared at the same budgets; each "
                    "sweep's own curve, up to its number of configurations (tuned: 5), is in expected_max()"], res.notes


def test_expected_max_budget_ticks_are_plain_numbers():
    """The expected-max figure of the real tuning procedures (5 tuning runs each) labelled its budget axis
    '10^0, 2x10^0, 3x10^0, 4x10^0' (a log axis within one decade labels its minor ticks in scientific notation), for
    budgets 1 to 5."""
    frames = [_sweep([1.0, 2.0, 3.0, 4.0, 5.0], agent="tuned", task=t, spread=0.5) for t in ("ant", "hopper")]
    res = rlstats.tuning(pd.concat(frames, ignore_index=True), "score ~ agent | task/seed", config="lr", rng=0,
                         n_resamples=100, views=["expected_max"])
    ax = res.plot(kind="expected_max")
    ax.figure.canvas.draw()
    shown = [t.get_text() for t in ax.xaxis.get_ticklabels(which="both") if t.get_visible() and t.get_text()]
    assert shown == ["1", "2", "3", "4", "5"], shown


def test_holdout_interval_printed_and_reported():
    """With holdout= (the real LunarLander landscape, seeds 5-9 held out of the selection), the printed line gave
    'held out 997.53 over 5 runs' without the Student-t interval the table holds (993.33 to 1001.7), printed 'over 1
    runs' with no interval and no word where one run was held out, and report() described the selection as if every
    run had been used, with no word of the held-out estimate."""
    runs = _sweep([1.0, 2.0, 3.0], seeds=6, spread=0.5).assign(held=lambda d: d["seed"] >= 3)
    res = rlstats.tuning(runs, "score ~ agent | task/seed", config="lr", holdout="held", rng=0, n_resamples=100,
                         views=["best_set"])
    row = res.tuned().iloc[0]
    assert row["heldout_runs"] == 3
    held = runs[runs["held"] & (runs["lr"] == 2)]["score"]
    half = stats.t.ppf(0.975, 2) * held.std(ddof=1) / np.sqrt(3)
    assert np.allclose([row["heldout_low"], row["heldout_high"]], [held.mean() - half, held.mean() + half])
    low, high = (rlstats.format.signif(v) for v in (row["heldout_low"], row["heldout_high"]))
    assert f"; held out {rlstats.format.signif(row['heldout_estimate'])} [{low}, {high}] over 3 runs" in str(res)
    text = res.report(format="text")
    assert ("The selection used the runs not held out (holdout column 'held'); the selected configuration's held-out "
            "runs give an estimate free of the selection, with a 95% Student-t interval.") in text
    one = rlstats.tuning(runs[runs["seed"] <= 3], "score ~ agent | task/seed", config="lr", holdout="held", rng=0,
                         n_resamples=100, views=["best_set"])
    alone = runs[(runs["seed"] == 3) & (runs["lr"] == 2)]["score"].item()  # the selected lr's one held-out run
    assert f"held out {rlstats.format.signif(alone)} (no interval: too few runs) over 1 run" in str(one)


def test_curves_same_steps_note_true_where_the_range_was_cut(sb3_evaluations):
    """The real SB3 evaluations (CartPole-v1: A2C and PPO logged at 6 steps to 30k, DQN at 4 to 20k): curves printed
    'every run is logged at the same 4 steps from 5k to 20k', false of the A2C and PPO runs, each logged at 6; the
    sentence now says it holds within the curves' range and that runs log steps beyond it."""
    cartpole = sb3_evaluations[sb3_evaluations["task"] == "CartPole-v1"]
    assert cartpole.groupby("agent")["step"].nunique().to_dict() == {"A2C": 6, "DQN": 4, "PPO": 6}
    res = rlstats.curves(cartpole, "score ~ agent | task/seed", step="step", n_resamples=100, rng=0)
    assert ("every run is logged at the same 4 steps from 5k to 20k within the curves' range (some runs log steps "
            "beyond it: see the note on the range)") in res.notes, res.notes
    # where nothing is cut the sentence stands as it was
    res = rlstats.curves(cartpole[cartpole["agent"] != "DQN"], "score ~ agent | task/seed", step="step",
                         n_resamples=100, rng=0)
    assert "every run is logged at the same 6 steps from 5k to 30k" in res.notes
    # align_steps and summarize_runs said the same of their grids
    aligned = rlstats.align_steps(cartpole, "score ~ agent | task/seed", step="step")
    assert ("every run is logged at the same 4 steps from 5k to 20k within each task's grid (some runs log steps "
            "beyond it: see the note on the grids)") in aligned.attrs["rlstats_notes"]
    assert sorted(aligned["step"].unique()) == [5000, 10000, 15000, 20000]


def test_views_text_and_budgets_messages_name_the_way_on():
    """From the command line, -o views=complete,best_set (the natural spelling of two views) was refused as
    "views=['complete,best_set']: each must be one of ...", not saying that a list is wanted; and budgets= beyond a
    sweep's size named the size but not the sweep, so among the real procedures' 15 sweeps the user had to find the
    baseline with one configuration."""
    runs = pd.concat([_sweep([1.0, 2.0, 3.0], spread=0.5), _sweep([1.0], agent="base", spread=0.5)])
    with pytest.raises(rlstats.OptionError, match=r"views='complete,best_set' names several views in one text: give "
                                                  r"a list, views=\['complete', 'best_set'\]"):
        rlstats.tuning(runs, "score ~ agent | task/seed", config="lr", views="complete,best_set")
    with pytest.raises(rlstats.OptionError, match=r"budgets= goes up to 3 configurations, but a sweep has only 1 "
                                                  r"\(base on ant\); give budgets of at most 1"):
        rlstats.tuning(runs, "score ~ agent | task/seed", config="lr", views=["expected_max"], budgets=[1, 3])


def _last_evaluations(evaluations):
    """Each SB3 run's last evaluation, the three agents read as configurations of one algorithm 'ac' (A2C and PPO
    trained to 30k steps on CartPole-v1, DQN to 20k: one row per run, at steps of their own)."""
    last = evaluations.sort_values("step").groupby(["agent", "task", "seed"]).tail(1)
    return last.rename(columns={"agent": "variant"}).assign(algo="ac")


def test_tuning_tells_configurations_from_curves(sb3_evaluations):
    """A sweep of one row per run (each configuration's last evaluation, with its step column) whose configurations
    were trained to different budgets was refused as learning curves: 'column 'step' takes 2 values within run
    seed=1 of agent 'ac' on task 'CartPole-v1' (3 rows)', the three rows being three configurations' runs of seed 1.
    Its way on, df.sort_values('step').groupby(['algo', 'task', 'seed']).tail(1), would have kept one configuration
    per seed and dropped the others without a word."""
    last = _last_evaluations(sb3_evaluations)
    assert len(last) == 15 and last.groupby(["algo", "task", "seed"]).size().max() == 3
    res = rlstats.tuning(last, "score ~ algo | task/seed", config="variant", rng=0, n_resamples=100,
                         views=["best_set"])
    assert res.n_configs.tolist() == [[2], [3]]  # Acrobot-v1: A2C and PPO; CartPole-v1: the three
    assert res.nobs == 15
    # real curves of a sweep are still refused, the way on grouping by the configuration too
    curves = sb3_evaluations.rename(columns={"agent": "variant"}).assign(algo="ac")
    with pytest.raises(rlstats.DesignError) as error:
        rlstats.tuning(curves, "score ~ algo | task/seed", config="variant", rng=0)
    message = str(error.value)
    assert "with variant='A2C'" in message and "look like learning curves" in message
    assert "groupby(['algo', 'task', 'variant', 'seed']).tail(1)" in message
    assert "summarize_runs" not in message  # it reads no configuration column: it would pool configurations


def test_cli_csv_says_its_notes_on_stderr(sb3_evaluations, tmp_path, capsys):
    """rlstats compare on the real SB3 evaluations with --method curves -o na_action=drop --format csv wrote the tidy
    frame alone: Acrobot-v1 (6 runs) left out and every band withheld (empty columns), without a word anywhere; the
    text, Markdown, LaTeX and JSON forms all carry the notes. The notes now go to stderr, stdout staying the frame."""
    from rlstats.cli import main
    path = tmp_path / "evaluations.csv"
    sb3_evaluations.to_csv(path, index=False)
    out = __import__("io").StringIO()
    status = main(["compare", str(path), "score ~ agent | task/seed", "--method", "curves", "-o", "step=step",
                   "-o", "na_action=drop", "-o", "n_resamples=100", "--format", "csv", "--seed", "0",
                   "--no-progress"], out=out)
    assert status == 0
    frame = pd.read_csv(__import__("io").StringIO(out.getvalue()))
    assert set(frame["agent"]) == {"A2C", "DQN", "PPO"} and frame["conf_low"].isna().all()
    err = capsys.readouterr().err
    assert "Note: 1 task left out because some agent has no runs there" in err
    assert "Note: bands of the curves are withheld for A2C, DQN and PPO" in err


def _check_against_formulas(sweep, budgets, scale=1000.0):
    """The expected maximum against the order-statistic formula written apart, drawing without replacement
    (P(max is the i-th smallest) = C(i-1, k-1) / C(G, k)) and with it ((i/G)^k - ((i-1)/G)^k), and the complete
    algorithm's weighted estimate against the ratio of weighted means, the scores times ``scale``."""
    from scipy.special import comb

    means = np.sort(sweep.groupby("config")["score"].mean().to_numpy())
    G, i = means.size, np.arange(1, means.size + 1)
    res = rlstats.tuning(sweep.assign(score=sweep["score"] * scale), "score ~ agent | task/seed", config="config",
                         weights="w", budgets=budgets, views=["expected_max", "complete"], rng=0, n_resamples=100)
    em = res.expected_max().set_index(["sampling", "budget"])["estimate"]
    for k in budgets:
        without = (comb(i - 1, k - 1) / comb(G, k)) @ means
        with_ = ((i / G) ** k - ((i - 1) / G) ** k) @ means
        assert np.isclose(em["without replacement", k], scale * without, rtol=1e-12)
        assert np.isclose(em["with replacement", k], scale * with_, rtol=1e-12)
    per = sweep.groupby("config").agg(m=("score", "mean"), w=("w", "first"))
    assert np.isclose(res.complete_summary()["estimate"].iloc[0], scale * (per.m @ per.w) / per.w.sum(), rtol=1e-12)


def test_real_procedures_against_formulas(mirror):
    """Checked right on a real tuning procedure (PPO on lunar, DEHB over hyperparameters and reward weights: 5
    tuning runs of 10 evaluation seeds), the tuning runs as configurations, weighted 3 to 1 by their index."""
    opt = load_dataset("hpo_optimisation").drop_duplicates()
    sweep = opt[(opt["algorithm"] == "ppo") & (opt["task"] == "lunar") & (opt["procedure"] == "hpo=dehb, rpo=dehb, "
                                                                                              "return")]
    assert sweep["tuning_run"].nunique() == 5 and len(sweep) == 50
    sweep = sweep.drop(columns="config").rename(columns={"tuning_run": "config"}).assign(agent="ppo")
    _check_against_formulas(sweep.assign(w=np.where(sweep["config"] > 2, 3.0, 1.0)), [1, 2, 3, 4, 5])


@pytest.mark.slow
def test_real_landscape_against_formulas(mirror):
    """The same on the real LunarLander landscape (gamma x distance weight, the first 60 configurations of 10
    seeds), weighted 3 to 1 above the median gamma (slow: the nine landscapes load in about a second)."""
    land = load_dataset("hpo_landscapes")
    sweep = land[(land["landscape"] == "gamma_distance-weight") & (land["config"] < 60)].assign(agent="ppo")
    sweep = sweep.assign(w=np.where(sweep["hyperparameter"] > sweep["hyperparameter"].median(), 3.0, 1.0))
    _check_against_formulas(sweep, [1, 2, 5, 10, 30, 60])


def test_real_curves_iqm_against_trim_mean(mirror):
    """The per-step IQM of the Spinning Up HalfCheetah curves (12 runs of SAC and TD3, one task) is scipy's 25%
    trimmed mean of the runs at the step, unchanged with the scores in thousandths."""
    curves = rlstats.datasets.load("spinningup_halfcheetah")
    runs = curves[(curves["seed"] < 12) & (curves["step"] <= 50_000)]
    for scale in (1.0, 1000.0):
        tidy = rlstats.curves(runs.assign(score=runs["score"] * scale), "score ~ agent | task/seed", step="step",
                              n_resamples=20, rng=0).tidy().set_index(["agent", "step"])["estimate"]
        for (agent, step), at in runs.groupby(["agent", "step"])["score"]:
            assert np.isclose(tidy[agent, step], scale * stats.trim_mean(at.to_numpy(), 0.25), rtol=1e-12)


def test_report_counts_the_sweeps(mirror):
    """report() on the real PPO tuning procedures (5 procedures x 3 tasks: 15 sweeps of 1 or 5 tuning runs) said 'We
    evaluated 5 agents on 3 tasks over a sweep of 63 configurations in all', one sweep where there are 15, each
    agent's configurations on each task its own."""
    opt = load_dataset("hpo_optimisation").drop_duplicates()
    ppo = opt[(opt["algorithm"] == "ppo") & (opt["objective"] == "return")]
    res = rlstats.tuning(ppo, "score ~ procedure | task/tuning_run/seed", rng=0, n_resamples=100, views=["complete"])
    configurations = ppo.groupby(["procedure", "task"])["tuning_run"].nunique()  # 63 tuning runs in 15 sweeps
    assert res.n_configs.sum() == configurations.sum() == 63 and (res.n_configs > 0).sum() == len(configurations) == 15
    assert res.report(format="text").startswith(
        "We evaluated 5 procedures on 3 tasks over 15 sweeps (one per procedure and task) of 63 configurations "
        "in all")
    one = rlstats.tuning(_sweep([1.0, 2.0, 3.0], spread=0.5), "score ~ agent | task/seed", config="lr", rng=0,
                         n_resamples=100, views=["complete"])
    assert one.report(format="text").startswith("We evaluated 1 agent on 1 task over a sweep of 3 configurations,")
