"""Audit s20, helper left20: small leftovers of session 19 (note_s19.md, "Small:"), each reproduced first.

Plurals in one home (format.plural, format.count's default); the equivalence table's p_beyond column headed and
formatted as the other p-values; the lists of names of the rank test's one-task refusal and bayes' Monte Carlo note
written by format.names_shown over every name of the message; the selection check's null figure and the calibration
figure at a paper column's width (3.5 in) with nothing cut at the figure's edge or drawn over another text; the docs'
gallery saying what it needs instead of importing a module it does not use.
"""

import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import rlstats
from rlstats import format as fmt
from conftest import script_module

ROOT = Path(__file__).resolve().parent.parent


# ---- 1. one home for English plurals ---------------------------------------------------------------------------------
def test_count_pluralises_by_the_one_rule():
    """format.count's default plural was word + "s" ("2 batchs") while design._average_nested kept its own rule
    ("batch" -> "batches"); the rule is format.plural, count's default."""
    assert fmt.count(2, "batch") == "2 batches" and fmt.count(2, "match") == "2 matches"
    assert fmt.count(1, "batch") == "1 batch" and fmt.count(1, "run") == "1 run" and fmt.count(0, "run") == "0 runs"
    assert fmt.count(3, "box") == "3 boxes" and fmt.count(2, "crash") == "2 crashes"
    assert fmt.count(2, "entry") == "2 entries" and fmt.count(2, "day") == "2 days"
    assert fmt.count(2, "other axis", "other axes") == "2 other axes"  # an irregular plural is still given
    assert [fmt.plural(w) for w in ("run", "task", "seed", "batch", "crash", "episode", "trajectory")] == [
        "runs", "tasks", "seeds", "batches", "crashes", "episodes", "trajectories"]


@pytest.mark.parametrize("outer, said", [("batch", "2 batches"), ("match", "2 matches"), ("run", "2 runs")])
def test_nested_note_names_the_run_column_in_plural(outer, said):
    """'| task/batch/seed' averages the seeds within each batch: its note counts the batches in plural English
    through the same rule (2 per agent and task here, 3 seeds each)."""
    rows = [(a, t, b, s, float(i)) for i, (a, t, b, s) in enumerate(
        (a, t, b, s) for a in ("A", "B") for t in ("x", "y") for b in range(2) for s in range(3))]
    df = pd.DataFrame(rows, columns=["agent", "task", outer, "seed", "score"])
    from rlstats.design import design_of

    design = design_of(df, f"score ~ agent | task/{outer}/seed")
    note = next(n for n in design.notes if "averaged within each" in str(n))
    assert f"{said} of 3 seeds per agent and task" in str(note)


# ---- 2. the equivalence table's p_beyond ----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def beyond():
    df = rlstats.datasets.simulate(agents=2, tasks=6, seeds=10, effect=[0, -3], heterogeneity=0,
                                   distribution="normal", rng=1)
    return rlstats.equivalence(df, "score ~ agent | task", margin=0.5, rng=0, n_resamples=999, progress=False)


def test_equivalence_p_beyond_is_headed_and_formatted_as_a_p_value(beyond):
    """Every verdict here is past the margin (agent_1 - agent_2 = +3, margin 0.5). to_latex() headed the column
    "p\\_beyond" (the raw name) beside "p-value", its caption named p\\_beyond and p\\_value, which the table does not
    show, and the across-tasks p_beyond printed 1.183e-31 where every other table p-value reads "< 1e-16"."""
    res = beyond
    (table,) = res.summary().tables.values()
    across = table.query("scope == 'across tasks'").iloc[0]
    assert across["p_beyond"] < 1e-16  # Welch t of 3.46 against 0.5 on 6 x 10 runs: 1.2e-31
    latex = " ".join(res.summary().to_latex().split())
    assert "p\\_beyond" not in latex and "p\\_value" not in latex
    header = next(line for line in res.summary().to_latex().splitlines() if line.startswith("scope &"))
    assert header.strip() == r"scope & task & estimate & lower & upper & p (beyond) \\"
    assert "p (beyond) is that test's p-value (p-value, the test of the alternative, is near 1 there)" in latex
    assert "across tasks & & 3.4639 & 3.19 & 3.7378 & $<$ 1e$-$16" in latex  # the exponent's minus (audit s24)
    # (the aggregate's bootstrap-t interval [3.329, 3.8672] before audit s33 bootstream33 keyed each cell's
    # resamples by its task's name)
    assert r"aggregate & & 3.5975 & 3.3149 & 3.8588 & 0.001 \\" in latex
    # Markdown and the print show tidy names, as for every column: p_beyond there, keyed by its tidy name
    markdown = res.summary().to_markdown()
    assert "| p_value | p_beyond | conclusion |" in markdown
    assert "p_beyond is that test's p-value (p_value, the test of the alternative, is near 1 there)" in markdown
    assert "| 1 | \\< 1e-16 | shown above 0.5" in markdown  # "<" escaped, as every Markdown cell
    text = str(res.summary())
    assert "p_beyond is that test's p-value (p_value, the test of the alternative, is near 1 there)" in text
    assert "1.183e-31" not in text + markdown + latex


