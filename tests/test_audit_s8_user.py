"""Audit s8, the user's path: a new user on a fresh virtual environment following the README, the docs and the
vignettes, the command line, R's habits (print, summary, to_latex pasted into a paper) and the figures saved at a
paper's size from the real data. Each test is a minimal reproducer of one defect found: what the user sees, and
why it is not true of the rows analysed (or not readable where the package says it is)."""

from __future__ import annotations

import re
from pathlib import Path

import matplotlib
import matplotlib.text
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

import rlstats
from conftest import drawn_outside
from conftest import SHARED_DATA, script_module

matplotlib.use("Agg")


def _three_named_agents():
    """3 agents with the names of real ones (OTRainbow, DrQ(eps), SPR) on 4 tasks, 5 seeds each."""
    df = rlstats.datasets.simulate(agents=3, tasks=4, seeds=5, effect=1.0, rng=0)
    df["agent"] = df["agent"].map({"agent_1": "OTRainbow", "agent_2": "DrQ(eps)", "agent_3": "SPR"})
    return df


@pytest.mark.parametrize("method, kind, options", [
    ("probability_of_improvement", None, {}),
    ("skillings_mack", "mean_ranks", {}),
    ("performance_profile", None, {"normalize": "minmax"}),
    ("task_table", None, {}),
    ("percentiles", "weights", {"n_resamples": 20}),
    ("selection", "null_distribution",
     {"treatment": "SPR", "baseline": "OTRainbow", "reported": ["task_01", "task_02"]}),
])
def test_a_new_figure_keeps_its_labels_inside_when_saved_at_its_own_size(method, kind, options):
    """`res.plot(); plt.savefig("fig.png")` (no bbox_inches="tight", which only notebooks and the CLI add): on
    the Atari 100k runs the probability-of-improvement figure shows "vs DER" and "rQ(eps)" for "CURL vs DER" and
    "CURL vs DrQ(eps)" and half of "P(X > Y), averaged over tasks"; the mean-rank bars lose "OTRainbow" and the
    "mean rank within task (1 = best)" label, the profile its "threshold tau", the task table its column names.
    The figure's drawing must fit the figure it made."""
    res = rlstats.compare(_three_named_agents(), "score ~ agent | task", method=method, rng=0, **options)
    drawn = res.plot(kind=kind)
    figure = drawn.figure
    try:
        assert max(drawn_outside(figure)) <= 0.02, drawn_outside(figure)
    finally:
        plt.close(figure)


def test_latex_table_keeps_the_notes_of_what_was_done_to_the_data():
    """A user pastes `res.to_latex()` into a paper. The bootstrap dropped task_04 (agent_3 has no runs there,
    na_action="drop"): print(res) and res.to_markdown() say so, the LaTeX says "3 task strata" and nothing of the
    fourth. The same holds for every note (normalisation, runs summarised at an earlier step, clipped ends): the
    table is then not true of the rows the reader thinks were analysed."""
    df = rlstats.datasets.simulate(agents=3, tasks=4, seeds=5, effect=1.0, rng=0)
    df = df[~((df["agent"] == "agent_3") & (df["task"] == "task_04"))]
    res = rlstats.bootstrap(df, "score ~ agent | task/seed", na_action="drop", n_resamples=200, rng=0,
                            normalize=False)
    assert any("task_04" in note for note in res.notes) and "task_04" in res.to_markdown()
    assert r"task\_04" in res.to_latex()
    assert res.to_latex().count("Note: ") == len(res.notes)  # once, under the first table
    # the paper table: README's SB3 case says DQN's final scores come from 20k; here a normalisation is the note
    table = rlstats.task_table(df, "score ~ agent | task/seed", normalize="minmax")
    assert any("normalised" in note for note in table.notes)
    assert "normalised" in table.to_latex() and "normalised" in table.to_markdown()


