"""Audit s36 (digits36): digits35's rule (format.level_digits) widened levels only from 1e5, capped them at 15
significant digits, and the bootstrap's report chose its digits per metric where its tables chose them per column.

Found (reproducers below):

* Scores of 5e4 whose runs spread by 0.01 (x / 1000 + 5e4) printed the bootstrap's agent_1 mean 50000.015133
  [50000.009749, 50000.021904] as "50000 50000 50000", curves' last step "50000 (50000 to 50000)" and the task
  table's 50000.047 ± 0.0094 as "50000 ± 0.0094"; fmt.signif_levels([123.45678, 123.45677, 123.45679]) read
  "123.46" three times. The scale-free rule: a level whose interval (a row: an estimate and its bounds, a mean and
  mean + SD) reads as one value at 5 digits while its values differ gets the digits its smallest spread needs to 3
  significant digits, whatever its magnitude.
* Above 1e15 the 15-digit cap read 1e16 + 15.133 [1e16 + 9.749, 1e16 + 21.904] as "1e+16 1e+16 1e+16".
* Scores of simulate() shifted by 1e6: the table read agent_1's mean 1000015.582 where the report read 1000015.58
  (the report sized each metric's digits alone, the table the column's).

Fixed at the one home, format.level_digits: a row (an interval) whose values differ but read alike at 5 digits, at any
magnitude, widens its block as digits35's rule does (the integer digits, the smallest spread to 3 significant
digits), and further until the row reads apart; at most 15 digits, from 1e15 a double's 17 (every digit the doubles
hold: 1e16 + 16 [1e16 + 14, 1e16 + 18] reads 10000000000000016 [10000000000000014, 10000000000000018]; doubles that
differ past 17 digits are one number). Where 5 digits already read every row apart below 1e5 the print is unchanged
(the recorded outputs, test_format, test_metamorphic and the meta and digits audits pass as they were). Tables read an
interval's rows by their columns (format.INTERVAL_COLUMNS); the task table reads each agent's mean and mean + SD as a
row. Prose beside a table takes that table's digits where it widens them (signif_levels(among=)): the bootstrap's
report, curves' last-step lines.
"""

from __future__ import annotations

import re
import warnings

import pytest

import rlstats
from rlstats import format as fmt

from test_audit_s34_meta34 import _curves, _runs  # noqa: E402  meta34's unbalanced runs and curves (one home)

F = "score ~ agent | task"
NUMBER = r"-?[\d.]+(?:e[+-]\d+)?"