def test_equivalence_p_beyond_has_a_vocabulary_entry(beyond):
    from rlstats import vocabulary

    assert vocabulary.label("p_beyond") == "p (beyond)"
    assert "p_beyond" not in beyond.tidy().columns  # tidy()'s columns unchanged


# ---- 3. the rank test's tasks kept out ------------------------------------------------------------------------------
def test_rank_test_one_task_refusal_writes_every_task_name_alike():
    """Once 8 tasks that one agent ran are kept out, one task is left, 'Seaquest, v5': the message listed the kept-out
    tasks bare ("Game0, Game1, ...") beside the quoted 'Seaquest, v5', so a reader could not tell names from commas;
    names_shown(gone) decided the quotes on the kept-out names alone, where the other callers pass among=."""
    rows = [(a, "Seaquest, v5", float(i)) for i, a in enumerate("ABC")] + [("A", f"Game{i}", 1.0) for i in range(8)]
    df = pd.DataFrame(rows, columns=["agent", "task", "score"])
    with pytest.raises(rlstats.DesignError) as info:
        rlstats.skillings_mack(df, "score ~ agent | task")
    text = str(info.value)
    assert ("once the 8 tasks that fewer than two agents ran are kept out ('Game0', 'Game1', 'Game2', 'Game3', "
            "'Game4' and 3 more), the data hold 1 task ('Seaquest, v5')") in text
    plain = df.replace({"Seaquest, v5": "Seaquest"})  # no comma anywhere: bare, as before
    with pytest.raises(rlstats.DesignError, match=r"kept out \(Game0, Game1, Game2, Game3, Game4 and 3 more\)"):
        rlstats.skillings_mack(plain, "score ~ agent | task")


# ---- 4. bayes' Monte Carlo note ------------------------------------------------------------------------------------
def test_bayes_monte_carlo_note_names_the_pair_as_lists_do():
    """With an agent named 'R&D, Inc' among three, the note said "(SPR vs PPO, P(better))" bare while every other
    list of that result quotes each name; now through format.names_shown over the design's agents."""
    df = rlstats.datasets.simulate(agents=["R&D, Inc", "SPR", "PPO"], tasks=5, seeds=3, effect=[0, 0.2, 0.5],
                                   rng=0, distribution="normal", heterogeneity=0)
    res = rlstats.bayes(df, "score ~ agent | task", rope=0.1, n_samples=2_000, rng=0, progress=False)
    (note,) = [n for n in res.notes if str(n).startswith("Monte Carlo error")]
    found = re.search(r"is at most [\d.]+ \((.*) vs (.*), P\(", str(note))
    assert found is not None, note
    first, second = found.groups()
    assert first[0] == first[-1] == "'" and second[0] == second[-1] == "'", note
    assert {first.strip("'"), second.strip("'")} <= {"R&D, Inc", "SPR", "PPO"}


# ---- 5. the selection check's null figure on a caller's 3.5 x 2.6 in axes ------------------------------------------
def _inside(figure, box, slack=0.5):
    frame = figure.get_window_extent()
    return (box.x0 >= frame.x0 - slack and box.x1 <= frame.x1 + slack and box.y0 >= frame.y0 - slack
            and box.y1 <= frame.y1 + slack)


@pytest.mark.parametrize("inspector, reported", [("fisher_pitman", 4), ("z", 4), ("fisher_pitman", 6)])
def test_selection_null_figure_fits_a_callers_column_axes_with_a_title(inspector, reported, tmp_path):
    """On the caller's 3.5 x 2.6 in axes (tight layout, the caller's title): the permutation inspector's x label,
    388 px at 100 dpi, was wider than the 350 px figure and cut at both edges; the legend set above the axes was
    drawn over the caller's title (both inspectors)."""
    import matplotlib.pyplot as plt

    df = rlstats.datasets.simulate(agents=["old", "new"], tasks=12, seeds=4, effect=[0, 0.4], rng=0)
    tasks = sorted(df["task"].unique())
    options = {"inspector": "z", "sigma": "pooled"} if inspector == "z" else {"n_resamples": 999}
    res = rlstats.selection_check(df, "score ~ agent | task", treatment="new", baseline="old",
                                  reported=tasks[:reported], rng=0, progress=False, normalize=False, **options)
    for layout in ("tight", "constrained"):
        figure, ax = plt.subplots(figsize=(3.5, 2.6), layout="constrained" if layout == "constrained" else None)
        res.plot(kind="null_distribution", ax=ax)
        ax.set_title("Selection check, new vs old")
        if layout == "tight":
            figure.tight_layout()
        figure.savefig(tmp_path / f"{inspector}_{layout}.png", dpi=200)
        renderer = figure.canvas.get_renderer()
        label = ax.xaxis.label.get_window_extent(renderer)
        assert _inside(figure, label), (layout, label, ax.get_xlabel())
        title = ax.title.get_window_extent(renderer)
        legend = ax.get_legend().get_window_extent(renderer)
        assert not legend.overlaps(title), (layout, legend, title)
        assert _inside(figure, legend) and _inside(figure, title)
        x = ax.transData.transform((res.statistic, 0))[0]  # the legend clear of the observed line it names
        assert not legend.x0 <= x <= legend.x1, (layout, legend, x)
        plt.close(figure)