def test_curve_figure_does_not_claim_bands_it_withheld():
    """3 runs of one task (the README's SB3 logs: CartPole-v1 alone once Acrobot-v1 is dropped): the print says
    "band withheld: too few runs" for every agent, the figure draws no band and its legend title still reads
    "IQM per step, 95% simultaneous bands", so a reader takes the curves for ones with (invisibly) narrow bands."""
    runs = rlstats.datasets.simulate_curves(agents=2, tasks=1, seeds=3, steps=5, rng=0)
    res = rlstats.curves(runs, "score ~ agent | task/seed", step="step", n_resamples=200, rng=0)
    assert np.isnan(res.simultaneous).all()
    ax = res.plot()
    try:
        title = ax.get_legend().get_title().get_text()
        assert "withheld" in title or "bands" not in title, title
    finally:
        plt.close(ax.figure)


VIGNETTES = Path(__file__).resolve().parents[1] / "vignettes"


def _markdown_cells(path):
    """The prose of a jupytext percent-format vignette: its markdown cells' comment lines, joined."""
    cells = re.findall(r"# %% \[markdown\]\n((?:#.*\n?)*)", path.read_text(encoding="utf-8"))
    return " ".join(line.lstrip("# ").strip() for cell in cells for line in cell.splitlines())


def test_sb3_vignette_reads_the_notes_its_curves_print(sb3_evaluations):
    """vignettes/sb3_logs_to_paper.py (the README: it "reads every note this prints") says of the curves of the
    real SB3 logs: "The last two notes matter most: ... the simultaneous band 43% of the time ... With 3 seeds
    the bands show the spread of the runs", and of the figure "titled with the band drawn". What the call prints
    today: "band withheld: too few runs" for A2C, DQN and PPO, the notes "bands of the curves are withheld ... covered
    0.79-0.93 at 95%", and no band in the figure. The prose must say the bands are withheld."""
    curves = rlstats.curves(sb3_evaluations, "score ~ agent | task/seed", step="step", na_action="drop",
                            n_resamples=200, rng=0)
    assert np.isnan(curves.simultaneous).all() and any("withheld" in note for note in curves.notes)
    prose = _markdown_cells(VIGNETTES / "sb3_logs_to_paper.py")
    assert "43%" not in prose and "withheld" in prose


def test_bootstrap_figure_does_not_claim_intervals_it_withheld():
    """One task (a single environment, common in RL papers): the print shows every conf_low and conf_high as NaN
    and its note says the studentised intervals are withheld on a single task. The figure draws a tick per
    estimate and nothing else, under the label "score: 95% studentized intervals": a reader of the paper takes the
    ticks for intervals too narrow to see."""
    df = rlstats.datasets.simulate(agents=3, tasks=1, seeds=5, effect=1.0, rng=0)
    res = rlstats.bootstrap(df, "score ~ agent | task/seed", n_resamples=200, rng=0)
    assert res.tidy()["conf_low"].isna().all()
    drawn = res.plot()
    figure = drawn.figure if hasattr(drawn, "figure") else drawn[0].figure
    try:
        labels = [t.get_text() for t in figure.findobj(matplotlib.text.Text) if "interval" in t.get_text()]
        assert all("withheld" in text for text in labels), labels
    finally:
        plt.close(figure)


@pytest.mark.parametrize("method", ["bootstrap", "performance_profile"])
def test_figure_of_normalised_scores_says_they_are_normalised(method):
    """On Atari 100k with normalize="atari100k_reference" the bootstrap figure's axis reads "score: 95%
    studentized intervals" under IQMs of 0.08 to 0.56 (raw Atari scores run to thousands), and the profile's
    "threshold tau" / "fraction of runs with score > tau": the README's own figure script has to relabel it
    "human-normalised score threshold tau". equivalence and bayes say "(normalised scores)" (Design.units)."""
    df = rlstats.datasets.simulate(agents=3, tasks=4, seeds=5, effect=1.0, rng=0)
    res = rlstats.compare(df, "score ~ agent | task/seed", method=method, normalize="minmax", n_resamples=200, rng=0)
    drawn = res.plot()
    figure = drawn.figure if hasattr(drawn, "figure") else drawn[0].figure
    try:
        labels = [t.get_text() for t in figure.findobj(matplotlib.text.Text) if "score" in t.get_text()]
        assert labels and all("normalised" in text for text in labels), labels
    finally:
        plt.close(figure)


