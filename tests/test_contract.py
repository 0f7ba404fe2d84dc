"""Every registered back end honours the result contract of DESIGN.md."""

import contextlib
import dataclasses
import io
import json

import matplotlib.axes
import matplotlib.figure
import matplotlib.text
import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats import citations
from rlstats.methods import DECLARATIONS, METHODS, Backend, PowerRule
from rlstats.plotting import PAGE_WIDTH
from rlstats.vocabulary import unknown_columns

from conftest import contract_frame, drawable_plots

# How to call each back end on simulated data: its declared contract case (formula, options).
CASES = {name: declared.contract for name, declared in DECLARATIONS.items()}
# Back ends that read learning curves (one row per run and step) rather than one row per run.
CURVE_METHODS = {name for name, declared in DECLARATIONS.items() if declared.reads_curves}
#: A single column's width (inches), at which every plot's text is at least SMALLEST_FONT points (test_figures.py's
#: rule, checked on every plot of every back end in the plot test below).
COLUMN_WIDTH = 3.3
SMALLEST_FONT = 7.0


def simulated(method=None):
    if method in CURVE_METHODS:
        return rlstats.datasets.simulate_curves(agents=3, tasks=4, seeds=3, steps=5, effect=0.5, rng=0)
    return contract_frame(method, rlstats.datasets.simulate(agents=3, tasks=6, seeds=4, effect=1.0, rng=0))


def test_every_back_end_declares_every_part():
    # Everything the registry, compare, power, cite, the demo and these tests read comes from the declarations.
    assert set(METHODS) == set(DECLARATIONS)
    problems = {name: declared.problems(citations.ENTRIES) for name, declared in DECLARATIONS.items()}
    assert problems == {name: [] for name in DECLARATIONS}


def test_a_declaration_with_a_part_missing_fails():
    here = "rlstats.methods.skillings_mack"
    complete = DECLARATIONS["skillings_mack"]
    assert complete.problems(citations.ENTRIES) == []
    broken = Backend(name="new", function=f"{here}._api:no_such_function", result=f"{here}._result:NoSuchResult",
                     citations=("no_such_paper",), contract=("score ~ agent | task",), options=f"{here}._api:Nope",
                     demo=None,
                     power=PowerRule(key=99, label="new", decide=f"{here}._power:nope", sentence=f"{here}.nope:f",
                                     outcomes=f"{here}._api:pvalue_only", per_task=True))
    problems = broken.problems(citations.ENTRIES)
    assert problems == [
        "function 'rlstats.methods.skillings_mack._api:no_such_function' does not import",
        "result 'rlstats.methods.skillings_mack._result:NoSuchResult' does not import",
        "options 'rlstats.methods.skillings_mack._api:Nope' does not import",
        "demo: give it or the reason it is missing (no_demo), not both or neither",
        "citations ('no_such_paper',): each must be a key of rlstats.citations.ENTRIES",
        "contract must be (formula, options)",
        "power: outcomes and decide_outcomes go together",
        "power: a per-task rule needs called= (how a sentence names it)",
        "'rlstats.methods.skillings_mack._power:nope' does not import",
        "'rlstats.methods.skillings_mack.nope:f' does not import",
        "replication: give the outputs that need replication (Need) or the reason none does (no_replication), not "
        "both or neither",
    ]
    no_rule = Backend(name="new", function=complete.function, result=complete.result, citations=complete.citations,
                      contract=complete.contract, options=complete.options, demo=complete.demo,
                      no_replication=complete.no_replication)
    assert no_rule.problems(citations.ENTRIES) == [
        "power: give it or the reason it is missing (no_power), not both or neither"]


