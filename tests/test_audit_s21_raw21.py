"""Audit s21 (raw21): the raw-scales caution (``normalization.warn_raw_scales``) read each task's largest |score|,
which a common scale a * y leaves alike but a common shift does not: human-normalised Atari 100k scores (26 games)
were cautioned (largest |score| 0.0204 on Seaquest to 12.7 on UpNDown, 621-fold) and the same scores + 1e6 were not,
though every task's spread, what lets a task decide a mean of differences, was the same."""

import warnings

import numpy as np
import pandas as pd
import pytest
from conftest import caught

import rlstats

RAW = "aggregated on their own scales"


@pytest.fixture
def normalised(atari, published):
    """DER, DrQ and SPR on the 26 games, 5 runs each, human-normalised by hand (as a user who did it before calling:
    rlstats does not know, so it may caution) in column ``y``."""
    reference = pd.read_csv(published / "atari100k_reference.csv").set_index("task")
    runs = atari[atari["agent"].isin(["DER", "DrQ", "SPR"]) & (atari["seed"] < 5)].reset_index(drop=True)
    low, high = runs["task"].map(reference["random"]), runs["task"].map(reference["human"])
    return runs.assign(y=(runs["score"] - low) / (high - low))


def _cautions(call):
    """The raw-scales warnings a call raises and the notes of its result saying the same."""
    result, said = caught(call)
    return [s for s in said if RAW in s], [note for note in result.notes if RAW in note]


def _ranges(frame, column):
    """Each task's range (largest minus smallest score), by pandas, apart from the package's rule."""
    by = frame.groupby("task")[column]
    return by.max() - by.min()


def _widest(ranges):
    """(task, ratio): the widest range and its ratio to the median of the other tasks' ranges, by pandas."""
    ranges = ranges.sort_values(ascending=False, kind="stable")
    return ranges.index[0], ranges.iloc[0] / ranges.iloc[1:].median()


def _said(ranges):
    task, ratio = _widest(ranges)
    return (f"the range of the scores of {task!r}, largest minus smallest over all agents and runs, is "
            f"{rlstats.format.signif(ratio, 3)} times the median of the other tasks' ranges")


def _bootstrap(data, column="y"):
    return rlstats.bootstrap(data, f"{column} ~ agent | task", metrics=["mean"], n_resamples=200, rng=0)


def _mixed(data, column="y"):
    return rlstats.mixed(data, f"{column} ~ agent | task")


def test_the_raw_scales_caution_is_the_same_after_a_common_shift(normalised):
    """Human-normalised, the 26 games' ranges run from 0.0040 (PrivateEye) to 12.5 (UpNDown), 3135-fold: the caution
    says so, and the same after + 1e6 (before: "largest scores from 0.00292 to 12.7", 4347-fold, and nothing after
    the shift)."""
    ranges = _ranges(normalised, "y")
    assert ranges.idxmin() == "PrivateEye" and ranges.idxmax() == "UpNDown"
    assert ranges.max() / ranges.min() == pytest.approx(3135.23, abs=0.005)
    before = _cautions(lambda: _bootstrap(normalised))
    after = _cautions(lambda: _bootstrap(normalised.assign(y=normalised["y"] + 1e6)))
    assert len(before[0]) == 1 and len(before[1]) == 1
    said = _said(ranges)
    assert _widest(ranges)[1] > 10
    assert said in before[0][0] and said in before[1][0]
    assert "so the tasks with wide ranges decide the result" in before[0][0]
    assert "largest" in before[1][0] and "|score|" not in before[1][0] and "scores from" not in before[1][0]
    assert after == before


#: (column, method) -> the cautions of the unmapped data: the same fixture data and calls in each of the nine maps'
#: cases (deterministic: rng=0, the published runs), computed by the first case and checked again in every one
_UNMAPPED = {}


#: the nine maps a * y + b (a in 1e-3, 7, 1e4; b in 0, -1e4, 1e6): the default run takes a Latin square's three, each a
#: and each b once; the other six with -m slow
_MAPS = [pytest.param(a, b, id=f"{b}-{a}", marks=() if (i + j) % 3 == 0 else pytest.mark.slow)
         for j, b in enumerate([0.0, -1e4, 1e6]) for i, a in enumerate([1e-3, 7.0, 1e4])]


@pytest.mark.parametrize("a, b", _MAPS)
def test_the_raw_scales_caution_is_the_same_under_a_common_affine_map(normalised, a, b):
    """Warning and note word for word the same under a * y + b, raw or normalised by hand, in bootstrap (the mean of
    task means) and mixed (one residual variance for all tasks), the two ways they are reached."""
    mapped = normalised.assign(y=a * normalised["y"] + b, score=a * normalised["score"] + b)
    for column in ("y", "score"):  # raw: UpNDown's range 140,017, the widest
        assert _widest(_ranges(normalised, column))[0] == "UpNDown"
        for method in (_bootstrap, _mixed):
            key = column, method.__name__
            if key not in _UNMAPPED:
                _UNMAPPED[key] = _cautions(lambda: method(normalised, column))
            said = _UNMAPPED[key]
            assert len(said[0]) == 1 and _said(_ranges(normalised, column)) in said[0][0], said
            assert _cautions(lambda: method(mapped, column)) == said


