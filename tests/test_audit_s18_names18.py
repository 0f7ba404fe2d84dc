"""Audit s18 (names18): agent, task and column names with awkward characters through every output.

Checked and found right (no test here, covered elsewhere or below): every back end's to_latex(), summary().to_latex()
and report() compile with pdflatex (booktabs, two-column article) for agents DrQ(eps), R&D, 50%, a_b, $x$, #1, {x},
x|y, ~a, ^b, x\\y, Å, λ-PPO and a 60-character name, tasks t_1, t#2, t$3$, t{4}, ~, ^, "my task", " lead"; Markdown
tables keep one cell per column with a | in a name; the CLI's --format csv reads back with pandas.read_csv with every
name (commas, quotes, a leading space) intact; names alike but for the spaces at their ends are refused by design.
"""

import io
import re

import numpy as np
import pandas as pd
import pytest
from conftest import caught

import rlstats


def _scores(agents, tasks=("t1", "t2", "t3"), seeds=4):
    rng = np.random.default_rng(0)
    rows = [(a, t, s, float(rng.normal(0.5 * i, 1))) for i, a in enumerate(agents) for t in tasks for s in range(seeds)]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])


def _drawn_texts(figure):
    """Every text of the figure as it is drawn: (shown string, whether matplotlib reads it as mathtext)."""
    from matplotlib.text import Text

    figure.savefig(io.BytesIO(), format="png")  # draws every text: a mathtext parse error raises here
    return [t._preprocess_math(t.get_text()) for t in figure.findobj(Text) if t.get_visible() and t.get_text()]


@pytest.mark.parametrize("method, options", [("bootstrap", {"n_resamples": 100}), ("task_table", {}),
                                             ("performance_profile", {"n_resamples": 100})])
def test_a_dollar_in_a_name_is_drawn_as_written(method, options):
    """Agents named "$^$" and "$x$": every plot read the names as matplotlib mathtext, so savefig raised
    "ParseSyntaxException: Expected {phantom | llap | ...}" for "$^$" (from Python and from `rlstats adastop plot`),
    and "$x$" was drawn as an italic x, another name. A name is drawn as it is written."""
    res = rlstats.compare(_scores(["$^$", "$x$", "cost in $"]), "score ~ agent | task", method=method, rng=1,
                          progress=False, **options)
    drawn = res.plot()
    texts = _drawn_texts(drawn if hasattr(drawn, "savefig") else drawn.figure)
    shown = {text for text, math in texts if not math}
    assert {"$^$", "$x$"} <= shown or any("$^$" in s for s in shown) and any("$x$" in s for s in shown)
    assert not [text for text, math in texts if math and "x" in text]


