"""Audit s31 equivplot31: equivalence's cost counts each bootstrap pass of an incomplete design, its bootstrap notes
name the pairs they concern, and its figure at paper size (the aggregate rows by default, one panel per scope)."""

import logging

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats.errors import OptionError


def _three(missing=True, runs=4, seed=1):
    """A, B on 4 tasks; C on 3 (missing) or 4, ``runs`` runs a cell, differences well inside 0.1."""
    rng = np.random.default_rng(seed)
    rows = []
    for a, mu in (("A", 0.0), ("B", 0.02), ("C", 0.01)):
        for t in range(4):
            if missing and a == "C" and t == 3:
                continue
            rows += [(a, f"t{t}", s, mu + 0.1 * t + rng.normal(0, 0.05)) for s in range(runs)]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])


def _estimate(caplog, df, **options):
    caplog.clear()
    with caplog.at_level(logging.DEBUG, logger="rlstats.cost"):
        result = rlstats.equivalence(df, "score ~ agent | task", margin=0.1, rng=0, **options)
    # the last estimate is the whole call's: the pairs' tests alone are estimated first, a bound below it (s37 bounds37)
    work = [r.work for r in caplog.records if r.name == "rlstats.cost" and r.getMessage().startswith("equivalence")][-1]
    return result, work


def test_cost_counts_each_bootstrap_pass(caplog, monkeypatch):
    """C misses t3: A vs B is bootstrapped on 4 tasks (32 runs), A vs C and B vs C on the 3 all ran (A, B, C: 36
    runs), 68 runs a resample, not the data's 44; the complete design (48 runs) is one pass. The rows each bootstrap
    was called with are counted by a spy on the bootstrap back end, independently of the formula; since audit s39 eq39
    each is priced by the bootstrap's own formula, 3 passes (studentised) x 200 resamples x (runs + 100 x agents) x
    8e-9 s + 0.006 s a call."""
    from rlstats import methods

    real, seen = methods.backend("bootstrap"), []

    def spy(design, **kw):
        seen.append(len(design.y))
        return real(design, **kw)

    monkeypatch.setattr(methods, "backend", lambda name: spy if name == "bootstrap" else real)
    _, work = _estimate(caplog, _three(), n_resamples=200)
    assert sorted(seen) == [32, 36]
    # besides the bootstraps, the call's own 0.018 s and each pair's tests (audit s32 rfix32, measured again in s39):
    # 3 pairs on 4 tasks (0.6 ms + 33 us a task), each with its aggregate (0.78 ms + 39 ns a resample); 2 task sets:
    # A vs C and B vs C read again alone from their group of 3 agents (0.46 ms + 0.137 us a resample)
    boot = [3 * 200 * (32 + 100 * 2) * 8e-9 + 0.006, 3 * 200 * (36 + 100 * 3) * 8e-9 + 0.006]
    pairs = 0.018 + 3 * (6e-4 + 4 * 3.3e-5) + 3 * (7.8e-4 + 200 * 3.9e-8)
    assert work.seconds == pytest.approx(sum(boot) + pairs + 2 * (4.6e-4 + 200 * 1.37e-7))
    seen.clear()
    _, complete = _estimate(caplog, _three(missing=False), n_resamples=200)
    assert seen == [48] and complete.seconds == pytest.approx(3 * 200 * (48 + 300) * 8e-9 + 0.006 + pairs)
    # memory: the groups run one after the other; the peak is the largest group's agents (3 here), as one pass
    assert work.memory == complete.memory == 64 * 200 * 3
    assert "2 bootstraps" in work.what


