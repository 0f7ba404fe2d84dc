"""Every result's figure renders at single-column width (3.3 in) with no text below 7 pt."""

import matplotlib
import matplotlib.figure
import matplotlib.pyplot as plt
import matplotlib.text
import pytest

import rlstats
from rlstats.methods import METHODS
from rlstats.plotting import palette
from test_contract import CASES, simulated

COLUMN_WIDTH = 3.3
SMALLEST_FONT = 7.0


def _kinds():
    for method in sorted(METHODS):
        formula, options = CASES[method]
        result = rlstats.compare(simulated(method), formula, method=method, rng=1, **options)
        for kind in type(result)._plot_kinds:
            yield pytest.param(result, kind, id=f"{method}-{kind}")


@pytest.mark.parametrize("result, kind", list(_kinds()))
def test_renders_at_column_width_with_readable_text(result, kind, tmp_path):
    try:
        drawn = result.plot(kind=kind)
    except rlstats.OptionError:
        pytest.skip(f"{kind} needs something this run did not compute")
    figure = drawn if isinstance(drawn, matplotlib.figure.Figure) else drawn.figure
    width, height = figure.get_size_inches()
    figure.set_size_inches(COLUMN_WIDTH, height * COLUMN_WIDTH / width)
    texts = [t for t in figure.findobj(matplotlib.text.Text) if t.get_visible() and t.get_text().strip()]
    smallest = min(t.get_fontsize() for t in texts)
    assert smallest >= SMALLEST_FONT, f"text of {smallest} pt: {[t.get_text() for t in texts if t.get_fontsize() < 7]}"
    figure.savefig(tmp_path / f"{kind}.png", dpi=150)
    plt.close(figure)


def test_palette_does_not_repeat_below_twelve_agents():
    assert len(set(palette(12))) == 12
    assert palette(13)[12] == palette(13)[0]