def test_every_back_end_has_an_options_class_that_checks_itself():
    # No back end validates its keywords inline: each names a frozen dataclass with checked(); one without
    # options, or with a class that is not one, fails.
    complete = DECLARATIONS["skillings_mack"]
    for declared in DECLARATIONS.values():
        options = rlstats.methods.load(declared.options)
        assert options.__dataclass_params__.frozen and callable(options.checked), declared.name
    parts = dict(name="new", function=complete.function, result=complete.result, citations=complete.citations,
                 contract=complete.contract, demo=complete.demo, power=complete.power,
                 no_replication=complete.no_replication)
    assert Backend(**parts).problems(citations.ENTRIES) == [
        "options: every back end checks its keywords in an options class (give its path)"]
    assert Backend(**parts, options="rlstats.methods.skillings_mack._api:SkillingsMackResult").problems(
        citations.ENTRIES) == ["options 'rlstats.methods.skillings_mack._api:SkillingsMackResult' must be a frozen "
                               "dataclass with a checked() classmethod"]


def test_every_back_end_declares_the_replication_its_outputs_need():
    # issue 39 item 3: each output that rests on replication states its need (or the back end says why none does),
    # and a malformed need is named
    from rlstats.methods._declaration import Need

    for declared in DECLARATIONS.values():
        assert (declared.replication is None) != (declared.no_replication is None), declared.name
    needs = {name: {n.output for n in d.replication} for name, d in DECLARATIONS.items() if d.replication}
    assert needs == {"adastop": {"decisions", "decision"}, "permutation": {"decisions", "decision"},
                     "bootstrap": {"intervals"},
                     "probability_of_improvement": {"intervals"}, "performance_profile": {"intervals"},
                     "percentiles": {"intervals", "agent_intervals"}, "selection": {"effects"},
                     "task_table": {"possibly_best", "std_dev", "comparisons", "aggregate"},
                     "curves": {"bands", "step_bands"},
                     "tuning": {"tuned_interval", "best_set", "expected_max", "complete"},
                     "equivalence": {"task_tests"},  # issue 41 item 2
                     "bayes": {"posterior"}}  # issue 41 item 1
    assert {n for n, d in DECLARATIONS.items() if d.no_replication} == {"skillings_mack", "mixed"}
    complete = DECLARATIONS["task_table"]
    parts = dict(name="new", function=complete.function, result=complete.result, citations=complete.citations,
                 contract=complete.contract, demo=complete.demo, no_power=complete.no_power, options=complete.options)
    bad = Need("marks", "", runs=0, per="row", below="ignore", way_on="")
    assert Backend(**parts, replication=(bad,)).problems(citations.ENTRIES) == [
        "replication 'marks': per= must be one of ('cell', 'pair', 'agent', 'design') and below= one of "
        "('withhold', 'refuse')",
        "replication 'marks': runs and tasks must be whole numbers of at least 1",
        "replication 'marks': say what it is (what=) and the way on (way_on=)"]
    both = Backend(**parts, replication=complete.replication, no_replication="none")
    assert both.problems(citations.ENTRIES) == [
        "replication: give the outputs that need replication (Need) or the reason none does (no_replication), not "
        "both or neither"]


def test_every_tidy_column_is_declared_once():
    # A column only one folder reports lives in its _backend.py (VOCABULARY); the shared ones in rlstats.vocabulary.
    from rlstats import vocabulary

    columns = [row[0] for row in (*vocabulary._TERMS, *rlstats.methods.VOCABULARY)]
    assert sorted({c for c in columns if columns.count(c) > 1}) == []
    assert all(len(row) == 4 or (len(row) == 5 and row[4] is True) for row in rlstats.methods.VOCABULARY)
    assert set(vocabulary.VOCABULARY) == set(columns)


def test_compare_reaches_every_declared_back_end_and_its_result():
    for name, declared in sorted(DECLARATIONS.items()):
        formula, options = declared.contract
        res = rlstats.compare(simulated(name), formula, method=name, rng=1, **options)
        assert f"{type(res).__module__}:{type(res).__name__}" == declared.result, name
        assert rlstats.cite(res).startswith("@"), name


@pytest.fixture(scope="module", params=sorted(METHODS))
def contract_result(request):
    """Each back end's result on its contract case, computed once for the tests that read it (a result is frozen)."""
    formula, options = CASES[request.param]
    df = simulated(request.param)
    before = df.copy(deep=True)
    with contextlib.redirect_stdout(io.StringIO()) as out, contextlib.redirect_stderr(io.StringIO()) as err:
        res = rlstats.compare(df, formula, method=request.param, rng=1, **options)
    pd.testing.assert_frame_equal(df, before)  # the caller's frame is unchanged
    assert out.getvalue() == "" and err.getvalue() == ""  # nothing printed while computing
    return res


