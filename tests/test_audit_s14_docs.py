"""Audit s14 of what the documentation promises and of the paper outputs, as a new user reads them: README.md,
docs/*.md (overview, r_users, rliable, which_method, calibration), the generated back-end pages
(``docs/_generate.py``) and the vignettes' prose, each sentence about what a function does, returns, prints or
defaults to checked against a run of the code today (the calibration table's counts recounted with
``rlstats.calibration.misses``, defaults read from the signatures, R equivalents against scipy); ``to_latex()`` of
every result type with agent and task names that LaTeX reads as markup (``PPO_v2``, ``R&D``, ``50%``, ``#1 {x}``,
``x^2``), checked for balanced braces and environments, escaped characters, captions true of the rows and the
numbers of ``print()``; and polars DataFrames and pyarrow Tables (categorical, dictionary-encoded, large-string,
float32 and unsigned columns, nulls) against pandas for every back end, with errors naming the columns as written.
Each test is a minimal reproducer of one defect found; its docstring gives what was seen."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest

import rlstats
from rlstats import format as fmt

ROOT = Path(__file__).resolve().parents[1]


def test_readme_states_the_blocked_rank_tests_default_p_value():
    """README's tour said of the blocked rank test "p-values: asymptotic chi-squared (default), pvalue="monte_carlo"
    ... or pvalue="exact"", and its R table said ``rlstats.skillings_mack(df, "score ~ agent | task")`` gives the
    numbers of ``friedman.test``. The default is ``pvalue="auto"``: on 3 agents x 8 tasks x 1 run it printed the
    permutation p-value 0.0838 (R's chi-squared 0.0724), on 2 agents x 10 tasks the exact 0.754 (R's 0.527)."""
    assert inspect.signature(rlstats.skillings_mack).parameters["pvalue"].default == "auto"
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "chi-squared (default)" not in readme
    assert '`pvalue="auto"`' in readme
    row = next(line for line in readme.splitlines() if line.startswith("| `friedman.test("))
    assert 'pvalue="asymptotic"' in row
    df = rlstats.datasets.simulate(agents=3, tasks=8, seeds=1, effect=1.0, rng=0)
    res = rlstats.skillings_mack(df, "score ~ agent | task", pvalue="asymptotic")
    assert abs(res.pvalue - 0.07243975703425146) < 1e-12  # scipy.stats.friedmanchisquare on the same table


def test_latex_width_comment_agrees_with_the_column_it_compares():
    """A table estimated at 228 pt was commented "about 228 pt wide, more than one column of a two-column paper
    (229.5 pt) ... resize=True (shrinks it to 101%)": the choice adds 1% to the estimate for its error, the sentence
    and the shrink factor did not. Now a table is "more than one column" only when its stated width is, one within
    the 1% is said to be too close to be sure, and the shrink factor (rounded down) is below 100%."""
    for width in (228.0, 229.1, 229.4, 229.6):
        comment = fmt.latex_float("lr", "a & b", ["x & 1"], width).splitlines()[0]
        said = float(re.search(r"about (\d+) pt wide", comment).group(1))
        assert "fits one column" not in comment, comment
        assert ("more than one column" in comment) == (said > fmt.COLUMN_WIDTH), comment
        assert int(re.search(r"shrinks it to (\d+)%", comment).group(1)) < 100, comment


def test_equivalence_page_names_the_default_across_tasks_test():
    """The generated page of ``equivalence`` (its _backend.py's "When to use") said the across-tasks test is "the
    paired t of task-level differences"; the default is ``across="welch"`` (the mean of the task-level differences,
    its standard error from the runs, Welch-Satterthwaite df: the print says "Welch-Satterthwaite over tasks"), the
    paired t being ``across="paired_t"``."""
    from rlstats.methods.equivalence import _backend

    assert inspect.signature(rlstats.equivalence).parameters["across"].default == "welch"
    when = " ".join(_backend.__doc__.split())
    assert "across tasks (the paired t of task-level differences)" not in when
    assert 'across="paired_t"' in when


def test_bootstrap_page_quotes_the_measured_coverage_of_percentile_intervals():
    """The generated page of ``bootstrap`` said rliable's percentile intervals cover "0.6-0.9 in simulation" at 3 to
    5 runs per task; the calibration table (5 and 26 tasks, as README quotes) reads 0.71-0.92 at 3 runs and
    0.84-0.96 at 5, so 0.71-0.96 at 3 to 5."""
    import pandas as pd

    from rlstats.methods.bootstrap import _backend

    table = pd.DataFrame(rlstats.calibration_table())
    rows = table[(table["procedure"] == "bootstrap.interval") & (table["interval"] == "percentile")
                 & (table["metric"] != "probability_of_improvement") & table["tasks"].astype(float).isin([5, 26])
                 & table["runs"].astype(float).isin([3, 5])]
    low, high = rows["coverage"].astype(float).min(), rows["coverage"].astype(float).max()
    when = " ".join(_backend.__doc__.split())
    assert f"{low:.2f}-{high:.2f}" in when, (low, high)


@pytest.mark.slow  # 25 s: the vignette at its default size, which is its full size
def test_mixed_vignette_quotes_the_numbers_it_prints(tmp_path):
    """vignettes/mixed_atari100k.py said resampling the games makes the mean's intervals "14 to 31 times as wide"
    and Mack-Skillings puts "SPR over DrQ(eps) ... (p = 1.8e-18)", its 14 pairs "all with adjusted p below 1e-17";
    run today at its default size (the full size) it prints "13 to 30 times as wide" and 1.12e-21 for that pair."""
    done, text = _run_vignette("mixed_atari100k", tmp_path)
    ratio = re.search(r"runs resampled: (\d+ to \d+) times as wide", done.stdout).group(1)
    assert f"intervals {ratio} times as wide" in text
    row = next(line for line in done.stdout.splitlines() if line.strip().startswith("DrQ(eps) vs SPR"))
    p_runs = float(row.split()[-1])
    assert f"(p = {p_runs:.2g})" in text, p_runs


def test_calibration_page_names_the_default_band_of_task_profiles():
    """docs/calibration.md's table of "the defaults chosen to hold their level" gave ``performance_profile(kind=
    "tasks")``'s default as ``interval="t"``; since audit s12 it is ``interval="skew_t"`` (the page's own text says so
    further down, and a profile of kind="tasks" records ``options["interval"] == "skew_t"``)."""
    df = rlstats.datasets.simulate(agents=2, tasks=6, seeds=5, rng=0)
    res = rlstats.performance_profile(df, "score ~ agent | task/seed", kind="tasks", normalize="minmax", rng=0)
    page = (ROOT / "docs" / "calibration.md").read_text(encoding="utf-8")
    row = next(line for line in page.splitlines() if line.startswith('| `performance_profile(kind="tasks")`'))
    default_cell = row.split("|")[2]
    assert default_cell.strip().startswith(f'`interval="{res.options["interval"]}"`'), default_cell


@pytest.mark.slow  # 25 s: the vignette at its default size
def test_percentiles_vignette_says_what_normalising_changes(tmp_path):
    """vignettes/percentiles_atari.py, "Invariance to the score scale": "On the published scores they move a
    little: ... normalising rounds some of those pairs to exactly equal numbers, which then count as ties", and
    "Rounding the scores ... makes those ties explicit, and then the invariance is exact". Run today it prints
    "largest change of any estimate or PBP-t bound: 0" before rounding too: since issue 39 scores of a game within
    1e-12 of each other rank as ties, raw or normalised, so nothing moves."""
    done, text = _run_vignette("percentiles_atari", tmp_path)
    assert "largest change of any estimate or PBP-t bound: 0\n" in done.stdout
    assert "they move a little" not in text
    assert "then the invariance is exact" not in text


def _run_vignette(name, tmp_path):
    """Run a vignette at its default size from an empty folder; its output and its text as one line of words."""
    import os
    import subprocess
    import sys

    mirror = os.environ.get("RLSTATS_DATA_MIRROR") or str(ROOT.parent / "shared" / "data" / "raw")
    if not Path(mirror).is_dir():
        pytest.skip("the published Atari 100k runs are not here: set RLSTATS_DATA_MIRROR")
    env = dict(os.environ, RLSTATS_DATA_MIRROR=mirror, MPLBACKEND="Agg", OPENBLAS_NUM_THREADS="1",
               PYTHONPATH=str(ROOT))
    env.pop("RLSTATS_VIGNETTE_FAST", None)
    env.pop("RLSTATS_VIGNETTE_FULL", None)
    path = ROOT / "vignettes" / f"{name}.py"
    done = subprocess.run([sys.executable, str(path)], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return done, " ".join(path.read_text(encoding="utf-8").replace("#", " ").split())


def test_blocked_rank_vignette_quotes_the_gap_of_all_runs(atari):
    """vignettes/blocked_rank_atari.py: "on all 100 runs their mean ranks differ by about 0.44, which is about 113 on
    the c = 10 sum scale, right at the critical difference". Its own full_six (all 100 runs of the six agents)
    gives SPR 2.356 and DrQ(eps) 2.829: a gap of 0.47, 123 on the sum scale (x 26 games x 10 runs), above the
    critical difference 113.5."""
    six = atari[atari["agent"].isin(["CURL", "DER", "DrQ", "DrQ(eps)", "OTRainbow", "SPR"])]
    res = rlstats.compare(six, "score ~ agent | task/seed")
    ranks = dict(zip(res.agents, res.mean_ranks))
    gap = abs(ranks["SPR"] - ranks["DrQ(eps)"])
    text = " ".join((ROOT / "vignettes" / "blocked_rank_atari.py").read_text(encoding="utf-8").replace("#", " ")
                    .split())
    assert f"differ by about {gap:.2f}, which is about {gap * 26 * 10:.0f} on the c = 10 sum scale" in text


@pytest.mark.slow  # 100 s: the vignette at its default size, 200 seeded splits
def test_blocked_rank_vignette_quotes_the_numbers_it_prints(tmp_path):
    """vignettes/blocked_rank_atari.py said "Our c = 3 value, 4.952, rounds to the thesis's 5.0" and that the thesis's
    six-agent values are "at c = 5, 25 and 50 larger than all 200" splits; run today it prints MS = 5.144689 at c = 3
    (5.1 in its table) and "thesis value outside the range of all 200 splits at c = [25, 50]" (at c = 5, 0.99 of
    the splits are at most the thesis's value, not all)."""
    done, text = _run_vignette("blocked_rank_atari", tmp_path)
    ms3 = float(re.search(r"^MS\s+([\d.]+)$", done.stdout, re.M).group(1))
    assert f"c = 3 value, {ms3:.3f}," in text
    outside = re.search(r"outside the range of all 200 splits at c = \[([\d, ]+)\]", done.stdout).group(1).split(", ")
    assert f"at c = {' and '.join(outside)} larger than all 200 of them" in text


def test_readme_figure_text_counts_the_iterations_drawn():
    """README's Dopamine figure was described as "over 200 training iterations"; the data (README: "60 games x 6
    agents x 5 runs x 199 iterations", ``load("dopamine_atari")``: 358,200 rows, steps 0 to 198) and the curves the
    figure draws have 199."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "5 runs x 199 iterations" in readme
    alt = re.search(r"!\[([^\]]*Dopamine[^\]]*)\]", readme).group(1)
    assert "199 training iterations" in alt, alt


def test_adastop_vignette_describes_the_decisions_it_prints(mirror):
    """vignettes/adastop_mujoco.py prints ``adastop(runs, ..., rng=0, permutations="joint")`` (the joint scheme since
    audit s29b made holm the default) on the paper's MuJoCo runs and says "SAC beats
    DDPG and TRPO in all five environments", "Nine comparisons stay undecided" and that on HalfCheetah the default
    "calls TRPO equal to DDPG and PPO after 30 runs". The printed result has undecided = 9 (Ant 3, Humanoid 2, Walker
    4, their runs exhausted): with rng=0, DDPG against SAC on HalfCheetah crosses its first boundary (6088.3 against
    6081.6, Monte Carlo SE 51) and HalfCheetah's test goes on.  It was 13 until audit s33 keyed each task's stream by
    its name: that comparison then sat on its first boundary (6086.1) and continued, SAC had no second batch, and
    HalfCheetah's test stopped at interim 1 with four comparisons undecided."""
    runs = rlstats.datasets.load("mujoco_adastop")
    res = rlstats.adastop(runs, "score ~ agent | task", n=5, K=6, batch="batch", n_resamples=10_000, rng=0,
                          progress=False, permutations="joint")
    d = res.decisions.set_index(["task", "agent_1", "agent_2"])["decision"]
    text = " ".join((ROOT / "vignettes" / "adastop_mujoco.py").read_text(encoding="utf-8").replace("#", " ").split())
    undecided = int((d == "continue").sum())
    assert undecided == 9
    # The page is built at a faster size than this (9 undecided there): since audit s25 (polish25) its prose names
    # no count and the counts are printed from result.decisions, whatever the size.
    assert not re.search(r"\b(Nine|Thirteen|\d+) comparisons stay undecided", text)
    assert 'comparisons stay undecided: "' in text and 'decisions["decision"] == "continue"' in text
    if d[("halfcheetah", "DDPG", "SAC")] == "continue":
        assert "SAC beats DDPG and TRPO in all five environments" not in text
    if d[("halfcheetah", "DDPG", "TRPO")] != "equal":
        assert "on HalfCheetah it calls TRPO equal to DDPG and PPO after 30 runs" not in text


def test_build_takes_the_tables_every_other_public_function_takes():
    """README: "polars DataFrames and pyarrow Tables go wherever a pandas frame does"; ``design.subset_rows`` says
    "so every public function taking a frame takes these". ``rlstats.build(polars_frame, formula)`` raised
    DesignError("data must be a pandas DataFrame in long format (one row per run), got DataFrame"), naming a
    polars DataFrame as if it were not one; a dict was told "must be a pandas DataFrame" though polars and pyarrow
    tables are taken too."""
    import polars as pl
    import pyarrow as pa

    df = rlstats.datasets.simulate(agents=3, tasks=4, seeds=3, rng=0)
    ref = rlstats.build(df, "score ~ agent | task/seed")
    for table in (pl.from_pandas(df), pa.Table.from_pandas(df, preserve_index=False)):
        design = rlstats.build(table, "score ~ agent | task/seed")
        assert design.agents == ref.agents and design.tasks == ref.tasks and design.nobs == ref.nobs
        assert (design.y == ref.y).all()
        assert any("data converted from a" in note for note in design.notes)
    with pytest.raises(rlstats.DesignError, match=r"a pandas or polars DataFrame or a pyarrow Table.*got dict"):
        rlstats.build(df.to_dict("list"), "score ~ agent | task/seed")


def test_landing_example_says_what_its_print_shows():
    """docs/index.md's ten lines comment ``print(res)`` as "the test, the mean ranks and which pairs differ"; the
    print says "post hoc (tukey, ...): 2 of 6 pairs differ" and names none (the diagram drawn next shows which)."""
    df = rlstats.datasets.simulate(agents=4, tasks=10, seeds=5, effect=1.0, rng=0)
    res = rlstats.compare(df, "score ~ agent | task")
    differ = res.tidy().query("significant")
    printed = str(res)
    names_pairs = all(f"{a} - {b}" in printed or f"{a} vs {b}" in printed
                      for a, b in zip(differ["agent_1"], differ["agent_2"]))
    page = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    comment = next(line for line in page.splitlines() if line.startswith("print(res)"))
    assert names_pairs or "which pairs differ" not in comment, comment


def test_latex_text_writes_a_bar_that_prints_as_a_bar():
    """AdaStop's LaTeX caption "Statistic |mean difference| and boundaries per interim" and names such as "Pong|v4"
    kept a bare ``|``, which pdflatex's default font encoding (OT1) sets as an em dash: "Statistic —mean
    difference—" (the width table of format.py measured it at 9.7 pt, an em dash's width). ``<`` and ``>`` were
    already written as math for the same reason; ``|`` is now ``\\textbar{}``."""
    assert fmt.latex_escape("Pong|v4") == r"Pong\textbar{}v4"
    df = rlstats.datasets.simulate(agents=2, tasks=1, seeds=10, effect=1.0, rng=0)
    tex = rlstats.adastop(df, "score ~ agent", n=5, K=2, n_resamples=200, rng=0, progress=False).to_latex()
    body = [line for line in tex.splitlines() if not line.startswith("%") and "\\begin{tabular}" not in line]
    assert not [line for line in body if "|" in line]


def test_equivalence_table_for_a_paper_keeps_the_per_task_caveat():
    """``equivalence(...).to_latex()`` set one row per task ("equivalent within ±5") under the caption "Tests against
    the margin ±5 (the units of 'score'). margin = 5 ..., alpha = 0.05, pairs = 6."; the print's caveat on those rows,
    "separate tests each at alpha = 0.05, not adjusted for multiplicity (on every task: holds at alpha; on some task:
    needs an adjustment)", was in neither the caption nor the notes, so a paper's table read as if the per-task
    claims held jointly."""
    df = rlstats.datasets.simulate(agents=3, tasks=4, seeds=5, effect=0.2, rng=0)
    res = rlstats.equivalence(df, "score ~ agent | task/seed", margin=5.0, aggregate=None)
    assert "not adjusted for multiplicity" in str(res)
    caption = re.search(r"\\caption\{(.*?)\}\n", res.to_latex()).group(1)
    assert "not adjusted for multiplicity" in caption, caption


def test_bootstrap_docstring_quotes_the_measured_coverage_of_percentile_and_bca():
    """``rlstats.bootstrap``'s docstring said "Percentile and BCa intervals covered 0.6-0.9 at 3-5 runs per task in
    simulation"; the calibration table's rows at 3 and 5 runs read 0.71-0.96 on 5 and 26 tasks (percentile 0.712,
    BCa 0.719 at the lowest; 0.962 at the highest) and down to 0.56 on one task."""
    table = rlstats.calibration_table("bootstrap.interval")
    rows = table[table["interval"].isin(["percentile", "bca"]) & (table["metric"] != "probability_of_improvement")
                 & table["runs"].isin([3, 5])]
    several = rows[rows["tasks"].isin([5, 26])]
    doc = " ".join(inspect.getdoc(rlstats.bootstrap).split())
    assert f"covered {several['coverage'].min():.2f}-{several['coverage'].max():.2f} at 3-5 runs per task" in doc
    assert f"({rows['coverage'].min():.2f} and more on one task)" in doc
