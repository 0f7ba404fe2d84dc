"""Audit s22 (the lead): the signed-rank model's decisions at one and two runs per agent and task.

A paper's per-task means (one score per agent and task) are a design ``rlstats.bayes``'s signed-rank model takes, yet
the ``bayes.decision`` rows measured 3, 5 and 10 runs only, so every such result was told its decision's error "is not
measured". tests/reference/bayes_decisions.py now appends the signed-rank points at 1 and 2 runs (5, 10, 26 tasks,
four score families, 80 data sets a row): false equivalence at most 0.05 at 1 run and 0.1 at 2 runs (26 tasks x 2
skewed runs), false difference at most 0.0375; four rows miss in their worst draw of the tasks' offsets and scales
(0.2 of 20 data sets), and a result at their designs quotes them as it quotes the 3-10-run rows."""

import pathlib
import runpy
import warnings

import numpy as np
import pytest

import rlstats
from rlstats import calibration
from rlstats.methods.bayes import _api
from test_audit_s21_bayescal21 import _frame  # two agents of given paired differences
from test_audit_s21_bayescal21b import looked_up_rows

REFERENCE = pathlib.Path(__file__).resolve().parent / "reference"


# nearest23: 7 tasks read the 5- and 10-task rows that bracket them (the 5-task rows alone before)
@pytest.mark.parametrize("tasks, runs, looked_up", [(26, 1, ((26,), 1)), (7, 2, ((5, 10), 2)), (10, 1, ((10,), 1))])
def test_one_run_per_task_is_read_at_its_measured_row(monkeypatch, tasks, runs, looked_up):
    res, asked = looked_up_rows(monkeypatch, np.random.default_rng(3).normal(0.0, 0.3, size=(tasks, runs)))
    assert res.comparisons["p_rope"].iloc[0] >= 0.95
    assert asked == [looked_up]
    assert not any("is not measured" in note for note in res.notes), res.notes


def test_the_hierarchical_model_keeps_its_measured_runs():
    # the hierarchical rows start at 3 runs: 2 runs per cell is still outside them
    assert _api.DECISION_RUNS["hierarchical"][0] == 3
    assert not [r for r in calibration.rows("bayes.decision") if r["test"] == "hierarchical" and int(r["runs"]) < 3]


def test_the_few_runs_rows_hold_their_figures():
    rows = [r for r in calibration.rows("bayes.decision") if r["test"] == "signed_rank" and int(r["runs"]) < 3]
    assert len(rows) == 72
    error = {(int(r["runs"]), r["statistic"]): [] for r in rows}
    for r in rows:
        error[int(r["runs"]), r["statistic"]].append(1 - float(r["coverage"]))
    assert max(error[1, "false_equivalence"]) == pytest.approx(0.05)
    assert max(error[2, "false_equivalence"]) == pytest.approx(0.1)
    assert max(error[1, "false_difference"] + error[2, "false_difference"]) == pytest.approx(0.0375)
    # four miss by the notes' rule, each in its worst draw of the tasks' offsets and scales only (0.8 of 20 data
    # sets, 3.1 SE of one draw), so a result at those designs quotes them
    missing = [(r["tasks"], r["runs"], r["distribution"]) for r in rows
               if calibration.shortfall([r], 0.95, test="signed_rank", statistic=r["statistic"],
                                        tasks=int(r["tasks"]), runs=int(r["runs"])) is not None]
    assert missing == [("10", "1", "heavy_tailed"), ("10", "2", "skewed"), ("26", "2", "skewed"),
                       ("26", "2", "heavy_tailed")]


def test_a_one_run_row_reproduces_from_its_seeds():
    module = runpy.run_path(str(REFERENCE / "bayes_decisions.py"))
    point = ("signed_rank", 5, 1, "skewed")
    assert point in module["grid"]()[72:]
    table = {r["configuration"]: r for r in calibration.rows("bayes.decision") if r["test"] == point[0]
             and (int(r["tasks"]), int(r["runs"]), r["distribution"]) == point[1:]}
    # one configuration of the three (each draws from its own seeds): the ROPE's edge, the row of a decision's note
    held = module["held_by_draw"](*point, "delta = rope", module["SIMULATIONS"][0])
    row = module["DESIGNS"]["pooled_row"](held, 0.95)
    own = table["delta = rope"]
    assert (float(own["coverage"]), float(own["coverage_min"]), int(own["n_sim"])) == (
        pytest.approx(row["coverage"], abs=5e-7), pytest.approx(row["coverage_min"], abs=5e-7), row["n_sim"])


