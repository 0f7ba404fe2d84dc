"""Audit s25 as a new user: a fresh clone, a fresh venv, the README's two commands, the documentation site's pages
and the vignettes read and run as they stand, and ``rlstats.compare`` on the shared real data. Each test is a
minimal reproducer of one defect found; its docstring gives what was seen."""

from __future__ import annotations

import functools
import re
from pathlib import Path

import pytest

import rlstats

ROOT = Path(__file__).resolve().parents[1]


@functools.cache
def _calibration_table():
    """``rlstats.calibration_table()``, read once a process (three reads of the whole table: 0.15 s of CPU each);
    the callers filter it into new frames."""
    import pandas as pd

    return pd.DataFrame(rlstats.calibration_table())


def _bootstrap_rows(interval, runs):
    """The calibration rows the README's sentence on the bootstrap's coverage quotes: 5 and 26 tasks, the four
    metrics of ``rlstats.bootstrap`` (not the probability of improvement), at ``runs`` runs per task."""
    table = _calibration_table()
    return table[(table["procedure"] == "bootstrap.interval") & (table["interval"] == interval)
                 & (table["metric"] != "probability_of_improvement") & table["tasks"].astype(float).isin([5, 26])
                 & table["runs"].astype(float).isin(runs) & table["configuration"].isna()]


def test_readme_quotes_the_studentised_intervals_coverage_from_the_table():
    """README said rliable's percentile intervals "covered 0.71-0.92 at 3 runs per task and 0.84-0.96 at 5 ... while
    the studentised ones covered 0.92-1.00 (IQM 0.96-0.99)". The calibration table's studentised rows at those
    designs (5 and 26 tasks, 3 and 5 runs) read 0.948-1.000 (IQM 0.962-0.990); 0.92 is no row's coverage there (nor
    at 10 or 20 runs, 0.940 at least): it is the lowest design draw's, coverage_min 0.921, a different quantity. Now 0.95-1.00, the table's 0.948-1.000."""
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    quoted = re.search(r"while the studentised ones covered (\d\.\d\d)–(\d\.\d\d) \(IQM (\d\.\d\d)–(\d\.\d\d)\)",
                       readme)
    assert quoted, "README no longer quotes the studentised intervals' coverage in this form"
    rows = _bootstrap_rows("studentized", [3, 5])
    iqm = rows[rows["metric"] == "iqm"]
    coverage, coverage_iqm = rows["coverage"].astype(float), iqm["coverage"].astype(float)
    assert len(rows) == 64 and len(iqm) == 16
    assert (round(coverage.min(), 3), round(coverage.max(), 3)) == (0.948, 1.0)
    assert (round(coverage_iqm.min(), 3), round(coverage_iqm.max(), 3)) == (0.962, 0.99)
    assert quoted.groups() == (f"{coverage.min():.2f}", f"{coverage.max():.2f}", f"{coverage_iqm.min():.2f}",
                               f"{coverage_iqm.max():.2f}")
    # the percentile ranges of the same sentence, read the same way, are the table's
    for runs, text in ((3, "0.71–0.92 at 3 runs per task"), (5, "0.84–0.96 at 5")):
        percentile = _bootstrap_rows("percentile", [runs])["coverage"].astype(float)
        assert f"{percentile.min():.2f}–{percentile.max():.2f}" in text and text in readme


def _markdown(vignette):
    """The text of a vignette's Markdown cells, one line, without the comment marks."""
    lines, in_markdown = [], False
    for line in (ROOT / "vignettes" / f"{vignette}.py").read_text(encoding="utf-8").splitlines():
        if line.startswith("# %%"):
            in_markdown = "[markdown]" in line
        elif in_markdown and line.startswith("#"):
            lines.append(line.lstrip("#").strip())
    return " ".join(" ".join(lines).split())


def test_adastop_vignette_tells_the_reader_hopper_repeats_its_first_batches(mirror):
    """vignettes/adastop_mujoco.py replays the AdaStop paper's MuJoCo batches and reads Hopper's comparisons ("two
    comparisons run to the full budget of 30 runs and are called equal"), while every one of its adastop() calls warns
    and notes "runs that repeat an earlier interim's exactly ...: hopper: DDPG, PPO, SAC at interims 3 (= 1) and 4
    (= 2)": the published hopper3/hopper4 files repeat hopper1/hopper2 for those agents, so 10 of their 30 Hopper runs
    are copies. The vignette's prose said nothing of it: a reader saw ten warnings and a note the text never
    explains. It now says so, and prints which batches repeat."""
    runs = rlstats.datasets.load("mujoco_adastop")
    hopper = runs[runs["task"] == "hopper"]
    for agent, repeated in (("DDPG", True), ("PPO", True), ("SAC", True), ("TRPO", False)):
        batches = {b: sorted(g["score"]) for b, g in hopper[hopper["agent"] == agent].groupby("batch")}
        assert (batches[3] == batches[1] and batches[4] == batches[2]) is repeated, agent
    text = _markdown("adastop_mujoco")
    assert re.search(r"[Hh]opper's batches 3 and 4 repeat batches 1 and 2", text), "the vignette does not say so"
    assert "DDPG, PPO and SAC" in text