def test_a_dollar_in_a_name_on_an_axes_of_the_caller_leaves_the_callers_mathtext():
    """The caller's own mathtext on the figure it passes as ax= stays mathtext: only the plot's texts are plain."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    fig.suptitle(r"$\alpha$ sweep")
    res = rlstats.compare(_scores(["$x$", "b"]), "score ~ agent | task", method="task_table", progress=False)
    res.plot(ax=ax)
    texts = dict(_drawn_texts(fig))
    assert texts[r"$\alpha$ sweep"] is True


@pytest.mark.filterwarnings("ignore:with n = 2 runs per batch")  # AdaStop's small design: not this test's business
@pytest.mark.parametrize("method, options", [("permutation", {"n_resamples": 100}), ("adastop", {"n": 2}),
                                             ("task_table", {})])
def test_an_agent_named_like_the_task_column_prints(method, options):
    """An agent named "task" (or a task column's name): print(res), summary(), to_markdown() and to_latex() raised
    pandas' "ValueError: cannot insert task, already exists" (permutation, adastop, task_table): their tables put
    the tasks in a first column headed "task" beside one column per agent."""
    res = rlstats.compare(_scores(["task", "b"]), "score ~ agent | task", method=method, rng=1, progress=False,
                          **options)
    summary = res.summary()  # rendered once for its three outputs
    outputs = [str(res), str(summary), summary.to_markdown(), summary.to_latex(), res.to_latex()]
    if hasattr(res, "to_markdown"):
        outputs.append(res.to_markdown())
    assert all("task" in text and "b" in text for text in outputs)


@pytest.mark.parametrize("name, phrase", [
    ("a\nb", "column 'agent' (agent) has the value 'a\\nb', with a line break in it"),
    ("", "column 'agent' (agent) has the value '', which prints as nothing"),
    ("  ", "column 'agent' (agent) has the value '  ', which prints as nothing"),
    ("a\tb", "column 'agent' (agent) has the value 'a\\tb', with a tab in it"),
])
def test_a_name_no_table_can_show_is_refused_by_its_repr(name, phrase):
    """An agent named "a\\nb": print(res) broke the mean-rank table over two lines ("  a" / "b     x     y") and
    to_markdown() split a row; an agent named "" (or spaces) was analysed and shown as a blank header and an empty
    name in report() ("Best per task: y (2), x (1)" beside a blank column). Such a value is an error quoting it."""
    df = _scores([name, "x", "y"])
    with pytest.raises(rlstats.DesignError, match=re.escape(phrase)):
        rlstats.compare(df, "score ~ agent | task", progress=False)
    with pytest.raises(rlstats.DesignError, match="task"):
        rlstats.compare(_scores(["x", "y"], tasks=("t1", name)), "score ~ agent | task", progress=False)


def test_an_unquoted_column_name_with_a_dot_is_named_with_its_back_quotes():
    """A score column "score.v2" written unquoted: the error was "evaluating the response 'score.v2' failed with
    NameError: name 'score' is not defined", where a hyphen ("score-raw") gets "did you mean `score-raw`?". The way
    on is the name back-quoted, which the formula grammar takes (`score.v2` ~ agent | task runs)."""
    df = _scores(["a", "b"]).rename(columns={"score": "score.v2"})
    with pytest.raises(rlstats.FormulaError, match=re.escape("back-quote it: `score.v2` ~ agent | task")):
        rlstats.compare(df, "score.v2 ~ agent | task", progress=False)
    assert rlstats.compare(df, "`score.v2` ~ agent | task", progress=False).data_name.startswith("score.v2")


def test_the_command_line_names_an_unquoted_dotted_column_with_its_back_quotes(tmp_path, capsys):
    """`rlstats compare runs.csv "score.v2 ~ agent | task"` said "not attribute expressions; pass --allow-python to
    evaluate it as Python", which then fails on the name score: the way on is the column back-quoted, in single
    quotes (a shell runs `...` between double quotes)."""
    from rlstats.cli import main

    path = tmp_path / "runs.csv"
    _scores(["a", "b"]).rename(columns={"score": "score.v2"}).to_csv(path, index=False)
    assert main(["compare", str(path), "score.v2 ~ agent | task"]) == 2
    assert "the data has a column 'score.v2': back-quote it: '`score.v2` ~ agent | task'" in capsys.readouterr().err


LONG = "Rainbow-DQN with prioritised replay and n-step returns (n=20)"  # 61 characters


def _cut_or_collapsed(figure):
    """Texts drawn past the figure's edges, and whether the constrained layout gave up (matplotlib only warns)."""
    _, said = caught(lambda: figure.draw_without_rendering())
    renderer = figure.canvas.get_renderer()
    width, height = figure.bbox.width, figure.bbox.height
    cut = []
    for axes in figure.axes:
        for axis in (axes.xaxis, axes.yaxis):
            shown = [t for t in axis.get_ticklabels() if t.get_visible() and t.get_text()]
            lo, hi = sorted(axes.get_xlim() if axis is axes.xaxis else axes.get_ylim())
            at = 0 if axis is axes.xaxis else 1
            shown = [t for t in shown if lo <= t.get_position()[at] <= hi]
            for text in shown:
                box = text.get_window_extent(renderer)
                if box.x0 < -1 or box.y0 < -1 or box.x1 > width + 1 or box.y1 > height + 1:
                    cut.append(text.get_text())
    return cut, any("axes sizes collapsed" in s for s in said)


@pytest.mark.parametrize("method, options", [("bootstrap", {"n_resamples": 100}), ("task_table", {}),
                                             ("probability_of_improvement", {"n_resamples": 100})])
def test_a_long_name_fits_the_plots_own_figure(method, options):
    """An agent named with 61 characters (a name with its settings, as papers' ablations have them): at the plot's
    own size matplotlib's constrained layout collapsed ("axes sizes collapsed to zero", only a warning) and the tick
    labels ran past the figure's edges, cut in the saved PNG (bootstrap 3.3 x 2.42 in, task_table 3.3 x 1.55 in;
    also the permutation test, AdaStop, equivalence and bayes). The plot's own figure grows to hold its labels."""
    res = rlstats.compare(_scores([LONG, "λ-PPO", "DrQ(ε)"]), "score ~ agent | task", method=method, rng=1,
                          progress=False, **options)
    drawn = res.plot()
    figure = drawn if hasattr(drawn, "savefig") else drawn.figure
    assert _cut_or_collapsed(figure) == ([], False)
    short = rlstats.compare(_scores(["A", "B", "C"]), "score ~ agent | task", method=method, rng=1, progress=False,
                            **options).plot()
    own = (short if hasattr(short, "savefig") else short.figure).get_size_inches()
    assert figure.get_size_inches()[0] >= own[0] and figure.get_size_inches()[1] >= own[1]


def test_the_task_table_of_one_game_holds_atari_agent_names():
    """Atari 100k's own names on one game: the task table's figure (2.6 x 1.05 in for 2 agents) collapsed its layout
    at names as wide as "OTRainbow" and "PlayVirtual", its tick labels cut."""
    res = rlstats.task_table(_scores(["OTRainbow", "PlayVirtual"], tasks=("Pong",)), "score ~ agent | task")
    assert _cut_or_collapsed(res.plot().figure) == ([], False)


def test_adastop_reference_error_quotes_every_agent():
    """adastop(reference='DrQ(eps) ') with agents DrQ(eps), "R&D, Inc" and SPR said "agents: DrQ(eps), R&D, Inc, SPR":
    three agents read as four, and the trailing space of the option invisible beside them. Every other option naming
    an agent (control=, treatment=, pairs=, comparisons=) quotes them and says which one was meant."""
    df = _scores(["DrQ(eps)", "R&D, Inc", "SPR"])
    with pytest.raises(rlstats.OptionError, match=re.escape(
            "reference='DrQ(eps) ' is not an agent in column 'agent' (did you mean 'DrQ(eps)'?); the agents are: "
            "'DrQ(eps)', 'R&D, Inc', 'SPR'")):
        rlstats.adastop(df, "score ~ agent | task", n=2, reference="DrQ(eps) ", progress=False)


def test_the_selection_plot_breaks_an_axis_label_that_names_long_agents():
    """selection_check(treatment=<61 characters>).plot(): the x label "per-task effect (mean_diff: <treatment> vs
    <baseline>)" ran past the right edge of the 6.4 in figure, cut after "n-step r" in the saved PNG; the title
    beside it is broken at words to fit, and so is the label now."""
    import warnings

    res = rlstats.selection_check(_scores([LONG, "λ-PPO"], tasks=("t1", "t2", "t3", "t4")), "score ~ agent | task",
                                  treatment=LONG, baseline="λ-PPO", reported=["t1", "t2"], n_resamples=200, rng=0)
    ax = res.plot()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ax.figure.draw_without_rendering()
    box = ax.xaxis.label.get_window_extent(ax.figure.canvas.get_renderer())
    assert 0 <= box.x0 and box.x1 <= ax.figure.bbox.width
    assert LONG in ax.get_xlabel().replace("\n", " ")


def test_a_log_axis_keeps_its_mathtext_beside_a_dollar_name():
    """Tuning's expected-max curve over budgets on a log axis: its ticks stay matplotlib's "$10^{1}$" mathtext, while
    the legend names the agent "$x$" as written."""
    rng = np.random.default_rng(0)
    rows = [(a, "t1", f"c{c}", s, float(rng.normal())) for a in ("$x$", "b") for c in range(30) for s in range(2)]
    df = pd.DataFrame(rows, columns=["agent", "task", "config", "seed", "score"])
    res = rlstats.tuning(df, "score ~ agent | task/seed", config="config", n_resamples=100, rng=0,
                         views=["expected_max"], progress=False)
    ax = res.plot(kind="expected_max")
    texts = dict(_drawn_texts(ax.figure))
    assert texts[r"$\mathdefault{10^{1}}$"] is True and texts["$x$"] is False