def test_a_result_at_a_missing_few_runs_row_quotes_it():
    # 10 tasks, one run each: the heavy-tailed row at the ROPE's edge reads 'equivalent' in 0.05 of 80 data sets,
    # 0.2 in its worst draw; the nearest-row lookup is by tasks and runs, and the note names the worst family there
    x = np.random.default_rng(3).normal(0.0, 0.3, size=(10, 1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = rlstats.bayes(_frame(x), "score ~ agent | task", rope=1.0, rng=0, progress=False)
    # the credible-interval note cites the bayes.decision rows too (audit s24 curves24)
    notes = [n for n in res.notes if "bayes.decision" in n and "practically equivalent" in n]
    assert len(notes) == 1
    assert "(10 tasks, 1 run per agent, heavy-tailed scores)" in notes[0]
    assert "0.050 of 80 simulated data sets, 0.200 in the worst of its 4 draws" in notes[0], notes[0]


def test_curves_comparisons_of_the_optimality_gap_say_which_has_more_shortfall():
    # audit s22 (curves22): "C51 above DQN" of the optimality gap read as C51 ahead, where a larger gap is worse
    df = rlstats.datasets.simulate_curves(agents=2, tasks=3, seeds=5, rng=0, effect=3.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gap = rlstats.curves(df, "score ~ agent | task/seed", step="step", statistic="optimality_gap", gamma=12.0,
                             compare="all", rng=0, progress=False, normalize=False, n_resamples=500)
        mean = rlstats.curves(df, "score ~ agent | task/seed", step="step", statistic="mean", compare="all", rng=0,
                              progress=False, normalize=False, n_resamples=500)
    (_, said_gap), = gap._verdicts()
    (_, said_mean), = mean._verdicts()
    assert "'s gap above agent_" in said_gap and "(more shortfall below gamma)" in said_gap, said_gap
    assert "gap" not in said_mean and " above agent_" in said_mean, said_mean
    # the agent with the larger mean has the smaller gap
    assert said_gap.split("'s gap")[0] != said_mean.split(" above")[0]


def test_the_no_spread_note_says_where_the_resamples_do_not_vary():
    # audit s22 (curves22): the note said the resamples "do not vary at all" of a simultaneous band withheld where no
    # step had more than the tail of such resamples; it reads each resample's largest ratio over the steps
    df = rlstats.datasets.simulate_curves(agents=2, tasks=1, seeds=6, rng=1, effect=1.0)
    df["score"] = np.minimum(df["score"], 8.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # every score at or below gamma: the default gives the gap the mean's bands, given here (audit s27
        # curvegap27); the gap's own, whose note this reads, are the former default's
        res = rlstats.curves(df, "score ~ agent | task/seed", step="step", statistic="optimality_gap", gamma=8.0,
                             rng=0, progress=False, normalize=False, n_resamples=400, bands="studentized_unwidened")
    note, = [n for n in res.notes if "do not vary at all" in n]
    assert note.startswith("bands of the curves are withheld for agent_2 at 3 steps: there, more than 0.025 of the "
                           "resamples do not vary at all (at the step, for its pointwise band; at some step, for the "
                           "simultaneous band, which reads each resample's largest ratio over the steps)")
    tidy = res.tidy()
    three = tidy[(tidy["agent"] == "agent_2") & tidy["std_error"].notna() & tidy["conf_low"].isna()]
    assert three["step"].tolist() == [421053, 526316, 789474]


def test_the_noninferiority_label_keeps_its_inequality_on_one_line(tmp_path):
    # audit s22 (equiv22): at a paper column's width the x label broke as "shaded: delta >" / "-margin (filled: ..."
    import matplotlib.pyplot as plt

    df = rlstats.datasets.simulate(agents=2, tasks=4, seeds=6, effect=0.0, rng=4)
    res = rlstats.equivalence(df, "score ~ agent | task", margin=5, alternative="noninferior",
                              control="agent_2", normalize=False,
                              aggregate=None)
    fig, ax = plt.subplots(figsize=(2.2, 2.6))          # a narrow panel of a paper's figure
    res.plot(ax=ax)
    fig.savefig(tmp_path / "noninferior.png", dpi=100)
    fig.canvas.draw()
    lines = ax.xaxis.label._get_wrapped_text().split("\n")   # as matplotlib's wrap=True draws it
    assert len(lines) > 2                                       # broken to the column's width
    assert any("delta > -margin" in line.replace("\u00a0", " ") for line in lines), lines
    plt.close(fig)


# ------------------------------------------------------------------- rlstats compare --summarize (audit s22)

def _cli_json(*argv):
    import json

    from conftest import cli_shell

    done = cli_shell(*argv, "--format", "json", "--seed", "0")  # what `rlstats ARGS` prints, in this process
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout), done.stderr


@pytest.mark.parametrize("response, how, extra, python", [
    ("score", "final", [], {}),
    ("score", "last_k_mean", ["--summarize-option", "k=3"], {"k": 3}),
    ("log1p(score - 0)", "auc", ["--summarize-option", "normalize_auc=True"], {"normalize_auc": True}),
])
def test_the_command_line_summarises_each_run_as_python_does(tmp_path, response, how, extra, python):
    # a file of learning curves was refused by `rlstats compare` with "keep one row of each run in the file", and
    # the command had no way to; --summarize is rlstats.summarize_runs before the comparison
    curves = rlstats.datasets.simulate_curves(agents=3, tasks=4, seeds=4, steps=6, rng=2)
    curves["score"] = curves["score"].abs()
    path = tmp_path / "curves.csv"
    curves.to_csv(path, index=False)
    formula = f"{response} ~ agent | task/seed"
    said, _ = _cli_json("compare", path, formula, "--summarize", how, *extra)
    runs = rlstats.summarize_runs(curves, formula, step="step", how=how, **python)
    column = "score" if response == "score" else "value"
    assert column in runs.columns and len(runs) == 48
    expected = rlstats.compare(runs, f"{column} ~ agent | task/seed", rng=0)
    assert said["statistic"] == pytest.approx(expected.statistic, rel=1e-12)
    assert said["pvalue"] == pytest.approx(expected.pvalue, rel=1e-12)
    label = column if response == "score" else f"value ({response})"  # an expression's summary says of what
    assert any(note.startswith(f"{label}: ") for note in said["notes"]), said["notes"]   # the summary's rule


def test_a_back_quoted_response_names_its_summary_column(tmp_path):
    # summarize_runs named the summary of `eval/mean_reward` 'value', so the same formula did not read it
    curves = rlstats.datasets.simulate_curves(agents=2, tasks=2, seeds=3, steps=4, rng=0)
    curves = curves.rename(columns={"score": "eval/mean_reward"})
    runs = rlstats.summarize_runs(curves, "`eval/mean_reward` ~ agent | task/seed", step="step")
    assert list(runs.columns) == ["agent", "task", "seed", "eval/mean_reward"]
    last = curves[curves["step"] == curves["step"].max()].sort_values(["agent", "task", "seed"])
    np.testing.assert_array_equal(runs.sort_values(["agent", "task", "seed"])["eval/mean_reward"].to_numpy(),
                                  last["eval/mean_reward"].to_numpy())
    res = rlstats.compare(runs, "`eval/mean_reward` ~ agent | task/seed")
    assert res.data_name.startswith("eval/mean_reward") or "eval/mean_reward" in str(res)


def test_the_command_line_subset_selects_rows_of_the_file_before_the_summary(tmp_path):
    curves = rlstats.datasets.simulate_curves(agents=2, tasks=3, seeds=4, steps=6, rng=5)
    path = tmp_path / "curves.csv"
    curves.to_csv(path, index=False)
    cut = sorted(curves["step"].unique())[3]
    said, _ = _cli_json("compare", path, "score ~ agent | task/seed", "--summarize", "final",
                        "-o", f"subset=step <= {cut}")
    kept = curves[curves["step"] <= cut]
    runs = rlstats.summarize_runs(kept, "score ~ agent | task/seed", step="step")
    expected = rlstats.compare(runs, "score ~ agent | task/seed", rng=0)
    assert said["statistic"] == pytest.approx(expected.statistic, rel=1e-12)
    assert said["notes"][0] == f"subset='step <= {cut}' kept {len(kept)} of {len(curves)} rows"