def _quiet(call, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return call(*args, **kwargs)


def _bootstrap(df, **options):
    return _quiet(rlstats.bootstrap, df, F, **{"metrics": ("mean",), "n_resamples": 200, "rng": 1, **options})


def _table_cells(result):
    """{(agent, metric): [estimate, low, high] as printed} of a bootstrap's print."""
    rows = {}
    for line in str(result).splitlines():
        parts = line.split()
        if len(parts) >= 3 and parts[0].startswith("agent_") and re.fullmatch(NUMBER, parts[2]):
            rows[parts[0], parts[1]] = parts[2:5]
    return rows


def test_levels_below_1e5_whose_interval_collapses_print_apart():
    assert fmt.signif_levels([123.45678, 123.45677, 123.45679]) == ["123.45678", "123.45677", "123.45679"]
    assert fmt.signif_levels([50000.003, 49999.99, 50000.01]) == ["50000.003", "49999.99", "50000.01"]
    shifted = _bootstrap(_runs().assign(score=lambda d: d["score"] / 1000 + 5e4))
    # measured unshifted: 15.133 [9.749, 21.904]; here 50000.015133 [50000.009749, 50000.021904]
    cells = _table_cells(shifted)["agent_1", "mean"]
    assert len(set(cells)) == 3
    row = shifted.tidy().iloc[0]
    assert [float(c) for c in cells] == pytest.approx([row["estimate"], row["conf_low"], row["conf_high"]], abs=1e-5)


def test_levels_above_1e15_print_apart():
    # at 1e16 a double's step is 2: the runs' spread (about 10) is left, the studentized interval is withheld (no
    # spread to studentise within tasks), the percentile one is 1e16 + 16 [1e16 + 14, 1e16 + 18]
    shifted = _bootstrap(_runs().assign(score=lambda d: d["score"] + 1e16), interval="percentile")
    cells = _table_cells(shifted)["agent_1", "mean"]
    row = shifted.tidy().iloc[0]
    values = [row["estimate"], row["conf_low"], row["conf_high"]]
    assert values == [1e16 + 16, 1e16 + 14, 1e16 + 18]
    # every digit a double holds (17 significant): each printed number reads back as the double computed
    assert cells == ["10000000000000016", "10000000000000014", "10000000000000018"]


def test_the_report_reads_every_level_as_the_tables_do():
    df = rlstats.datasets.simulate(3, 5, 5, effect=0.5, rng=0)
    res = _bootstrap(df.assign(score=df["score"] + 1e6), metrics=("iqm", "mean", "median"))
    printed, summary = _table_cells(res), _table_cells(res.summary())
    assert printed == summary
    report = res.report()
    said = 0
    for metric, label in (("iqm", "IQM"), ("mean", "Mean"), ("median", "Median")):
        sentence = report.split(f" {label}: ")[1].split(". ")[0]
        for agent, estimate, low, high in re.findall(rf"(agent\\_\d) ({NUMBER}) \(({NUMBER}) to ({NUMBER})\)",
                                                     sentence):
            assert [estimate, low, high] == printed[agent.replace("\\", ""), metric], (metric, agent)
            said += 1
    assert said == 9


# Metamorphic: the printed estimate and bounds of every interval (a row) read apart under a shift or a scale of the
# scores wherever they read apart on the scores as they are. Equivalence prints differences, which a shift leaves.
TRANSFORMS = {"+5e4": lambda s: s + 5e4, "+1e5": lambda s: s + 1e5, "+1e6": lambda s: s + 1e6,
              "+1e9": lambda s: s + 1e9, "x1e-6": lambda s: s * 1e-6, "/1000+5e4": lambda s: s / 1000 + 5e4}


def _bootstrap_rows(df):
    return list(_table_cells(_bootstrap(df)).values())


def _curves_rows(df):
    text = str(_quiet(rlstats.curves, df, "score ~ agent | task/seed", step="step", n_resamples=100, rng=1))
    return [list(m) for m in re.findall(rf"^  agent_\d: ({NUMBER}) \(({NUMBER}) to ({NUMBER})\)", text, re.M)]


def _equivalence_rows(df):
    scale = df["score"].std()  # the margin in the score's units
    text = str(_quiet(rlstats.equivalence, df, F, margin=0.05 * scale, n_resamples=200, rng=1))
    return [list(m) for m in re.findall(rf"difference(?: over tasks)? ({NUMBER}), 90% CI ({NUMBER}) to ({NUMBER})",
                                        text)]


def _task_table_rows(df):
    """The aggregate row's estimate and bounds, and each cell's mean and mean + SD as printed."""
    result = _quiet(rlstats.task_table, df, F, aggregate="bootstrap", n_resamples=200, rng=1)
    text = str(result)
    rows = [list(m) for m in re.findall(rf"({NUMBER}) \[({NUMBER}), ({NUMBER})\]", text)]
    for mean, sd in re.findall(rf"({NUMBER}) ± ({NUMBER})", text):
        rows.append([mean, repr(float(mean) + float(sd))])
    return rows


ROWS = {"bootstrap": (_bootstrap_rows, _runs), "curves": (_curves_rows, _curves),
        "equivalence": (_equivalence_rows, _runs), "task_table": (_task_table_rows, _runs)}


def _apart(row):
    return len(set(row)) == len(row)


@pytest.mark.parametrize("method", sorted(ROWS))
def test_printed_intervals_read_apart_under_a_shift_or_a_scale(method):
    rows_of, data = ROWS[method]
    plain = rows_of(data())
    assert len(plain) >= 3 and all(_apart(row) for row in plain)
    for name, transform in TRANSFORMS.items():
        moved = rows_of(data().assign(score=lambda d: transform(d["score"])))
        assert len(moved) == len(plain), name
        assert [row for row, before in zip(moved, plain) if _apart(before) and not _apart(row)] == [], name


def test_curves_last_step_lines_read_as_the_summary_table():
    df = _curves().assign(score=lambda d: d["score"] / 1000 + 5e4)
    result = _quiet(rlstats.curves, df, "score ~ agent | task/seed", step="step", n_resamples=100, rng=1)
    text = str(result.summary())
    lines = re.findall(rf"^  (agent_\d): ({NUMBER}) \(({NUMBER}) to ({NUMBER})\)", text, re.M)
    table = {parts[0]: [parts[2], parts[6], parts[7]] for parts in map(str.split, text.splitlines())
             if len(parts) == 8 and parts[0].startswith("agent_")}
    # unscaled: agent_1's IQM at the last step 30.407 (25.758 to 35.055); here 50000.03041 (50000.02576 to 50000.03506)
    assert lines[0] == ("agent_1", "50000.03041", "50000.02576", "50000.03506")
    assert len(lines) == 3 and all(list(said) == table[agent] for agent, *said in lines)


def test_tuning_lines_read_as_the_summary_tables():
    from conftest import lr_sweep
    df = lr_sweep(categorical=True)
    result = _quiet(rlstats.tuning, df.assign(score=df["score"] + 1e6), "score ~ agent | task/seed", config="lr",
                    n_resamples=100, rng=1)
    text = str(result.summary())
    lines = re.findall(rf"^  (\w+) on (\w+): .*tuned score ({NUMBER}) \[({NUMBER}), ({NUMBER})\] "
                       rf"\(its own mean ({NUMBER})\)", text, re.M)
    table = {(p[0], p[1]): [p[7], p[8], p[9], p[5]] for p in map(str.split, text.split("\ntuned score:\n")[1]
                                                                  .split("\n\n")[0].splitlines()[1:])}
    # unshifted: ppo on ant's tuned score 1.5193 [-0.30836, 2.7977] (its own mean 1.5193); the table's 1000001.519
    # [999999.6916, 1000002.798], where the line read 1000001.52 [999999.692, 1000002.8]
    assert lines[0] == ("ppo", "ant", "1000001.519", "999999.6916", "1000002.798", "1000001.519")
    assert len(lines) == 4 and all(list(said) == table[agent, task] for agent, task, *said in lines)


def test_tuning_held_out_estimate_reads_its_digits():
    import numpy as np
    from test_tuning import sweep_frame
    rng = np.random.default_rng(4)  # test_tuning's held-out case: held out 0.92339 [-3.733, 5.5798] over 3 runs
    df = sweep_frame([rng.normal(mu, 1.0, 8) for mu in (0.0, 0.5, 0.2)]).assign(score=lambda d: d["score"] + 1e6)
    df["evaluation"] = df["seed"] >= 5
    result = _quiet(rlstats.tuning, df, "score ~ agent | task/seed", config="lr", holdout="evaluation",
                    views=["best_set"], n_resamples=500, rng=0)
    assert "held out 1000000.92 [999996.267, 1000005.58] over 3 runs" in str(result)  # was "held out 1e+06 [..."


def test_mixed_report_reads_its_marginal_means_as_its_table():
    result = _quiet(rlstats.mixed, _runs().assign(score=lambda d: d["score"] + 1e6), F)
    # unshifted: agent_3 18.7, agent_2 16.7, agent_1 15.1; the table's 1000018.67, 1000016.68, 1000015.13
    report = result.report().replace("\\_", "_")  # LaTeX's agent\_1
    assert "Estimated marginal means: agent_3 1000018.67, agent_2 1000016.68, agent_1 1000015.13." in report
    assert "agent_3  1000018.67" in str(result.summary())
    plain = _quiet(rlstats.mixed, _runs(), F)
    assert "Estimated marginal means: agent_3 18.7, agent_2 16.7, agent_1 15.1." in plain.report().replace("\\_", "_")
