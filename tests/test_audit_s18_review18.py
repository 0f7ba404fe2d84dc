"""Audit s18 (review18): second reading of session 18's merged change (git diff 9b3adb3..main)."""

import io

import numpy as np
import pandas as pd
import pytest
from conftest import caught

import rlstats


def _scores(agents, tasks=("t1", "t2", "t3", "t4", "t5", "t6"), seeds=5):
    rng = np.random.default_rng(0)
    rows = [(a, t, s, float(rng.normal(0.5 * i, 1))) for i, a in enumerate(agents) for t in tasks for s in range(seeds)]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])


@pytest.mark.parametrize("kind", ["simplex", "posterior"])
def test_a_dollar_name_in_a_title_written_on_the_callers_axes_is_drawn_as_written(kind):
    """The Bayesian plots drawn on the caller's own Axes (ax=) set its title ("$^$ vs $x$") and x label: those Text
    objects are the caller's, made before the plot's plain-text context, so they kept matplotlib's mathtext and savefig
    raised ParseSyntaxException for an agent named "$^$" (the plot's own figure drew it as written)."""
    import matplotlib.pyplot as plt
    from matplotlib.text import Text

    res = rlstats.compare(_scores(["$^$", "$x$"]), "score ~ agent | task", method="bayes", rng=1, progress=False)
    fig, ax = plt.subplots()
    fig.suptitle(r"$\alpha$ sweep")  # the caller's own text, untouched by the plot: still mathtext
    try:
        res.plot(kind=kind, ax=ax)
        fig.savefig(io.BytesIO(), format="png")
        shown = {t.get_text(): t._preprocess_math(t.get_text())[1] for t in fig.findobj(Text) if t.get_text()}
    finally:
        plt.close(fig)
    assert shown[ax.get_title()] is False and "$^$ vs $x$" in ax.get_title()
    assert shown[r"$\alpha$ sweep"] is True


def test_a_seed_written_with_a_superscript_digit_is_read_as_text(tmp_path):
    """format.natural_key reads only decimal runs as numbers ('²' is a digit int() cannot read, audit s18), but
    read_logs' seed field still tested str.isdigit before int(): a run folder named '²' stopped read_logs with
    "ValueError: invalid literal for int() with base 10: '²'". Seeds written in decimal digits are integers, others
    text, as for '007'."""
    for seed in ("²", "1"):
        path = tmp_path / "a" / "t" / seed / "m.csv"
        path.parent.mkdir(parents=True)
        path.write_text("step,eval/return\n0,1.0\n5,2.5\n")
    frame = rlstats.read_logs(tmp_path, "{agent}/{task}/{seed}", progress=False)
    assert sorted(frame["seed"].unique().tolist()) == ["1", "²"]
    assert len(frame) == 4


def test_the_power_command_reads_a_superscript_digit_as_a_name():
    """`rlstats power skillings_mack --agents ²` printed a Python traceback ("invalid literal for int() with base 10:
    '²'"): the count test was str.isdigit, which '²' passes and int() refuses. A command's bad input is one message
    and status 2; '²' is read as a name, as natural_key reads it."""
    import contextlib

    import rlstats.cli as cli

    err, out = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err):
        status = cli.main(["power", "skillings_mack", "--agents", "²", "--tasks", "3", "--no-progress"], out=out)
    assert status == 2 and out.getvalue() == ""
    assert err.getvalue() == "rlstats: error: agents=['²']: a comparison needs at least two agents\n"


def test_the_ranges_apart_caution_says_the_median_of_an_even_number_of_tasks_averages_two():
    """Four tasks on ranges apart (around -400, -200, 200 and 400, so no tenfold scale): the median of task means
    averages the two middle tasks' means (numpy: t2's and t3's), but the caution said "the task whose mean the
    median takes depends on the tasks' ranges", one task."""
    rng = np.random.default_rng(0)
    rows = [(a, t, s, off + float(rng.normal(i, 1))) for i, a in enumerate("AB")
            for t, off in zip(["t1", "t2", "t3", "t4"], [-400, -200, 200, 400]) for s in range(5)]
    df = pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])
    res, said = caught(lambda: rlstats.bootstrap(df, "score ~ agent | task", metrics=["median"], n_resamples=200,
                                                 rng=0))
    means = df.groupby(["agent", "task"])["score"].mean().unstack()
    np.testing.assert_allclose(res.estimates[:, 0], (means["t2"] + means["t3"]) / 2, rtol=1e-12)  # two tasks' means
    said = [s for s in said if "ranges apart" in s]
    assert len(said) == 1 and "the two tasks whose means the median averages depend on the tasks' ranges" in said[0]
