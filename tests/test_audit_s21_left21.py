"""Audit s21, helper left21: items a read-through of session 20 left open, each reproduced first.

One home for counting relabellings (statistics.relabellings) and one enumeration rule; tuning's sweep tolerance from
statistics.tie_tolerance; one home for breaking long labels in figures; format.count with thousands separators;
the bootstrap's unreachable "most runs" note; equivalence's aggregate interval label; near-tie notes unchanged by units.
"""

import itertools
import math
import re

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats import statistics


# ---- 1. relabellings: one count, one enumeration rule ----------------------------------------------------------------
def test_relabellings_counted_fast_at_many_runs(monkeypatch):
    """curves counted relabellings with math.comb products: 0.7 s for 100,000 runs of each agent on one task (and
    task_table's split count the same), for a number only ever compared with n_resamples or inverted. The exact
    binomial of huge counts is never formed (asserted by refusing it, not timed)."""
    comb = math.comb

    def small_comb(n, k):
        assert n <= 10_000, f"math.comb({n}, {k}) formed"
        return comb(n, k)

    monkeypatch.setattr(statistics.math, "comb", small_comb)
    count = statistics.relabellings(np.array([100_000]), np.array([100_000]))
    monkeypatch.undo()
    assert count == math.inf
    # exact where it can be (an int), the float's relative error beyond
    for first, second in [(3, 3), ([3, 2, 5], [3, 1, 4]), ([0, 7], [4, 0]), (500, 500), ([40] * 9, [41] * 9)]:
        exact = math.prod(math.comb(a + b, a) for a, b in zip(np.atleast_1d(first), np.atleast_1d(second)))
        assert statistics.relabellings(first, second) == exact
        assert isinstance(statistics.relabellings(first, second), int)
    big = statistics.relabellings([300] * 4, [300] * 4)  # C(600, 300)^4 ~ 1e714: past a double
    assert big == math.inf
    near = statistics.relabellings([250, 260], [250, 260])  # ~ 1e305, above the exact limit
    assert isinstance(near, float)
    assert near == pytest.approx(float(math.comb(500, 250) * math.comb(520, 260)), rel=1e-9)
    from rlstats.methods.task_table import _kernels
    assert _kernels.smallest_pvalue("fisher_pitman", 100_000, 100_000, 10_000) == pytest.approx(1 / 10_001)


def _brute_force_pvalue(x, y):
    """One-sided p of mean(x) - mean(y) over every split of the pooled runs, counted directly."""
    pooled = np.concatenate([x, y])
    observed = x.mean() - y.mean()
    total = pooled.sum()
    n, m = x.size, y.size
    hits = count = 0
    for chosen in itertools.combinations(range(n + m), n):
        first = pooled[list(chosen)].sum()
        diff = first / n - (total - first) / m
        hits += diff >= observed - 1e-9
        count += 1
    return hits / count, count


def test_task_table_enumerates_when_draws_would_outnumber_splits():
    """task_table drew n_resamples random splits whenever C(n + m, n) > 20,000, even when more draws were asked for
    than there are splits (9 v 9 runs: 48,620 splits, n_resamples=60,000): a Monte Carlo p where the exact one
    costs less."""
    from rlstats.methods.task_table import _kernels
    rng = np.random.default_rng(3)
    x, y = rng.normal(0.8, 1, 9), rng.normal(0, 1, 9)
    greater, _, how = _kernels.one_sided("fisher_pitman", x[None], y[None], np.random.default_rng(0), 60_000)
    exact, total = _brute_force_pvalue(x, y)
    assert total == 48_620
    assert how == "exact"
    assert greater[0] == pytest.approx(exact, rel=1e-12)
    assert round(exact * total) == 18_469 and round(exact, 6) == 0.379864  # splits at least as large
    assert _kernels.split_count(9, 9, 10_000) == (10_000, False)  # the default: draws, as before
    assert _kernels.split_count(9, 9, 60_000) == (48_620, True)


# ---- 2. tuning's tie tolerance is the one rule's ---------------------------------------------------------------------
@pytest.mark.parametrize("scale, shift", [(1.0, 0.0), (1e-3, -1e4), (7.0, 123.456), (1e4, 0.0)])
def test_sweep_tolerance_is_the_block_tolerance_of_one_block(scale, shift):
    """tuning's sweep_tolerance is statistics.tie_tolerance of the sweep's range and largest |run|: the same float as
    block_tolerances gives the sweep read as one block (no arithmetic of its own), in any units."""
    from rlstats.methods.tuning import _kernels
    values = np.random.default_rng(1).normal(3, 2, 40) * scale + shift
    assert _kernels.sweep_tolerance(values) == statistics.block_tolerances(values, np.zeros(40, dtype=int), 1)[0]
    assert _kernels.sweep_tolerance(np.array([])) == 0.0