def test_max_seconds_refuses_when_the_passes_push_it_over(caplog):
    """10,000 resamples, each bootstrap priced by the bootstrap's formula (audit s39 eq39): the two passes (2 agents'
    32 runs, 3 agents' 36) 0.0617 + 0.0866 s, with the call's own 0.018 s and the 3 pairs' tests (2.2 ms, 3.5 ms for
    their aggregates, and 3.7 ms to read A vs C and B vs C again alone) 0.176 s; the complete design's one pass of 48
    runs 0.0895 s, 0.113 s in all (one pass of the data's 44 runs, as counted before audit s31, 0.112 s). A bound of
    0.15 s refuses the first and admits the second."""
    with pytest.raises(OptionError, match="max_seconds"):
        rlstats.equivalence(_three(), "score ~ agent | task", margin=0.1, rng=0, n_resamples=10_000, max_seconds=0.15)
    _, work = _estimate(caplog, _three(missing=False), n_resamples=10_000, max_seconds=0.15)
    assert work.seconds == pytest.approx(3 * 10_000 * 348 * 8e-9 + 0.006 + 0.018 + 3 * (6e-4 + 4 * 3.3e-5)
                                         + 3 * (7.8e-4 + 10_000 * 3.9e-8))


def test_bootstrap_notes_name_their_pairs():
    """Two task sets bootstrapped (A vs B on 4 tasks, A vs C and B vs C on 3): the bootstrap's note on few runs, the
    same of both, says it holds for every pair's aggregate; where only one set's runs are few, the note names that set's
    pairs."""
    # audit s32 (equivtab32): the bootstrap's note of its 95% intervals' coverage at few runs gives way to the rows
    # of this test's decision, one note per task set, naming its pairs, with the set's tasks and the pairs' runs
    result = rlstats.equivalence(_three(), "score ~ agent | task", margin=0.1, rng=0, n_resamples=500)
    assert not [n for n in result.notes if "runs per task are few" in n]
    few = [n[:n.index(" reads")] + n[n.index(" coverage at"):n.index(", short")] for n in result.notes
           if "rows of another level" in n]
    assert few == ["the aggregate (IQM) test of A vs B coverage at 4 tasks and 4 runs",
                   "the aggregate (IQM) test of A vs C and B vs C coverage at 3 tasks and 4 runs"]
    # A and B with 10 runs a cell, C with 4 on 3 tasks: the note is that of A vs C and B vs C alone
    df = _three()
    more = _three(runs=10, seed=2)
    df = pd.concat([df[df["agent"] == "C"], more[more["agent"] != "C"]], ignore_index=True)
    result = rlstats.equivalence(df, "score ~ agent | task", margin=0.1, rng=0, n_resamples=500)
    few = [n for n in result.notes if "rows of another level" in n]
    assert len(few) == 1 and few[0].startswith("the aggregate (IQM) test of A vs C and B vs C reads"), few
    # one task set (complete design): one note of every pair
    result = rlstats.equivalence(_three(missing=False), "score ~ agent | task", margin=0.1, rng=0, n_resamples=500)
    assert [n[:53] for n in result.notes if "rows of another level" in n] == [
        "the aggregate (IQM) test of A vs B, A vs C and B vs C"]


# ----------------------------------------------------------------------------- the figure at paper size


def _fit(published, agents):
    """The new user's call (Atari 100k, seeds 0-4, human-normalised, margin 0.05) on ``agents``."""
    a4 = pd.read_csv(published / "atari100k.csv")
    return rlstats.compare(a4[a4["agent"].isin(agents) & (a4["seed"] < 5)], "score ~ agent | task",
                           method="equivalence", margin=0.05, normalize="atari100k_reference", rng=0, n_resamples=200)


FOUR = ["DER", "DrQ", "SPR", "IRIS"]


@pytest.fixture(scope="module")
def atari(published):
    return _fit(published, FOUR)


def _dashed(ax):
    return sorted(line.get_xdata()[0] for line in ax.get_lines() if line.get_linestyle() == "--")


