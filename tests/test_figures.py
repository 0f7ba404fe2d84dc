"""Figures at a column's width: panels of multi-panel figures readable, the palette, the panels' layout, the profiles'
thresholds. That every plot of every back end renders at a single column's width (3.3 in) with no text below 7 pt
is checked in test_contract.py's plot test, which draws them all once."""

import matplotlib
import matplotlib.figure
import matplotlib.pyplot as plt
import matplotlib.text
import numpy as np
import pytest

import rlstats
from rlstats.methods import METHODS
from rlstats.plotting import palette
from conftest import drawable_plots
from test_contract import CASES, COLUMN_WIDTH, CURVE_METHODS, check_panels as _check_panels, simulated


def test_palette_does_not_repeat_below_twelve_agents():
    assert len(set(palette(12))) == 12
    assert palette(13)[12] == palette(13)[0]


#: The methods whose standard figures have several panels on the contract data. The default run checks every
#: method's multi-panel figures on the contract data in test_contract.py's plot test, which draws them already (the
#: case "contract-data-multi-panel" drew these three again: 2.9 s CPU); -m slow repeats it here, and at 12 tasks.
MULTI_PANEL = {"adastop", "percentiles", "bootstrap"}


@pytest.mark.parametrize("many, every", [
    pytest.param(False, False, marks=pytest.mark.slow), pytest.param(False, True, marks=pytest.mark.slow),
    pytest.param(True, False, marks=pytest.mark.slow),  # 9 s each: the default run's budget
    pytest.param(True, True, marks=pytest.mark.slow)],
    ids=["contract-data-multi-panel", "contract-data", "12-tasks-5-agents", "12-tasks-5-agents-every-method"])
def test_multi_panel_figures_keep_every_panel_readable_in_one_column(many, every):
    # At 12 tasks, AdaStop's three per-task figures, the ones whose panels multiply with tasks (the permutation test
    # draws the same three); every method's with -m slow.
    checked, problems = [], {}
    for method in sorted(METHODS):
        formula, options = CASES[method]
        if not every and method not in (MULTI_PANEL if not many else {"adastop"}):
            continue
        if many and method in CURVE_METHODS:
            continue
        df = rlstats.datasets.simulate(agents=5, tasks=12, seeds=4, effect=1.0, rng=0) if many else simulated(method)
        result = rlstats.compare(df, formula, method=method, rng=1, **options)
        for kind, drawn in drawable_plots(result):
            if isinstance(drawn, matplotlib.figure.Figure):
                checked.append(f"{method}-{kind}")
                problems[f"{method}-{kind}"] = _check_panels(drawn)
            plt.close(drawn if isinstance(drawn, matplotlib.figure.Figure) else drawn.figure)
    # AdaStop's three per-task figures (and the permutation test's), the percentile CDFs, the bootstrap intervals.
    assert len(checked) >= (8 if every else 3), checked
    assert not any(problems.values()), {k: v for k, v in problems.items() if v}


def test_panels_wrap_to_the_width_and_take_the_callers_axes():
    from rlstats.plotting import panels

    fig, axes = panels(None, 5, (1.5, 1.2))  # 3.3 in: two columns of 1.5 in, three rows
    assert len(axes) == len(fig.axes) == 5 and fig.get_size_inches() == pytest.approx([COLUMN_WIDTH, 3.6])
    columns = {round(a.get_subplotspec().colspan.start) for a in axes}
    assert columns == {0, 1}
    fig, axes = panels(None, 5, (1.5, 1.2), width=7.0)  # a page's width: four columns
    assert {a.get_subplotspec().colspan.start for a in axes} == {0, 1, 2, 3}
    _, grid = plt.subplots(2, 2)
    assert panels(grid, 4, (1.5, 1.2))[1] == list(grid.ravel())
    with pytest.raises(rlstats.OptionError, match="one Axes per task, or task="):
        panels(grid, 3, (1.5, 1.2), what="task", hint=", or task= to choose one")


def _informative_share(result):
    """Fraction of the drawn thresholds at which some agent's profile is strictly between 0.05 and 0.95."""
    changing = ((result.estimates > 0.05) & (result.estimates < 0.95)).any(axis=0)
    return changing.mean()


@pytest.mark.parametrize("kind", ["runs", "tasks"])
def test_profile_default_thresholds_show_where_the_curves_change(kind):
    # Human-normalised Atari has a heavy upper tail: a few games score a hundred times the rest.
    df = rlstats.datasets.simulate(agents=3, tasks=25, seeds=10, effect=0.5, rng=3)
    heavy = df["task"] == "task_01"
    df.loc[heavy, "score"] = df.loc[heavy, "score"] * 100.0
    res = rlstats.performance_profile(df, "score ~ agent | task", kind=kind, n_resamples=50, rng=0)
    raw = rlstats.performance_profile(df, "score ~ agent | task", kind=kind, n_resamples=50, rng=0,
                                      tau=np.linspace(df["score"].min(), df["score"].max(), 81))
    assert _informative_share(raw) < 0.3  # the raw range: curves squeezed against the left edge
    assert _informative_share(res) >= 0.8
    assert df["score"].min() <= res.tau[0] and res.tau[-1] < 0.2 * df["score"].max()
    note = next(n for n in res.notes if n.startswith("thresholds tau span"))
    assert "runs score above" in note  # the clipped tail is counted, not hidden
    given = np.array([-1.0, 0.0, 1.0, 2.0])
    assert rlstats.performance_profile(df, "score ~ agent | task", kind=kind, tau=given, n_resamples=50,
                                       rng=0).tau.tolist() == given.tolist()