def _improvement_rows(interval):
    """The calibration rows of probability_of_improvement's ``interval`` at 3 to 20 runs per task (every task count
    the table measured: 1, 2, 5 and 26)."""
    from rlstats import calibration

    return [row for row in calibration.rows("bootstrap.interval") if row["metric"] == "probability_of_improvement"
            and row["interval"] == interval and 3 <= int(row["runs"]) <= 20]


def test_probability_of_improvement_claims_count_the_tables_rows():
    """README said the default score interval of ``probability_of_improvement`` "covered 0.92-0.98 at 3-20 runs per
    task, none of its 48 rows short by 3 SE, where the percentile interval covered 0.84-1.00 with 12 rows short", and
    docs/rliable.md "none of its 48 rows short; 0.89 in the worst design draw". Audit s24 added the 2-task rows: the
    table has 64 rows of each at 3-20 runs; one score row misses 95% by more than 3 SE in a design draw (2 tasks x 3
    skewed runs, 0.940 pooled, 0.880 in its worst draw, which the result's note quotes on 2 tasks x 3 runs), and the
    percentile interval covers 0.775-1.00 with 20 rows short. The 48 were the rows of 1, 5 and 26 tasks, which the
    sentences did not say. Both now count the 64 rows and name the one short."""
    from rlstats import calibration

    score, percentile = _improvement_rows("score"), _improvement_rows("percentile")
    assert len(score) == len(percentile) == 64
    short = [row for row in score if calibration.misses(row, 0.95)]
    assert [(row["tasks"], row["runs"], row["distribution"], row["coverage_min"]) for row in short] == [
        ("2", "3", "skewed", "0.88")]
    assert sum(calibration.misses(row, 0.95) for row in percentile) == 20
    coverage = [float(row["coverage"]) for row in score]
    assert (min(coverage), max(coverage)) == (0.92, 0.9825)
    assert min(float(row["coverage"]) for row in percentile) == 0.775
    df = rlstats.datasets.simulate(agents=2, tasks=2, seeds=3, effect=0.5, rng=0)
    res = rlstats.probability_of_improvement(df, "score ~ agent | task", normalize="minmax")
    assert any("0.880 in the worst of its 4 draws" in note for note in res.notes)
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    rliable = " ".join((ROOT / "docs" / "rliable.md").read_text(encoding="utf-8").split())
    for text in (readme, rliable):
        assert "48 rows" not in text
        assert "one of its 64 rows" in text and "0.88" in text
    assert "0.78–1.00 with 20 rows short" in readme and "0.78–1.00 at 3 to 20 runs per task (20 of its 64 rows" in rliable