ROOT = Path(__file__).resolve().parents[1]


def test_every_readme_figure_is_written_by_code_in_the_repository():
    """README.md shows vignettes/figures/dopamine_iqm.png, "vignettes/learning_curves_dopamine.py makes it". The
    vignette draws its figure on a Figure it closes and never saves a file; nothing else names the file. The picture
    is an older rendering: its legend sits inside the axes over the DQN, C51 and Quantile (JAX) curves (today's
    curves.plot() puts it above), its title and axis label differ from the vignette's. A README figure must come
    from a script of the repository, as docs/readme_figure.py makes docs/figures/atari100k_profiles.png."""
    images = re.findall(r"!\[[^\]]*\]\(([^)]+\.png)\)", (ROOT / "README.md").read_text(encoding="utf-8"))
    scripts = [p.read_text(encoding="utf-8") for folder in ("docs", "vignettes", "benchmarks")
               for p in (ROOT / folder).rglob("*.py")]
    orphans = [image for image in images if not any(Path(image).name in text for text in scripts)]
    assert images and not orphans, orphans


def _docs_generate():
    return script_module(ROOT / "docs" / "_generate.py", "rlstats_docs_generate_s8")


def test_data_box_of_the_sb3_logs_does_not_send_the_reader_to_the_mirror():
    """A docs site built from a plain clone (no shared/ beside it) shows sb3_logs_to_paper and practical_equivalence
    as code under the box "Data not available here: how to get it". The box quotes the vignette (set
    RLSTATS_SB3_LOGS, or put shared/data/logs/sb3_classic beside the repository), then says "To run it: let
    rlstats.datasets.load download the pinned files once ... or set RLSTATS_DATA_MIRROR": the README says the SB3
    logs are not published files and no mirror holds them, so that way on does not run the page."""
    reason = ("The Stable-Baselines3 logs are not at /x/shared/data/logs/sb3_classic, so there is nothing to read. "
              "Put the shared data beside the repository (shared/data/logs/sb3_classic, 1.3 MB), or set "
              "RLSTATS_SB3_LOGS to a folder of the same layout.")
    box = _docs_generate().data_box(reason).replace("\\", "")
    assert "RLSTATS_SB3_LOGS" in box and "download the pinned files" not in box
    assert "RLSTATS_DATA_MIRROR" not in box.replace("no download or `RLSTATS_DATA_MIRROR` holds them", "")


def test_getting_started_says_what_the_rank_test_does_with_near_ties():
    """The first vignette a user reads says: "Run on the raw scores, the statistic agrees with the normalised one
    to five significant digits, but not to the last bit", because "`rlstats`, like R's `rank()`, compares scores
    exactly (it never rounds), so these are distinct values" (748.9 and 748.8999999999999). The cell below it
    prints 3070.445861308082 twice, and the result's note says 18960 such pairs "were treated as ties in the
    ranks" (statistics.near_ties, 1e-12 of the task's largest |score|). The prose must say what the code does."""
    rng = np.random.default_rng(0)
    rows = [(a, t, s, float(rng.normal(700 + 10 * i, 30))) for i, a in enumerate("ABC") for t in ("Alien", "Pong")
            for s in range(5)]
    df = pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])
    df.loc[0, "score"], df.loc[10, "score"] = 748.9, 748.8999999999999  # A and C, Alien: a published near-tie
    raw = rlstats.compare(df, "score ~ agent | task/seed")
    scaled = rlstats.compare(df.assign(score=(df["score"] - 227.8) / (7127.7 - 227.8)), "score ~ agent | task/seed")
    assert raw.statistic == scaled.statistic and any("ties" in note for note in raw.notes)
    prose = _markdown_cells(VIGNETTES / "getting_started.py")
    assert "not to the last bit" not in prose and "never rounds" not in prose