# ---- 6. the calibration figure at a column's width ------------------------------------------------------------------
@pytest.mark.parametrize("procedures", [["bootstrap.interval"], ["selection.size", "curves.band"]])
def test_calibration_figure_fits_a_column(procedures):
    """At width=3.5 the key above the panels (6 entries in one row) was 481 px wide on a 350 px figure, the line
    under them 410 px, and the one panel of bootstrap.interval's 8 methods was squeezed so that its legend sat over
    its tick labels."""
    import matplotlib.pyplot as plt

    table = rlstats.calibration_table(procedures)
    figure = rlstats.plotting.calibration_figure(table, width=3.5)
    # laid out as savefig(dpi=200) lays it out, without rendering the pixels (only positions are read: the same
    # extents as after the save, read at the figure's own dpi)
    dpi, figure.dpi = figure.dpi, 200
    figure.draw_without_rendering()
    figure.dpi = dpi
    renderer = figure.canvas.get_renderer()
    assert figure.get_figwidth() == 3.5
    texts = [*figure.legends, figure._supxlabel]
    for panel in figure.axes:
        texts += [panel.get_legend(), panel.title, *panel.get_xticklabels()]
    for text in texts:
        box = text.get_window_extent(renderer)
        assert _inside(figure, box), (text, box)
    for panel in figure.axes:
        legend = panel.get_legend().get_window_extent(renderer)
        ticks = [t.get_window_extent(renderer) for t in panel.get_xticklabels() if t.get_text()]
        assert not any(legend.overlaps(t) for t in ticks), panel.get_title()
        assert panel.get_window_extent(renderer).height > 0.6 * figure.dpi  # a panel, not a sliver
    plt.close(figure)


# ---- 7. docs/_generate.py's gallery and jupytext -------------------------------------------------------------------
def _generate_module():
    return script_module(ROOT / "docs" / "_generate.py", "rlstats_docs_generate_s20")


def test_generate_has_no_unused_import():
    pytest.importorskip("pyflakes")
    found = subprocess.run([sys.executable, "-m", "pyflakes", str(ROOT / "docs" / "_generate.py")],
                           capture_output=True, text=True)
    assert found.stdout == "", found.stdout


def test_gallery_without_jupytext_says_what_it_needs_before_writing(tmp_path, monkeypatch):
    """gallery() imported jupytext only to fail early where it is absent (a ModuleNotFoundError); that check is now
    said: before any folder is made, a SystemExit naming jupytext and the docs extra."""
    generate = _generate_module()
    monkeypatch.setitem(sys.modules, "jupytext", None)  # what an environment without it imports
    with pytest.raises(SystemExit, match=r"jupytext.*rlstats\[docs\]"):
        generate.gallery(tmp_path / "gallery", "skip")
    assert not (tmp_path / "gallery").exists()


def test_rank_test_null_figure_legend_clear_of_the_observed_line(tmp_path):
    """The rank test's permutation null (Friedman, 4 agents x 6 tasks, 999 permutations, observed 9.8) at 3.5 x 2.6 in
    on the caller's axes: its legend ("observed = 9.8", loc="best") was drawn across the dashed line it names, as the
    selection check's was before audit s19; it now takes that figure's placement (plotting.mark_observed)."""
    import matplotlib.pyplot as plt

    df = rlstats.datasets.simulate(agents=4, tasks=6, seeds=1, effect=[0, 0.3, 0.6, 1], rng=0)
    res = rlstats.skillings_mack(df, "score ~ agent | task", pvalue="monte_carlo", rng=0, n_resamples=999,
                                 progress=False)
    assert res.statistic == pytest.approx(9.8)  # scipy.stats.friedmanchisquare on the 6 x 4 table: 9.8
    for layout in ("tight", "constrained"):
        figure, ax = plt.subplots(figsize=(3.5, 2.6), layout="constrained" if layout == "constrained" else None)
        res.plot(ax=ax, kind="null_distribution")
        ax.set_title("Friedman test, caller's title")
        if layout == "tight":
            figure.tight_layout()
        figure.savefig(tmp_path / f"{layout}.png", dpi=200)
        renderer = figure.canvas.get_renderer()
        legend = ax.get_legend().get_window_extent(renderer)
        x = ax.transData.transform((res.statistic, 0))[0]
        assert not legend.x0 <= x <= legend.x1, (layout, legend, x)
        assert not legend.overlaps(ax.title.get_window_extent(renderer))
        assert _inside(figure, legend) and _inside(figure, ax.xaxis.label.get_window_extent(renderer))
        plt.close(figure)