def _withheld(runs, metrics=("iqm", "mean", "median", "optimality_gap")):
    """The metrics whose default interval ``rlstats.bootstrap`` withholds on one task of ``runs`` uniform runs per
    agent on [0, 1.2] (some below gamma = 1, so the optimality gap has a spread)."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"agent": np.repeat(["a", "b"], runs), "task": "t", "seed": np.tile(np.arange(runs), 2),
                          "score": rng.uniform(0, 1.2, 2 * runs)})
    tidy = rlstats.bootstrap(frame, "score ~ agent | task", metrics=metrics, n_resamples=200, rng=0).tidy()
    return sorted(tidy.loc[tidy["conf_low"].isna(), "metric"].unique())


def test_bootstrap_page_states_from_how_many_runs_one_task_gets_intervals():
    """The site's page of the bootstrap back end (rlstats/methods/bootstrap/_backend.py's "When to use") said the
    default interval is withheld on a single task "below the runs from which it held there (the IQM from 20, the
    median, the task's mean, from 30; the mean and the optimality gap never)". That is the rule of
    ``interval="studentized_no_welch"``; the default, with the Welch bound, gives the mean's from 20 runs and the
    optimality gap's from 50, as README, which_method.md and rliable.md say: on one task of uniform runs it withheld
    every metric at 19 runs, the median and the optimality gap at 20, the optimality gap at 30 and 49, none at 50.
    The page now says so."""
    from rlstats.methods.bootstrap import _backend

    assert _withheld(19) == ["iqm", "mean", "median", "optimality_gap"]
    assert _withheld(20) == ["optimality_gap"]  # the median's from 20 too since audit s26 (the mean's interval there)
    assert _withheld(30) == _withheld(49) == ["optimality_gap"]
    assert _withheld(50) == []
    when = " ".join(_backend.__doc__.split())
    assert "the mean and the optimality gap never" not in when
    assert ("(the IQM and the mean from 20, the median, the task's mean with the mean's interval, from 20 too, the "
            "optimality gap from 50, or 20 where every score is at or below gamma, where it is gamma minus the mean)"
            ) in when  # the gap's clause since audit s27 (median27)


def test_vignettes_import_the_public_names_from_the_package_face():
    """README's stability section: "The public API is what ``rlstats.__all__`` and ``rlstats.datasets.__all__``
    export"; the back-end pages show a reader "never a private module". Yet a reader copying the vignettes typed
    ``from rlstats.methods.adastop import AdaStop, adastop`` (adastop_mujoco), ``from rlstats.methods.bootstrap import
    ...`` and ``from rlstats.methods.skillings_mack import ...`` (bootstrap_atari), ``from rlstats.planning import
    PowerResult, power, sample_size`` (how_many_seeds, power_reproductions) and ``from rlstats.errors import
    DataUnavailableError`` (practical_equivalence, sb3_logs_to_paper): paths the package may move, for names that
    ``rlstats`` itself exports. They now import them from ``rlstats``."""
    import ast

    import rlstats.datasets

    public = {"rlstats": set(rlstats.__all__), "rlstats.datasets": set(rlstats.datasets.__all__)}
    found = []
    for path in sorted((ROOT / "vignettes").glob("*.py")):
        if path.name == "render.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("rlstats"):
                names = {alias.name for alias in node.names}
                if node.module not in public or not names <= public[node.module]:
                    found.append(f"{path.name}: from {node.module} import {', '.join(sorted(names))}")
            elif isinstance(node, ast.Import):
                found += [f"{path.name}: import {a.name}" for a in node.names
                          if a.name.startswith("rlstats.") and a.name not in public]
    assert found == []


def test_readme_says_where_the_studentised_intervals_miss():
    """README: "none of its 128 measured rows misses 95% by more than 3 Monte Carlo SE, pooled or in a design draw".
    The table measures the default studentised intervals (where given) on 1, 2, 5 and 26 tasks: 68, 64, 64 and 64
    rows. None of the 196 on 1, 5 and 26 tasks misses; 18 of the 64 on 2 tasks do (added by audit s24: the
    optimality gap's 11, the median's 4, the IQM's 3; the gap's covered 0.805 at 3 runs), and a result on 2 tasks x 3
    runs quotes them ("covered 0.81 to 0.87"). A reader with two environments read that no row misses. README now
    counts the 196 rows that hold and the 18 of 64 on 2 tasks that miss."""
    from rlstats import calibration

    rows = _bootstrap_rows_all("studentized")
    by_tasks = {t: [row for row in rows if row["tasks"] == t] for t in ("1", "2", "5", "26")}
    # audit s26 (median26): the median's rows on 1 and 2 tasks measure its own t interval ("t interval"), which the
    # package gives from 3 tasks (there it gives the mean's): 68 - 16 and 64 - 16, and its 4 misses on 2 tasks out
    assert {t: len(r) for t, r in by_tasks.items()} == {"1": 52, "2": 48, "5": 64, "26": 64}
    missed = {t: sum(calibration.misses(row, 0.95) for row in r) for t, r in by_tasks.items()}
    assert missed == {"1": 0, "2": 14, "5": 0, "26": 0}
    assert min(float(row["coverage"]) for row in by_tasks["2"]) == pytest.approx(0.805208)
    df = rlstats.datasets.simulate(agents=2, tasks=2, seeds=3, effect=0.5, rng=0)
    quoted = "optimality gap: in simulations on 2 tasks with 3 runs per task, nominal 95% intervals covered 0.81"
    # gamma within the min-max normalised scores: the gap's own interval, whose 2-task rows it quotes; at gamma = 1
    # every such score is at or below gamma, the gap is 1 minus the mean and takes its interval, whose rows hold
    # (audit s27 median27)
    res = rlstats.bootstrap(df, "score ~ agent | task", normalize="minmax", gamma=0.5, n_resamples=200, rng=0)
    assert any(quoted in note for note in res.notes)
    res = rlstats.bootstrap(df, "score ~ agent | task", normalize="minmax", n_resamples=200, rng=0)
    assert res.gap_as_mean.all() and not any(quoted in note for note in res.notes)
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    assert "none of its 128 measured rows misses" not in readme
    # the grid's rows (scores on both sides of gamma); rfix31e counts the 39 of agents below gamma beside them
    assert ("none of its 180 rows on 1, 5 and 26 tasks of scores on both sides of gamma misses 95% by more than 3 "
            "Monte Carlo SE, pooled or in a design draw; on 2 tasks 14 of 48 do") in readme


def _bootstrap_rows_all(interval):
    """The package table's rows of the bootstrap's metrics at ``interval``, where the interval is given (not the
    rows measured with the one-task rule lifted, ``configuration`` "withheld")."""
    from rlstats import calibration

    return [row for row in calibration.rows("bootstrap.interval") if row["interval"] == interval
            and row["metric"] != "probability_of_improvement" and not row.get("configuration")]


def test_chooser_page_does_not_say_the_studentised_intervals_hold_everywhere():
    """docs/which_method.md, "3 to 5 runs per task": "the default studentised intervals hold it on the measured
    grid". The grid has 2-task rows since audit s24, and 18 of those 64 miss (see the test above); the back-end
    page says "holds its level on most of the measured grid". The chooser now names the 2-task rows."""
    from rlstats import calibration

    two = [row for row in _bootstrap_rows_all("studentized") if row["tasks"] == "2"]
    assert sum(calibration.misses(row, 0.95) for row in two) == 14  # 18 before audit s26 (the median's t interval)
    page = " ".join((ROOT / "docs" / "which_method.md").read_text(encoding="utf-8").split())
    assert "the default studentised intervals hold it on the measured grid," not in page
    assert "hold it on the measured grid but on 2 tasks" in page


def test_permutation_report_counts_comparisons_in_english():
    """``rlstats.compare`` on the published HalfCheetah runs (SAC against TD3, 192 runs each) reported "1 of 1
    comparisons differ: SAC > TD3 (mean difference 1319, adjusted p 1e-04)"; one of 10 differing read "1 of 10
    comparisons differ". The count now takes its noun's number from the comparisons tested and its verb's from the
    comparisons found ("1 of 1 comparison differs", "1 of 3 comparisons differs", "0 of 3 comparisons differ")."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(0)
    two = pd.DataFrame({"agent": np.repeat(["A", "B"], 10), "seed": np.tile(np.arange(10), 2),
                        "score": np.r_[rng.normal(3, 1, 10), rng.normal(0, 1, 10)]})
    report = rlstats.compare(two, "score ~ agent", n_resamples=999, rng=0).report(format="text")
    assert "1 of 1 comparison differs: A > B" in report
    three = pd.concat([two, two[two["agent"] == "B"].assign(agent="C")])
    report = rlstats.compare(three, "score ~ agent", n_resamples=999, rng=0).report(format="text")
    assert re.search(r"2 of 3 comparisons differ: A > B", report), report
    alike = two.assign(score=rng.normal(0, 1, 20))
    report = rlstats.compare(alike, "score ~ agent", n_resamples=999, rng=0).report(format="text")
    assert "0 of 1 comparison differs." in report


