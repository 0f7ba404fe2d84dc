"""Audit s25 (review25b): review of out25 and meta25 (LaTeX quotes and dashes, the fitted texts' sizes)."""

from __future__ import annotations

import matplotlib
import pytest

from rlstats.format import latex_escape

matplotlib.use("Agg")


# latex_escape took a quote after a closing double quote for an opening one: 'the "IQM"'s bound' gave
# ``IQM''`s (pdflatex: a turned comma before the s), and a single quotation opening a double one's, '"x"' written
# as '"x"', opened in the wrong order: `{}``... was ``{}`x'{}'' (the double quote outside); a string replace could
# not tell ''' (closing single then double) from ''' (closing double, then an apostrophe)
def test_quotes_next_to_quotes():
    assert latex_escape('the "IQM"\'s bound') == "the ``IQM''{}'s bound"
    assert latex_escape("'\"x\"' y") == "`{}``x''{}' y"
    assert latex_escape("say \"'x'\"") == "say ``{}`x'{}''"
    # kept as out25 wrote them: apostrophes, quotes at the end, after a bracket or "=", LaTeX's own quotes, an empty
    # quotation, a % comment's quotes
    cases = {"agents' runs": "agents' runs", "delta'": "delta'", "90's": "90's", "end\"": "end''", "end'": "end'",
             "('Pong')": "(`Pong')", "['a', 'b']": "[`a', `b']", "x='a'": "x=`a'", 'x="a"': "x=``a''",
             '"a \'b\' c"': "``a `b' c''", "``already''": "``already''", "''quoted''": "``quoted''", '""': "``''",
             "''": "`'", "'-1'": "`$-$1'", "% c 'x'": "\\% c `x'", "'": "'", '"': "''"}
    assert {text: latex_escape(text) for text in cases} == cases


# "--seed" in a note (the command line's flags, "--format latex") was written as it stands, which pdflatex sets as an
# en dash: "–seed"; a dash between spaces (" -- ", the selection check's interpretations) is prose and stays one
def test_double_hyphen_of_a_flag():
    assert latex_escape("rerun with --seed 3 --method bootstrap") == "rerun with -{}-seed 3 -{}-method bootstrap"
    assert latex_escape("agent--v2") == "agent-{}-v2"
    assert latex_escape("a---b") == "a-{}-{}-b"
    assert latex_escape("--seed") == "-{}-seed"
    assert latex_escape("significant -- selection bias suspected") == "significant -- selection bias suspected"
    assert latex_escape("-- x") == "-- x"
    assert latex_escape("p = -0.3, 3-10 runs") == "p = $-$0.3, 3-10 runs"  # one hyphen as before


def test_flags_in_a_result_s_latex_notes():
    """A note naming a command line's flags, in to_latex(), keeps its two hyphens; the selection check's prose dash
    stays one."""
    import dataclasses

    import rlstats

    df = rlstats.datasets.simulate(agents=2, tasks=3, seeds=5, rng=0)
    result = rlstats.permutation(df, "score ~ agent | task", n_resamples=99, rng=1)
    result = dataclasses.replace(result, notes=[*result.notes, "rerun with --seed 7 -- or with more runs"])
    latex = result.to_latex()
    assert "rerun with -{}-seed 7 -- or with more runs" in latex
    assert "--seed" not in latex


# _fit_texts set a word no break shortens smaller by at most 40% a step, each step from the size the last one left,
# in 12 steps: a 60-letter title over a 1.65 in panel went from 10 pt to 2.96 pt, not "to no less than 60% of its
# size" (the floor is of the size the text was drawn at)
def _fitted(size, refit_from=None):
    """The two titles' sizes after fit_title on a figure of ``size`` inches (first fitted at ``refit_from``)."""
    import matplotlib.pyplot as plt

    from rlstats import plotting

    fig, axes = plt.subplots(1, 2, figsize=refit_from or size, layout="constrained")
    try:
        axes[0].set_title("A" * 60, fontsize=10)
        axes[1].set_title("CrazyClimberWithALongName", fontsize=10)
        plotting.fit_title(list(axes))
        if refit_from:
            fig.set_size_inches(*size)
            plotting.fit_title(list(axes))
        return [a.title.get_fontsize() for a in axes]
    finally:
        plt.close(fig)


def test_set_smaller_to_no_less_than_sixty_percent():
    narrow = _fitted((3.3, 2.0))
    assert narrow[0] == pytest.approx(6.0, rel=1e-12)  # the floor: 60% of 10 pt
    assert 6.0 < narrow[1] < 7.5  # set smaller as far as it must (6.63 pt with matplotlib 3.9)
    # wider: each fitted again from the size it was drawn at, as on a figure drawn at that size (nothing carried over)
    assert _fitted((8.0, 3.0), refit_from=(3.3, 2.0)) == pytest.approx(_fitted((8.0, 3.0)), rel=1e-9)
    assert _fitted((8.0, 3.0))[1] == 10.0


def _refit_title(title, first, then, change=None):
    """A title fitted at ``first`` inches, then (after ``change(ax)``) at ``then``: its text and size."""
    import matplotlib.pyplot as plt

    from rlstats import plotting

    fig, ax = plt.subplots(figsize=first, layout="constrained")
    try:
        ax.set_title(title, fontsize=10)
        plotting.fit_title(ax)
        if change:
            change(ax)
        fig.set_size_inches(*then)
        plotting.fit_title(ax)
        return ax.title.get_text(), ax.title.get_fontsize()
    finally:
        plt.close(fig)


LONG = "a long title with several words that must break on a narrow panel"


# a title broken at words at a plot's own size (a grid's panel) stayed broken at a wider figsize= (out25 started its
# size from the size drawn at again, not its lines): 4 lines at 9 in, where a title drawn at 9 in is one
def test_refit_starts_from_the_text_as_written():
    assert _refit_title(LONG, (2.0, 2.0), (9.0, 3.0)) == (LONG, 10.0)
    # a title the caller wrote anew after the fit is fitted as written, not restored
    assert _refit_title(LONG, (2.0, 2.0), (9.0, 3.0), lambda ax: ax.set_title("short", fontsize=12)) == ("short", 12.0)