@pytest.fixture
def result_and_input(contract_result, capsys):
    return contract_result, capsys


def test_result_is_frozen(result_and_input):
    res, _ = result_and_input
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.method = "changed"


def test_print_follows_the_htest_layout(result_and_input):
    res, _ = result_and_input
    lines = str(res).splitlines()
    assert lines[0] == "" and lines[1] == "\t" + res.method and lines[3].startswith("data:  ")
    assert repr(res) == str(res)


def test_tidy_and_glance_use_the_vocabulary(result_and_input):
    res, _ = result_and_input
    tidy, glance = res.tidy(), res.glance()
    assert isinstance(tidy, pd.DataFrame) and isinstance(glance, pd.DataFrame)
    assert len(glance) == 1
    assert unknown_columns(tidy.columns) == [] and unknown_columns(glance.columns) == []


def test_summary_renders_everywhere(result_and_input):
    res, _ = result_and_input
    summary = res.summary()
    assert res.method in str(summary)
    assert r"\toprule" in summary.to_latex() and "| ---" in summary.to_markdown().replace(":---", "---")
    assert "<table>" in summary._repr_html_() or "<pre>" in summary._repr_html_()
    assert all(isinstance(t, pd.DataFrame) for t in summary.tables.values())


def test_report_is_a_paragraph(result_and_input):
    res, _ = result_and_input
    text = res.report()
    assert isinstance(text, str) and len(text) > 100


def test_to_dict_round_trips_through_json(result_and_input):
    res, _ = result_and_input
    data = res.to_dict()
    assert json.loads(json.dumps(data)) == data
    assert data["versions"]["rlstats"] == rlstats.__version__ and "options" in data and "seed" in data


SMALLEST_PANEL = (0.9, 0.6)  # inches: width and height an Axes needs to show its data at a column's width


def panel_sizes(figure):
    """(width, height) in inches of every visible Axes once the figure is laid out (drawn as savefig draws it, on its
    renderer, without the pixels: a third of a draw's time; speed39)."""
    figure.draw_without_rendering()
    width, height = figure.get_size_inches()
    return [(a.get_position().width * width, a.get_position().height * height)
            for a in figure.axes if a.get_visible()]


def check_panels(figure):
    """Problems of a multi-panel figure at a column's width (a page's, for a figure made page-wide: the Bayesian
    comparisons' panels of 4-12 pairs): small panels, small text, text cut off."""
    width, height = figure.get_size_inches()
    target = PAGE_WIDTH if width > COLUMN_WIDTH + 0.01 else COLUMN_WIDTH
    figure.set_size_inches(target, height * target / width)
    sizes = panel_sizes(figure)
    problems = [f"a panel {w:.2f} x {h:.2f} in" for w, h in sizes
                if w < SMALLEST_PANEL[0] or h < SMALLEST_PANEL[1]]
    texts = [t for t in figure.findobj(matplotlib.text.Text) if t.get_visible() and t.get_text().strip()]
    problems += [f"{t.get_text()!r} at {t.get_fontsize()} pt" for t in texts if t.get_fontsize() < SMALLEST_FONT]
    box = figure.get_tightbbox(figure.canvas.get_renderer())  # what is drawn, ticks out of view excluded
    if box.x0 < -0.02 or box.x1 > target + 0.02:
        problems.append(f"the drawing spans {box.x0:.2f} to {box.x1:.2f} in")
    return problems