def test_tasks_on_one_scale_are_not_cautioned_wherever_they_lie():
    """simulate(heterogeneity=0): every task's offset 0 and scale 1, 5 runs of 3 agents; its tasks moved apart by
    shifts of 1e4 apiece (spreads alike, largest |score| 10^4-fold apart: the old rule cautioned them) are not
    cautioned either; the tasks' scales 100-fold apart are."""
    df = rlstats.datasets.simulate(agents=3, tasks=6, seeds=5, heterogeneity=0, rng=1)
    ranges = _ranges(df, "score")
    assert ranges.max() / ranges.min() < 3
    moved = df.assign(score=df["score"] + 1e4 * df["task"].cat.codes)
    for frame in (df, moved):
        assert _cautions(lambda: _bootstrap(frame, "score")) == ([], [])
        assert _cautions(lambda: _mixed(frame, "score")) == ([], [])
    wide = df.assign(score=df["score"] * np.where(df["task"] == "task_01", 100.0, 1.0))
    warned, noted = _cautions(lambda: _bootstrap(wide, "score"))
    assert len(warned) == 1 and _said(_ranges(wide, "score")) in warned[0] and noted


def test_a_task_whose_scores_are_all_equal_is_left_out_and_counted():
    """A task every run of every agent scores alike (CartPole solved at 500 by all) differs between no agents: it
    decides nothing, so it neither sets the caution off (before: 0 as a largest |score| was "without bound", a
    constant 500 beside scores near 1 was "500-fold") nor hides one, and the caution counts it."""
    df = rlstats.datasets.simulate(agents=3, tasks=3, seeds=5, heterogeneity=0, rng=1)
    solved = pd.DataFrame({"agent": np.repeat(df["agent"].cat.categories, 5), "task": "solved", "seed": np.tile(
        np.arange(5), 3), "score": 500.0})
    for level in (0.0, 500.0):
        frame = pd.concat([df.astype({"task": str}), solved.assign(score=level)], ignore_index=True)
        assert _cautions(lambda: _bootstrap(frame, "score")) == ([], [])
        wide = frame.assign(score=frame["score"] * np.where(frame["task"] == "task_01", 100.0, 1.0))
        warned, noted = _cautions(lambda: _bootstrap(wide, "score"))
        assert len(warned) == 1 and noted
        assert (f"{_said(_ranges(wide, 'score').drop('solved'))}; 1 task whose scores are all "
                f"equal, deciding nothing, left out)" in warned[0]), warned


def test_tasks_of_alike_ranges_apart_are_still_cautioned_for_the_iqm():
    """CartPole-like scores 0 to 500 and Acrobot-like -500 to 0 (audit s18): alike ranges, so no raw-scales caution,
    and the IQM's caution about ranges apart stays, under a shift and a scale too."""
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"agent": np.tile(np.repeat(["A", "B"], 5), 2), "task": np.repeat(["cart", "acro"], 10),
                          "score": np.r_[rng.uniform(0, 500, 10), rng.uniform(-500, 0, 10)]})
    for a, b in ((1.0, 0.0), (1e-3, 1e6)):
        mapped = frame.assign(score=a * frame["score"] + b)
        res, said = caught(lambda: rlstats.bootstrap(mapped, "score ~ agent | task", metrics=["iqm"], n_resamples=200,
                                                     rng=0))
        said = [s for s in said if RAW in s]
        assert len(said) == 1 and "ranges apart" in said[0] and "every score of 'acro' is below every score of " \
            "'cart'" in said[0], said
        assert [n for n in res.notes if RAW in n] == [said[0].split("; normalise")[0].replace(" are ", " were ", 1)
                                                      + "; normalize= puts them on one scale, or pass normalize=False if "
                                                      "they are on one scale already"]


def test_one_run_a_cell_on_one_scale_is_seldom_cautioned():
    """Paper tables: one score per agent and task. A task's range of two scores is mostly chance, and the narrowest of
    26 such ranges is ten times below the widest in 99% of same-scale draws (the rule comparing widest with narrowest
    cautioned them); the widest against the median of the others' ranges, 0.1% (4,000 draws of numpy, lead s21).
    Here 200 draws of 2 agents x 26 tasks x 1 run: at most 2 cautioned (none expected); raw Atari 100k's first
    runs of DER and SPR are."""
    from rlstats import normalization
    from rlstats.design import design_of

    rng = np.random.default_rng(21)
    frame = pd.DataFrame({"agent": np.tile(["A", "B"], 26), "task": np.repeat([f"t{i:02d}" for i in range(26)], 2)})
    cautioned = 0
    with warnings.catch_warnings(record=True) as recorded:
        warnings.simplefilter("always")
        for _ in range(200):
            design = design_of(frame.assign(score=rng.normal(size=52)), "score ~ agent | task")
            cautioned += len(normalization.warn_raw_scales(design, None).notes) > len(design.notes)
    assert cautioned <= 2 and len([w for w in recorded if RAW in str(w.message)]) == cautioned


def test_raw_atari_one_run_a_cell_is_cautioned(atari):
    from rlstats import normalization
    from rlstats.design import design_of

    first = atari[atari["agent"].isin(["DER", "SPR"]) & (atari["seed"] == 0)]
    design = design_of(first, "score ~ agent | task")
    with pytest.warns(UserWarning, match=RAW):
        noted = normalization.warn_raw_scales(design, None)
    ranges = _ranges(first, "score")
    assert (ranges == 0).sum() == 1  # one game both score alike: left out, and counted
    assert f"{_said(ranges[ranges > 0])}; 1 task whose scores are all equal" in noted.notes[-1]
