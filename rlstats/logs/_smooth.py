"""``smooth=``: a trailing rolling mean of each run's logged values, over a window of episodes or of steps.

An episode log (SB3's monitor.csv: one row per episode) is jagged; SB3's ``plot_results`` draws the
rolling mean over a window of 100 episodes, and its logger's ``rollout/ep_rew_mean`` is the mean of the
last 100 episodes. Here the value at each logged step becomes the mean of the run's values logged in the
window that ends there: its last ``n`` logged values (``"episodes"``), or those logged at steps in
``(step - n, step]`` (``"steps"``). Early rows average the fewer values logged so far (``plot_results``
leaves them out instead); no row is dropped. Each column is smoothed over the rows where it was logged.
"""

from __future__ import annotations

import numpy as np

from ..errors import OptionError
from ..format import format_step
from ..options import check_at_most, check_choice, check_int

UNITS = ("episodes", "steps")
#: The longest window: far beyond any run (10**12 steps), so that it only refuses numbers given by mistake.
MAX_WINDOW = 10**12


def check_smooth(smooth, smooth_over):
    """(window, unit), or None without smoothing; OptionError for a window that is not a positive whole number."""
    unit = check_choice("smooth_over", smooth_over, UNITS)
    if smooth is None:
        if unit != "episodes":
            raise OptionError(f"smooth_over={unit!r} sets the unit of smooth=, which is not given; pass the window, "
                              "e.g. smooth=10_000, smooth_over='steps'")
        return None
    window = check_at_most("smooth", check_int("smooth", smooth, minimum=1), MAX_WINDOW, unit,
                           "the window is a number of episodes or steps shorter than a run, e.g. smooth=100")
    return window, unit


def rolling_mean(values, steps, starts, stops, window, unit):
    """Trailing mean of each run's values (runs are ``values[starts[i]:stops[i]]``, steps increasing within).

    Arrays in, array out: the mean over the last ``window`` values (``"episodes"``) or over the values
    at steps in ``(step - window, step]`` (``"steps"``), fewer at the start of a run; infinite where the window
    holds an infinite value, NaN where it holds both signs.
    """
    out = np.empty(values.size)
    finite = np.isfinite(values)
    for a, b in zip(starts.tolist(), stops.tolist()):  # one loop per run; the window is found for all rows at once
        # running sums of the finite values, and counts of the infinite ones: an inf in the running sum would make
        # every later window inf - inf, NaN (audit s17), where only the windows holding it are infinite
        run = slice(a, b)
        sums = np.concatenate([[0.0], np.cumsum(np.where(finite[run], values[run], 0.0))])
        up, down = (np.concatenate([[0], np.cumsum(values[run] == sign)]) for sign in (np.inf, -np.inf))
        end = np.arange(1, b - a + 1)
        if unit == "episodes":
            begin = np.maximum(end - window, 0)
        else:
            begin = np.searchsorted(steps[run], steps[run] - window, side="right")
        mean = (sums[end] - sums[begin]) / (end - begin)
        high, low = up[end] > up[begin], down[end] > down[begin]
        out[run] = np.where(high & low, np.nan, np.where(high, np.inf, np.where(low, -np.inf, mean)))
    return out


def smooth_frame(frame, columns, window, unit, logged_values):
    """``frame`` (sorted by run then step; run fields before ``step``) with ``columns`` smoothed, and the note
    (``logged_values`` names what a window of "episodes" counts: "episodes" in a monitor.csv).

    OptionError when the window is longer than every run, so that every value would be the run's running mean.
    """
    fields = list(frame.columns[:frame.columns.get_loc("step")])
    new_run = np.zeros(len(frame), dtype=bool)
    new_run[:1] = True
    for name in fields:
        column, missing = frame[name].to_numpy(), frame[name].isna().to_numpy()
        # two missing values are one run's (NaN != NaN split a run without a field into one run a row: audit s17)
        new_run[1:] |= (column[1:] != column[:-1]) & ~(missing[1:] & missing[:-1])
    run = np.cumsum(new_run)
    steps = frame["step"].to_numpy(dtype=float)
    longest = 0.0
    out = frame.copy()
    for name in columns:
        values = frame[name].to_numpy(dtype=float)
        logged = np.flatnonzero(~np.isnan(values))
        starts = np.flatnonzero(np.r_[True, run[logged][1:] != run[logged][:-1]])
        stops = np.r_[starts[1:], logged.size]
        spans = (stops - starts) if unit == "episodes" else steps[logged][stops - 1] - steps[logged][starts] + 1
        longest = max(longest, float(spans.max(initial=0)))
        smoothed = values.copy()
        smoothed[logged] = rolling_mean(values[logged], steps[logged], starts, stops, window, unit)
        out[name] = smoothed
    word = logged_values if unit == "episodes" else "steps"
    if window >= longest:
        raise OptionError(f"smooth={window:,} {word} is at least as long as every run (the longest spans "
                          f"{format_step(longest) if unit == 'steps' else f'{longest:,.0f}'} {word}), so every value "
                          "would be the mean of the run so far; pass a shorter window, e.g. "
                          f"smooth={max(1, int(longest // 10)):_}")
    listed = ", ".join(map(repr, columns))
    span = f"{window:,} {word}" if unit == "episodes" else f"{format_step(window)} steps"
    return out, (f"{listed} smoothed: each value is the mean of its run's values logged over the last {span} up to "
                 "its step (a trailing rolling mean, as SB3's plot_results draws episode returns); early rows average "
                 "the fewer values logged so far, no row dropped; read again without smooth= for the raw values")