def test_plot_is_one_axes_or_the_figure_of_several_panels_and_nothing_is_printed(result_and_input):
    # Result.plot's rule: the Axes for a one-panel plot, the Figure when it has several panels; and every plot's
    # figure is one pyplot manages, which Jupyter's inline backend shows at the end of a cell (this check was
    # test_html_repr.py's, which drew every plot of every back end a second time for it).
    import matplotlib.pyplot as plt

    res, capsys = result_and_input
    panels = None
    for kind, drawn in drawable_plots(res):
        if kind == next(iter(type(res)._plot_kinds)):  # plot()'s default: the Axes it takes when given them, below
            panels = len(drawn.axes) if isinstance(drawn, matplotlib.figure.Figure) else 0
        figure = getattr(drawn, "figure", drawn)
        assert plt.fignum_exists(figure.number), kind
        texts = [t for t in figure.findobj(matplotlib.text.Text) if t.get_visible() and t.get_text().strip()]
        assert texts, kind
        if isinstance(drawn, matplotlib.figure.Figure):
            assert len([a for a in drawn.axes if a.get_visible()]) > 1, kind
            # test_figures.py's check of a multi-panel figure (it drew them once more for it): drawn at a column's
            # width (a page's if made page-wide), no panel too small, no text below SMALLEST_FONT, nothing cut off
            assert check_panels(drawn) == [], kind
        else:
            assert isinstance(drawn, matplotlib.axes.Axes), kind
            # at a single column's width no text is below SMALLEST_FONT, and the figure renders
            width, height = figure.get_size_inches()
            figure.set_size_inches(COLUMN_WIDTH, height * COLUMN_WIDTH / width)
            small = [(t.get_text(), t.get_fontsize()) for t in texts if t.get_fontsize() < SMALLEST_FONT]
            assert small == [], (kind, small)
            figure.savefig(io.BytesIO(), format="png", dpi=150)
        plt.close(figure)
    # the default plot draws on the caller's Axes: one Axes, or one per panel for a multi-panel figure, whose figure
    # it returns (was test_plot_draws_on_the_given_axes, which drew the default plot once more to count its panels)
    assert panels is not None, "the default plot kind cannot be drawn"
    if panels:
        fig, axes = plt.subplots(1, panels)
        assert res.plot(ax=list(np.atleast_1d(axes))) is fig
    else:
        fig, ax = plt.subplots()
        assert res.plot(ax=ax) is ax
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == ""


def test_warnings_point_at_the_callers_line():
    # Warnings are attributed to user code whether a back end is called directly or through compare().
    df = simulated()
    with pytest.warns(rlstats.RlstatsWarning) as direct:
        rlstats.percentiles(df, "score ~ agent | task", interval="bootstrap", n_resamples=50, rng=0)
    with pytest.warns(rlstats.RlstatsWarning) as through_compare:
        rlstats.compare(df, "score ~ agent | task", method="percentiles", interval="bootstrap", n_resamples=50,
                        rng=0)
    assert direct[0].filename == through_compare[0].filename == __file__


@pytest.mark.parametrize("method", sorted(METHODS))
def test_unknown_option_names_the_method_and_its_options(method):
    formula, options = CASES[method]
    with pytest.raises(rlstats.OptionError, match=rf"method='{method}' has no option 'colour'; its options are: "):
        rlstats.compare(simulated(method), formula, method=method, colour="red", **options)


@pytest.mark.parametrize("method", sorted(METHODS))
def test_confidence_interval_follows_one_convention(method):
    # ConfidenceInterval(low, high) for one quantity, a DataFrame with conf_low/conf_high for several.
    formula, options = CASES[method]
    res = rlstats.compare(simulated(method), formula, method=method, rng=1, **options)
    if not hasattr(res, "confidence_interval"):
        return
    try:
        ci = res.confidence_interval()
    except rlstats.OptionError:
        return  # no interval was computed with these options, and the result says so
    if isinstance(ci, pd.DataFrame):
        assert {"conf_low", "conf_high"} <= set(ci.columns)
    else:
        assert isinstance(ci, rlstats.results.ConfidenceInterval) and ci._fields == ("low", "high")


def test_tests_expose_statistic_and_pvalue():
    df = simulated()
    for method in ("skillings_mack", "permutation", "selection"):
        formula, options = CASES[method]
        res = rlstats.compare(df, formula, method=method, rng=1, **options)
        assert hasattr(res, "statistic") and hasattr(res, "pvalue"), method