def test_default_figure_is_each_pairs_summary_rows(atari):
    """The new user's figure: 6 pairs x (across tasks, aggregate) = 12 rows in one Axes, 5 x 3.74 in at its own size
    (it was 156 rows + 12 in 23.8 in); the margin lines at -0.05 and +0.05; every interval whole (the axis spans
    1.27 + 2 x 3% normalised scores, under 40 margins = 2.0), so no arrow and no cut line in the label; it holds at
    3.5 x 3 in (resized's checks refuse overlapping labels)."""
    import matplotlib.pyplot as plt

    ax = atari.plot()
    try:
        labels = [t.get_text() for t in ax.get_yticklabels()]
        assert len(labels) == 12 and labels[:2] == ["DER - DrQ: across tasks", "DER - DrQ: aggregate (IQM)"]
        assert labels[-1] == "IRIS - SPR: aggregate (IQM)"
        assert _dashed(ax) == pytest.approx([-0.05, 0.05])
        rows = atari.tidy()[atari.tidy()["scope"] != "task"]
        left, right = ax.get_xlim()
        low, high = rows["conf_low"].min(), rows["conf_high"].max()
        assert left < low and right > high and (left, right) == pytest.approx(
            (low - 0.03 * (high - low), high + 0.03 * (high - low)))
        assert "cut at the axis' edge" not in ax.get_xlabel()
        assert tuple(ax.figure.get_size_inches()) == pytest.approx((5.0, 1.1 + 0.22 * 12))
        # a thin line between each pair's rows: 5 of them
        assert sum(1 for line in ax.get_lines() if line.get_linestyle() == "-" and line.get_ydata()[0] ==
                   line.get_ydata()[-1] and line.get_xdata()[0] == 0 and line.get_xdata()[-1] == 1) == 5
        plt.close(ax.figure)
        small = atari.plot(figsize=(3.5, 3.0))
        assert len(small.get_yticklabels()) == 12
    finally:
        plt.close("all")


@pytest.mark.parametrize("agents, n", [(["DER", "IRIS"], 27), pytest.param(FOUR, 162, marks=pytest.mark.slow)],
                         ids=["DER and IRIS", "four agents"])
def test_per_task_rows_clip_the_axis_and_mark_what_is_cut(published, agents, n):
    """scopes= every scope: 27 rows of DER - IRIS (162 of the four agents; 1 of 28 and 6 of 168 withheld); the axis
    spans 40 margins (2.0 normalised scores, the window around the estimates' median holding the band), the rows
    whose interval reaches past it counted from the table independently, one arrow for each end past an edge, and the
    estimates past the edge written (DER - IRIS on Boxing, -6.06)."""
    import matplotlib.pyplot as plt

    result = _fit(published, agents)
    ax = result.plot(scopes=("task", "across tasks", "aggregate"))
    try:
        tidy = result.tidy()
        rows = tidy[np.isfinite(tidy["conf_low"].to_numpy(float))]
        assert len(ax.get_yticklabels()) == len(rows) == n
        left, right = ax.get_xlim()
        assert right - left == pytest.approx(40 * 0.05)
        assert left < -0.05 and right > 0.05
        cut = ((rows["conf_low"] < left) | (rows["conf_high"] > right)).sum()
        beyond = rows[(rows["estimate"] < left) | (rows["estimate"] > right)]
        assert cut > 0 and f"{cut} of {n} cut at the axis' edge" in ax.get_xlabel().replace("\n", " ")
        arrows = sum(len(line.get_xdata()) for line in ax.get_lines() if line.get_marker() in ("<", ">"))
        assert arrows == ((rows["conf_low"] < left).sum() + (rows["conf_high"] > right).sum())
        written = [t.get_text() for t in ax.texts]
        assert len(written) == len(beyond) and "-6.06" in written
        assert _dashed(ax) == pytest.approx([-0.05, 0.05])
        # clip=None: every interval whole, nothing cut
        plt.close(ax.figure)
        whole = result.plot(scopes=("task",), clip=None)
        tasks = tidy[(tidy["scope"] == "task") & np.isfinite(tidy["conf_low"].to_numpy(float))]
        assert whole.get_xlim()[0] < tasks["conf_low"].min() and whole.get_xlim()[1] > tasks["conf_high"].max()
        assert not whole.texts and "cut" not in whole.get_xlabel()
    finally:
        plt.close("all")


def test_one_task_draws_its_per_task_rows():
    """On one task the across-tasks and aggregate tests are withheld: the default figure draws the task's row."""
    import matplotlib.pyplot as plt

    df = _three(missing=False)
    res = rlstats.equivalence(df[df["task"] == "t0"], "score ~ agent | task", margin=0.1, rng=0, n_resamples=200)
    ax = res.plot()
    try:
        assert [t.get_text() for t in ax.get_yticklabels()] == ["A - B: t0", "A - C: t0", "B - C: t0"]
    finally:
        plt.close("all")