def test_greek_letters_in_names_are_written_as_latex_math():
    """Atari 100k's agent "DrQ(eps)" is DrQ(ε) in the papers, and a user keeps that name. The README says report()
    is "LaTeX text that compiles where it is pasted"; to_latex() escapes _ % & # and writes ±, †, ×, ≤ as math, but
    passes ε through, and pdflatex (utf8 input, the default) stops: "Unicode character ε (U+03B5) not set up for
    use with LaTeX". Greek letters must come out as math ($\\varepsilon$ or $\\epsilon$)."""
    df = _three_named_agents()
    df["agent"] = df["agent"].astype(str).replace({"DrQ(eps)": "DrQ(ε)", "SPR": "μ-SPR"})
    res = rlstats.compare(df, "score ~ agent | task")
    for text in (res.to_latex(), res.report()):
        assert "ε" not in text and "μ" not in text
        assert r"\varepsilon" in text or r"\epsilon" in text


@pytest.mark.slow  # 3 s: the README's call at its default 10,000 resamples
def test_readme_task_table_is_what_its_call_prints(monkeypatch):
    """README "A real case: the table and the figure of a paper" gives a call and the Markdown table it prints. Run
    today on the published Atari 100k runs, the per-task rows agree but the aggregate row's intervals do not
    (CURL [0.0758, 0.093] printed, [0.0758, 0.0928] shown; DER [0.171, 0.195] vs [0.172, 0.196]; DrQ(eps) [0.41,
    0.474] vs [0.411, 0.475]; SPR [0.515, 0.597] vs [0.517, 0.598]): the bootstrap's interval changed after the
    table was pasted. Each row the README shows must be a row the call prints."""
    import os

    if not (os.environ.get("RLSTATS_DATA_MIRROR") or (SHARED_DATA / "raw").is_dir()):
        pytest.skip("the published Atari 100k runs are not here: set RLSTATS_DATA_MIRROR or put shared/data beside")
    monkeypatch.setenv("RLSTATS_DATA_MIRROR", os.environ.get("RLSTATS_DATA_MIRROR") or str(SHARED_DATA / "raw"))
    runs = rlstats.datasets.load("atari100k")
    five_games = runs[runs["agent"].isin(["CURL", "DER", "DrQ(eps)", "SPR"])
                      & runs["task"].isin(["Alien", "Boxing", "Breakout", "Freeway", "Pong"])]
    t = rlstats.task_table(five_games, "score ~ agent | task/seed", statistic="iqm", aggregate="bootstrap",
                           normalize="atari100k_reference", rng=0)
    printed = set(t.to_markdown().splitlines())
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    shown = re.search(r"\| task \| CURL \| DER \| DrQ\(eps\) \| SPR \|\n(?:\|.*\|\n)+", readme).group(0).splitlines()
    assert [row for row in shown if row not in printed] == []


def test_backend_pages_list_the_keywords_the_function_takes():
    """docs/generated/backends/curves: "options: keyword arguments of rlstats.curves and of rlstats.compare()
    (defaults shown): statistic='iqm', statistic_name='iqm', align='last', bands='studentized', pairs=(), ...".
    rlstats.curves(..., pairs=[...]) is a TypeError ("unexpected keyword argument 'pairs'"), compare() an
    OptionError; the keyword that does it, compare=, is not listed. The page is generated from the options class's
    fields, not from the function a reader calls."""
    import inspect

    generate = _docs_generate()
    from rlstats.methods import DECLARATIONS

    def options_row(name):
        declared = DECLARATIONS[name]
        page = generate.backend_page(declared.function.split(".")[2])  # rlstats.methods.<folder>._api:...
        section = page.split(f'method="{name}"', 1)[1]
        return next(line for line in section.splitlines() if "keyword arguments of" in line)

    wrong = {}
    for name, declared in DECLARATIONS.items():
        taken = set(inspect.signature(getattr(rlstats, declared.function_name)).parameters)
        listed = set(re.findall(r"``(\w+)(?:=[^`]*)?``", options_row(name).split("(defaults shown):", 1)[1]))
        if listed - taken:
            wrong[name] = sorted(listed - taken)
    assert not wrong, wrong
    assert "``compare=" in options_row("curves")