# ---- 4. format.count: thousands separators, no redundant plural ------------------------------------------------------
def test_count_has_thousands_separators():
    """format.count(12000, "run") printed "12000 runs" while every other integer of the prose has separators
    ("1,202 more", "n_resamples = 10,000")."""
    from rlstats import format as fmt
    assert fmt.count(12_000, "run") == "12,000 runs" and fmt.count(1_000, "step") == "1,000 steps"
    assert fmt.count(999, "run") == "999 runs" and fmt.count(1, "batch") == "1 batch"


def test_no_caller_passes_the_plural_the_rule_gives():
    """count(n, "batch", "batches") named the plural format.plural gives anyway (six callers in adastop and its
    command): the irregular argument is for plurals the rule does not give ("other axes", "files or runs")."""
    import re
    from pathlib import Path
    from rlstats import format as fmt
    root = Path(rlstats.__file__).parent
    found = []
    for path in root.rglob("*.py"):
        for word, given in re.findall(r"count\([^()]*?,\s*['\"]([a-z -]+)['\"],\s*['\"]([a-z -]+)['\"]\)",
                                      path.read_text(encoding="utf-8")):
            if fmt.plural(word) == given:
                found.append((path.name, word))
    assert not found


# ---- 5. the bootstrap's note at the most runs simulated: unreachable, deleted -----------------------------------------
_METRICS = ("mean", "median", "iqm", "optimality_gap", "probability_of_improvement")


def test_no_default_row_misses_at_the_most_runs_simulated():
    """The bootstrap's coverage note had a branch for a default interval that misses 95% at the most runs simulated
    (_most_runs_note, audit s20). Since the Welch floor (the one-task mean given from 20 runs, the gap from 50) no
    calibration row of a default did, at 20 runs of the grid or 200 of one task, until audit s24's 2-task rows: the
    median's (0.935 of 1,920, skewed) and the optimality gap's (0.953, its worst draw 0.892, skewed) at 2 tasks x 20
    runs. This test names any other, and the note at those runs says that more were not simulated."""
    from rlstats import calibration
    from rlstats.methods.bootstrap import _small_runs
    for metric in _METRICS:
        default = "score" if metric == "probability_of_improvement" else "studentized"
        for single_task in (False, True):
            rows = _small_runs._rows_by_runs(default, metric, single_task)
            most = max(rows)
            assert most == (200 if single_task and default == "studentized" else 20)
            missed = [(r["tasks"], r["distribution"]) for r in rows[most] if calibration.misses(r, 0.95)]
            assert missed == ([("2", "skewed")] if metric in ("median", "optimality_gap") and not single_task
                              else []), (metric, single_task, most)
            # so the note of the default at those runs, and at more, is None (but where the 2-task rows are read)
            note = _small_runs.coverage_note(default, metric, metric, most, "", single_task)
            assert (note is None) == (not missed), (metric, single_task)
            assert _small_runs.coverage_note(default, metric, metric, 10 * most, "", single_task) is None
            for tasks in (2, 3, 4, 5):
                note = _small_runs.coverage_note(default, metric, metric, most, "", single_task, tasks)
                if missed and tasks < 5 and not single_task:
                    assert note.endswith("; 20 runs per task are the most simulated, so whether more reach the "
                                         "stated level is not measured"), (metric, tasks)
                else:
                    assert note is None, (metric, tasks)
                assert _small_runs.coverage_note(default, metric, metric, 10 * most, "", single_task, tasks) is None


def test_most_runs_note_removed():
    from rlstats.methods.bootstrap import _small_runs
    assert not hasattr(_small_runs, "_most_runs_note")


# ---- 6. equivalence's aggregate of the mean says its Welch t floor ---------------------------------------------------
def test_equivalence_aggregate_label_names_the_welch_floor():
    """equivalence(aggregate="mean") printed its interval as "bootstrap-t (mean over tasks)" although each end is the
    wider of the bootstrap-t and the Welch t bound (statistics.welch_floor, audit s20); the IQM's is the bootstrap-t
    alone. The interval itself is unchanged."""
    from rlstats.datasets import simulate
    df = simulate(2, 5, 10, rng=0)
    kwargs = dict(margin=0.5, rng=0, progress=False, n_resamples=500, normalize=False)
    mean = rlstats.equivalence(df, "score ~ agent | task/seed", aggregate="mean", **kwargs)
    iqm = rlstats.equivalence(df, "score ~ agent | task/seed", aggregate="iqm", **kwargs)
    row = mean.tidy().query("scope == 'aggregate'").iloc[0]
    assert row["method"] == "bootstrap-t with Welch t floor (mean over tasks)"
    assert "bootstrap-t with Welch t floor (mean over tasks), 500 resamples, seed 0" in str(mean)  # audit s32
    # (-1.5042, 0.884) before audit s33 keyed each cell's stream by its task's name
    assert (round(row["conf_low"], 4), round(row["conf_high"], 4)) == (-1.3877, 0.9275)
    # the rule the label names: each end the wider of the bootstrap-t's (the run with the Welch floor off) and the
    # Welch t bound, estimate -+ t(0.95, the difference's Welch-Satterthwaite df) SE
    from scipy import stats

    from conftest import rule_off, welch_off
    off = rule_off(lambda: rlstats.equivalence(df, "score ~ agent | task/seed", aggregate="mean", **kwargs),
                   *welch_off()).tidy().query("scope == 'aggregate'").iloc[0]
    across = mean.tidy().query("scope == 'across tasks'").iloc[0]
    half = stats.t.ppf(0.95, across["df"]) * row["std_error"]
    assert row["conf_low"] == pytest.approx(min(off["conf_low"], row["estimate"] - half), rel=1e-12)
    assert row["conf_high"] == pytest.approx(max(off["conf_high"], row["estimate"] + half), rel=1e-12)
    assert (off["estimate"], off["std_error"]) == (row["estimate"], row["std_error"])
    assert off["conf_low"] != row["conf_low"]  # the floor taken there (-1.2936 without it): the patch reaches it
    assert iqm.tidy().query("scope == 'aggregate'").iloc[0]["method"] == "bootstrap-t (IQM)"