def test_task_table_report_says_whose_best_the_set_covers():
    """README's paper table (``task_table(..., statistic="iqm")`` on five Atari 100k games): the print and the caption
    say the bold and daggers form "a 95% confidence set for the agent with the best mean of the task (the Welch t test
    compares means, not the IQMs shown)" (audit s23), but ``report()``, the paragraph pasted into a paper, said "For
    each of 5 tasks we marked the agent with the best IQM of its runs ..., so that the marked agents form a 95%
    confidence set for the task's best agent": best by the IQM it had just named, which the set does not cover.
    The report now names the mean, as the caption does; with statistic="mean" it is unchanged."""
    df = rlstats.datasets.simulate(agents=3, tasks=4, seeds=6, effect=1.0, rng=0)
    iqm = rlstats.task_table(df, "score ~ agent | task/seed", statistic="iqm", normalize="minmax", rng=0)
    text = iqm.report(format="text")
    assert "we marked the agent with the best IQM of its runs" in text
    assert ("form a 95% confidence set for the agent with the best mean of the task (the Welch t test compares "
            "means, not the IQMs reported; Mogstad et al. 2024)") in text
    assert "confidence set for the agent with the best mean of the task" in iqm.caption()
    mean = rlstats.task_table(df, "score ~ agent | task/seed", normalize="minmax", rng=0)
    assert "95% confidence set for the task's best agent (Mogstad et al. 2024)" in mean.report(format="text")
