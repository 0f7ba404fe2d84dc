"""Audit s26 (review26c): review of session 26's merges (trim26's test helpers, copies26b, hall26b, median26, small26)
on main.

Fixed:

- trim26's fast path of ``test_bad_inputs.unchanged()`` passed a caller's frame whose categorical column's (or
  index's) categories were reordered in place (an unordered CategoricalDtype equals its reordering, and
  DataFrame.equals compares values), which ``pd.testing.assert_frame_equal`` fails: it compares categories too;
- copies26b's ``_log_gamma_tail`` was no upper bound at n = 1, x = 4.3e-12 (-4.8e-6 against -4.3e-12: ``x - n + 1``
  as ``(x - 1) + 1``) and NaN at x = inf (a pair of cells of chance 0: the pair of tasks then passed no test); in use
  n >= 2, where the grid against scipy's gammaincc found it an upper bound already;
- summary()'s text, Markdown and HTML headed AdaStop's pair agent_1 agent_2 n_1 n_2 over agents named agent_3,
  agent_1, which small26 had mended in print and LaTeX only;
- docs/calibration.md's 2-task counts (15 of 64, 14 of 48, 4 of 16) are read from the table.

Checked and left as they are: the lead's merge 22ac60ff (shared_q indexed as first/second, ``[same]`` then
``[pick]``), hall_cap's cap and slope against numerical derivatives (continuous, monotone), the calibration CSV
against both branches' changes from their own merge bases (no row lost or duplicated), the notes on real data
(hpo_landscapes, HalfCheetah SAC/TD3, MuJoCo pairs of tasks) under units and row order."""

import importlib.util
import pathlib

import pandas as pd
import pytest