# ---- 7. the near-tie note is the same in any units -------------------------------------------------------------------
_MAPS = [(a, b) for a in (1e-3, 7.0, 1e4) for b in (0.0, -1e4, 123.456)]


def _atari_games():
    df = pd.read_csv("/work/shared/data/atari100k.csv")
    games = ["Alien", "Freeway", "Hero", "Kangaroo", "PrivateEye", "Jamesbond"]
    return df[df.task.isin(games) & df.agent.isin(["CURL", "DER", "SPR", "DrQ"])].reset_index(drop=True)


def _mapped(df, maps):
    """Each task's scores through its own a * y + b."""
    out = df.copy()
    for task, (a, b) in zip(sorted(df.task.unique()), maps):
        rows = out.task == task
        out.loc[rows, "score"] = out.loc[rows, "score"] * a + b
    return out


def _near_notes(res):
    """The note's rule; the tasks it names (audit s30, mends30) are those whose scores differ within the tolerance in
    the units given, which rounding under a map can make exactly equal (the ranks the same either way)."""
    return [re.sub(r"some scores of .*? are within", "some scores are within", n) for n in res.notes
            if "within 1e-12" in n]


_NEAR_CALLS = {
    "task_table": lambda d: rlstats.task_table(d, "score ~ agent | task", test="mannwhitney", rng=0, progress=False),
    "skillings_mack": lambda d: rlstats.skillings_mack(d, "score ~ agent | task", rng=0, progress=False),
}


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("name", sorted(_NEAR_CALLS))
def test_near_tie_note_unchanged_by_per_task_affine_maps(name):
    """Atari 100k (6 games, 4 agents): the rank methods' note counted the pairs of a task's scores that differ but
    tie within the tolerance, 12,583 in the data's units (714.6 beside 714.6000000000001 and the like); with each
    game's scores through its own a * y + b, a in {1e-3, 7, 1e4}, b in {0, -1e4, 123.456}, 12,488, as the map's
    rounding made some such pairs exactly equal (or kept them apart; 22 pairs of all 26 games at y - 1e4). The ranks, and so every
    statistic, are the same; the note says the rule without a count that the units decide."""
    df = _atari_games()
    call = _NEAR_CALLS[name]
    base = call(df)
    assert len(_near_notes(base)) == 1
    for shift in range(3):
        maps = (_MAPS[3 * shift:] + _MAPS[:3 * shift])[:6]
        other = call(_mapped(df, maps))
        assert _near_notes(other) == _near_notes(base), maps
        for column in ("statistic", "p_value"):
            if column in base.tidy():
                np.testing.assert_allclose(other.tidy()[column].to_numpy(dtype=float),
                                           base.tidy()[column].to_numpy(dtype=float), rtol=1e-9)


# ---- 3. one home for breaking a figure's texts -----------------------------------------------------------------------
def test_titles_and_labels_break_by_one_rule():
    """plotting had two loops that broke long texts at words: break_to_width (fit_xlabel, a figure's line under its
    panels) never at a hyphen ("held-\\nout" reads as two words), _fit_texts (fit_title, resized figures) at
    hyphens too. One rule now (_break_text): a title of hyphenated words at a column's width is broken at spaces."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from rlstats import plotting

    fig, ax = plt.subplots(figsize=(3.5, 2.6), layout="constrained")
    words = "held-out well-known skewness-corrected one-sided re-weighted self-normalised " * 2
    ax.set_title(words.strip())
    ax.set_xlabel(words.strip())
    plotting.fit_title(ax, xlabel=True)
    for text in (ax.title, ax.xaxis.label):
        lines = text.get_text().split("\n")
        assert len(lines) > 1 and not any(line.endswith("-") for line in lines), lines
        assert " ".join(lines) == words.strip()
    fig.canvas.draw()
    frame = fig.get_window_extent()
    box = ax.title.get_window_extent()
    assert box.x0 >= frame.x0 and box.x1 <= frame.x1
    plt.close(fig)