def _bad_inputs():
    """tests/test_bad_inputs.py as a module (its ``unchanged`` helper)."""
    path = pathlib.Path(__file__).parent / "test_bad_inputs.py"
    spec = importlib.util.spec_from_file_location("_bad_inputs_review26c", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("where", ["column", "index"])
def test_unchanged_catches_reordered_categories(where):
    """trim26's fast path of unchanged() passed a frame whose categorical column's (or index's) categories were
    reordered in place: CategoricalDtype equality and DataFrame.equals ignore the order of unordered categories,
    pd.testing.assert_frame_equal does not. The fast path now compares the categories too."""
    helper = _bad_inputs()
    if where == "column":
        frame = pd.DataFrame({"agent": pd.Categorical(["x", "y", "x"], categories=["x", "y"]), "score": [1.0, 2, 3]})
    else:
        frame = pd.DataFrame({"score": [1.0, 2]}, index=pd.CategoricalIndex(["x", "y"], categories=["x", "y"]))
    before = frame.copy(deep=True)
    with pytest.raises(AssertionError):
        pd.testing.assert_frame_equal(
            frame.set_axis(frame.index.reorder_categories(["y", "x"]), axis=0) if where == "index" else
            frame.assign(agent=frame["agent"].cat.reorder_categories(["y", "x"])), before)
    with pytest.raises(AssertionError):
        with helper.unchanged(frame):  # the caller's frame modified in place, as a function might
            if where == "column":
                frame["agent"] = frame["agent"].cat.reorder_categories(["y", "x"])
            else:
                frame.index = frame.index.reorder_categories(["y", "x"])


def test_unchanged_fast_path_still_fast_and_still_passes_copies():
    """An untouched frame with categoricals passes the fast path itself (no fallback), and a reordered one fails it."""
    helper = _bad_inputs()
    frame = pd.DataFrame({"agent": pd.Categorical(["x", "y", "x"], categories=["x", "y"]), "score": [1.0, 2, 3]},
                         index=pd.CategoricalIndex(["a", "b", "c"]))
    assert helper._identical(frame, frame.copy(deep=True))
    assert not helper._identical(frame.assign(agent=frame["agent"].cat.reorder_categories(["y", "x"])), frame)
    assert not helper._identical(frame.assign(agent=frame["agent"].cat.set_categories(["x", "y", "z"])), frame)


# ---- copies26b's joint bound: the Gamma tail against scipy, and an infinite combined statistic --------------------
def test_log_gamma_tail_bounds_scipy_on_a_grid():
    """copies26b's ``_log_gamma_tail`` bounds ``log P(Gamma(n, 1) >= x)`` above on a grid of n = 1-59, 100-10,000 and
    x from just above n - 1 (where ``x / (x - n + 1)`` blows up: clipped to 0) to 1e5: never more than round-off below
    ``log(scipy.special.gammaincc(n, x))`` (where the bound is exact, n = 1). It was 4.8e-6 below at n = 1,
    x = 4.28e-12 (``x - n + 1`` evaluated as ``(x - 1) + 1``); in use n >= 2, where it held already."""
    import numpy as np
    from scipy import special

    from rlstats.statistics import _log_gamma_tail

    worst = -np.inf
    for n in [*range(1, 60), 100, 300, 1000, 10000]:
        x = np.r_[n - 1 + np.geomspace(1e-12, 1e-6, 20), np.linspace(n - 1, 3 * n + 50, 400),
                  np.geomspace(n + 1, 1e5, 60)]
        x = x[x > 0]
        bound = _log_gamma_tail(np.full(x.size, n), x)
        with np.errstate(divide="ignore"):
            exact = np.log(special.gammaincc(n, x))
        finite = np.isfinite(exact)
        assert (bound <= 0).all()
        worst = max(worst, float((exact - bound)[finite].max()))
    assert worst < 1e-8


def test_log_gamma_tail_of_an_infinite_statistic():
    """It was NaN (-inf + (n - 1) inf): a pair of cells of chance 0 made the pair of tasks' joint bound NaN, which
    no comparison passes; now -inf (P(Gamma(n, 1) >= inf) = 0). Finite x just past n - 1 stay clipped at 0."""
    import numpy as np

    from rlstats.statistics import _log_gamma_tail

    np.testing.assert_array_equal(_log_gamma_tail(np.array([1.0, 2, 50]), np.array([np.inf] * 3)), [-np.inf] * 3)
    np.testing.assert_array_equal(_log_gamma_tail(np.array([2.0, 50, 50]), np.array([1.0, 49.0, 49.000001])),
                                  [0.0, 0.0, 0.0])
    np.testing.assert_allclose(_log_gamma_tail(np.array([1.0, 3.0]), np.array([4.28e-12, 10.0])),
                               [-4.28e-12, -10 + 2 * np.log(10) - np.log(2) + np.log(10 / 8)], rtol=1e-13)


# ---- median26's counts in docs/calibration.md, read from the table ---------------------------------------------
def test_calibration_page_counts_of_the_two_task_rows():
    """docs/calibration.md's counts of the bootstrap's 2-task rows after median26 (whose 16 median rows on 2 tasks
    measure the median's own t interval and are no longer the default's): 15 of the default's 64 miss at 3-20 runs,
    14 of its 48 studentised; 4 of the 16 "t interval" rows. Only the total (197 of 4,982) was read by a test
    (test_audit_s10_saturated); these are read here."""
    import pathlib

    import rlstats

    page = (pathlib.Path(__file__).resolve().parents[1] / "docs" / "calibration.md").read_text(encoding="utf-8")
    page = " ".join(page.split())
    table = rlstats.calibration_table(default=True)
    # the grid's rows (not audit s28's, gapboot28, of the gap of agents below gamma: docs/calibration.md counts those)
    two = table[(table["procedure"] == "bootstrap.interval") & (table["tasks"] == 2) & (table["runs"] >= 3)
                & (table["runs"] <= 20) & table["configuration"].isna()]
    student = two[two["interval"] == "studentized"]
    full = rlstats.calibration_table()
    median = full[(full["configuration"] == "t interval") & (full["tasks"] == 2)]
    counts = (int(two["misses"].sum()), len(two), int(student["misses"].sum()), len(student),
              int(median["misses"].sum()), len(median))
    assert counts == (15, 64, 14, 48, 4, 16)
    assert f"{counts[0]} of the bootstrap's {counts[1]} on 2 tasks" in page
    assert f"miss more: {counts[2]} of the grid's {counts[3]} (below; 18 of 64 before audit s26" in page
    assert f"{counts[4]} of those {counts[5]} missed" in page


# ---- small26's headers: the summary's text, Markdown and HTML as print and LaTeX head them --------------------------
def _named_adastop():
    import warnings

    import rlstats

    df = rlstats.datasets.simulate(agents=3, tasks=1, seeds=10, effect=[0, 0.5, 1.5], rng=0)[["agent", "score", "seed"]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return rlstats.adastop(df, "score ~ agent", n=5, K=2, rng=0, reference="agent_3")


def test_adastop_summary_text_headed_as_print():
    """small26 headed AdaStop's decision table 'first agent', 'second agent' in print and LaTeX, but summary()'s
    text, Markdown and HTML still headed it agent_1 agent_2 n_1 n_2 over cells holding agents named agent_3,
    agent_1: format's one rendering of cells (_formatted); since session 27 the shared vocabulary labels head every
    format (labels27)."""
    res = _named_adastop()
    summary = res.summary()
    text = str(summary)
    decisions = text.split("Decisions:\n", 1)[1].splitlines()
    assert decisions[0].split("  ")[:2] == ["1st agent", "2nd agent"], decisions[0]
    assert "runs of 1st" in decisions[0] and "n_1" not in decisions[0]
    assert "| 1st agent | 2nd agent |" in summary.to_markdown()
    assert "<th>1st agent</th>" in summary._repr_html_()
    # the frames keep the codes (tidy() and the summary's tables)
    assert list(summary.tables["Decisions"].columns[:2]) == ["agent_1", "agent_2"]
