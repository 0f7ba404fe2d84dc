"""marl-eval's JSON: the MARL community's log of evaluations (Mava, JaxMARL, BenchMARL write it).

The layout, as marl-eval's README and ``docs/json_tooling_usage.md`` define it and its ``JsonLogger``
writes it (to ``<path>/metrics.json``; ``concatenate_json_files`` merges such files into one)::

    {environment: {task: {algorithm: {run: {
        "step_1": {"step_count": 10000, "elapsed_time": 12.5, "return": [one value per episode], ...},
        ...,
        "absolute_metrics": {"return": [values], ...}}}}}}

Every key of a run but the absolute metrics is an evaluation (``STEP_1``, ``step_0``, ..., read in the order of
their ``step_count``, whatever the keys' order): its ``step_count`` is the step, ``elapsed_time`` (seconds, written by ``JsonLogger``) the time, and each
other key a metric, a list of values (or one number) whose mean is the row's value, as marl-eval's own
processing takes ``mean_<metric>`` (NaN where a value is NaN, infinite where one is: kept as rows, which
``read_logs``' notes count). A run key is the seed (``seed_42`` as ``JsonLogger`` names it, or
``42``); ``absolute_metrics`` (the key marl-eval finds by the word ``absolute``) hold the evaluation of
the best policy after training, read as ``absolute_metrics/<metric>`` at the run's last step.

Files are bounded before they are parsed: at most MAX_JSON_BYTES bytes and MAX_JSON_DEPTH levels of
nesting (the bound every JSON log shares).
"""

from __future__ import annotations

import json
import math
import re

import numpy as np

from ._pieces import FileProblem, from_columns
from ._tabular import _check_depth, _text, loads_json

#: The largest marl-eval file read: 512 MiB of text (about 30M values; json's objects take ~10x the text).
MAX_JSON_BYTES = 1 << 29
ABSOLUTE = "absolute_metrics/"
LAYOUT = "{environment: {task: {algorithm: {run: {step: {'step_count': n, metric: [values]}}}}}}"
_SEED = re.compile(r"seed_?(\d+)", re.IGNORECASE)


def default_tags(available):
    """Every metric logged at the evaluations; the absolute metrics offered."""
    steps = [t for t in available if not t.startswith(ABSOLUTE)]
    absolute = [t for t in available if t.startswith(ABSOLUTE)]
    sentence = (f"metrics {', '.join(map(repr, steps))} (each the mean of the values logged at an evaluation)"
                + (f"; pass tags= for the absolute metrics {', '.join(map(repr, absolute))}" if absolute else ""))
    return {t: t for t in steps}, sentence


def _object(value, where, holds):
    if not isinstance(value, dict):
        raise FileProblem("corrupt", f"{where} is {_kind(value)}, not an object of {holds}; marl-eval's layout is "
                                     f"{LAYOUT}")
    return value


def _kind(value):
    return {dict: "an object", list: "a list", str: "text"}.get(type(value), f"the {type(value).__name__} "
                                                                           f"{str(value)[:40]}")


def _mean(values, where):
    """The mean of a metric's values (a number or a non-empty list of numbers). A NaN value makes it NaN and an
    infinite one infinite (both infinities: NaN), a diverged run's evaluation kept as a row, as the text readers keep
    such values (audit s15: one NaN refused the file, every run of it, as corrupt)."""
    if type(values) in (list, int, float) and values != []:  # the common case, without numpy's overhead per list
        try:
            try:
                # fsum: exactly rounded
                return math.fsum(values) / len(values) if type(values) is list else float(values)
            except OverflowError:  # finite values whose sum is beyond the floats: divided first, it is not
                return math.fsum(v / len(values) for v in values) if type(values) is list else float(values)
        except TypeError:  # text, None, nested lists: told below
            pass
        except ValueError:  # inf - inf: no mean
            return math.nan
        except OverflowError:  # an int beyond the floats
            raise FileProblem("corrupt", f"{where} holds a number beyond the range of floats (about 1.8e308)") \
                from None
    try:
        array = np.asarray(values)
    except ValueError:  # lists of unequal lengths
        array = np.asarray([None])
    if array.ndim > 1 or array.size == 0 or array.dtype.kind not in "biuf":
        raise FileProblem("corrupt", f"{where} is {_kind(values)}, not a number or a list of numbers (one per "
                                     "episode)" + (" (it is empty)" if array.size == 0 else ""))
    with np.errstate(invalid="ignore"):  # inf - inf: NaN, as above
        return float(array.astype(float).mean())


def _step_count(value, where):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0 \
            or value != round(value):
        raise FileProblem("corrupt", f"{where}'s step_count is {str(value)[:40]!r}, not a whole number of steps")
    if value >= 2**63:  # the steps are int64: beyond it numpy raises OverflowError
        raise FileProblem("corrupt", f"{where}'s step_count is {str(value)[:40]!r}, more steps than any run takes "
                                     "(at least 2**63)")
    return int(value)


def _run_piece(environment, task, algorithm, run, logged):
    where = f"{environment}/{task}/{algorithm}/{run}"
    _object(logged, where, "evaluations")
    steps, elapsed, columns, absolute = [], [], {}, None
    for key, entry in logged.items():
        if "absolute" in key.lower():
            absolute = _object(entry, f"{where}/{key}", "metrics")
            continue
        _object(entry, f"{where}/{key}", "metrics with a step_count")
        if "step_count" not in entry:
            raise FileProblem("corrupt", f"{where}/{key} has no step_count; every evaluation of marl-eval's layout "
                                         "states the step it was run at")
        row = len(steps)
        steps.append(_step_count(entry["step_count"], f"{where}/{key}"))
        elapsed.append(np.nan)
        for metric, values in entry.items():
            if metric == "step_count":
                continue
            if metric == "elapsed_time":
                elapsed[row] = _mean(values, f"{where}/{key}/elapsed_time")
                continue
            columns.setdefault(metric, {})[row] = _mean(values, f"{where}/{key}/{metric}")
    if not steps:
        raise FileProblem("corrupt", f"{where} has no evaluation with a step_count" +
                          (", only absolute metrics, which need the step of the last one" if absolute else ""))
    # a JSON object's keys carry no order (json.dump(sort_keys=True) puts step_10 before step_2): the evaluations in
    # step order, so that they never read as a restart within the file (audit s17); stable, for evaluations at one step
    order = sorted(range(len(steps)), key=steps.__getitem__)
    if order != list(range(len(steps))):
        place = {row: i for i, row in enumerate(order)}
        steps, elapsed = [steps[row] for row in order], [elapsed[row] for row in order]
        columns = {metric: {place[row]: mean for row, mean in by_row.items()} for metric, by_row in columns.items()}
    if absolute:  # one more row, at the last step, holding the absolute metrics alone
        row = len(steps)
        steps.append(max(steps))
        elapsed.append(np.nan)
        for metric, values in absolute.items():
            columns[ABSOLUTE + metric] = {row: _mean(values, f"{where}/absolute_metrics/{metric}")}
    table, written = {}, {}
    for name, by_row in columns.items():
        table[name] = np.full(len(steps), np.nan)
        table[name][list(by_row)] = list(by_row.values())
        written[name] = np.zeros(len(steps), dtype=bool)  # a NaN mean is a value logged, not a row without one
        written[name][[row for row, mean in by_row.items() if math.isnan(mean)]] = True
    match = _SEED.fullmatch(run)
    meta = {"environment": environment, "task": task, "agent": algorithm, "seed": match.group(1) if match else run}
    elapsed = np.asarray(elapsed)
    return from_columns(np.asarray(steps, dtype=np.int64), table, meta=meta, name=where, written_nan=written,
                        time_elapsed=None if np.isnan(elapsed).all() else elapsed)


def read(path):
    """A marl-eval JSON file as one Piece per run (layout in the module docstring)."""
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise FileProblem("unreadable", exc.strerror or str(exc)) from exc
    if size > MAX_JSON_BYTES:
        raise FileProblem("unreadable", f"it has {size:,} bytes, more than the {MAX_JSON_BYTES:,} a marl-eval file "
                                        "may have; read the files marl-eval's concatenate_json_files would merge "
                                        "(a folder of them) instead")
    text = _text(path)
    _check_depth(text, "the file")
    try:
        data = loads_json(text)
    except json.JSONDecodeError as exc:
        cut = exc.pos >= len(text.rstrip())
        raise FileProblem("truncated" if cut else "corrupt",
                          f"{'the file ends inside its JSON' if cut else 'not JSON'} ({exc.msg} at line {exc.lineno}, "
                          f"column {exc.colno})") from exc
    pieces = []
    for environment, tasks in _object(data, "the file", "environments").items():
        for task, algorithms in _object(tasks, environment, "tasks").items():
            for algorithm, runs in _object(algorithms, f"{environment}/{task}", "algorithms").items():
                for run, logged in _object(runs, f"{environment}/{task}/{algorithm}", "runs").items():
                    pieces.append(_run_piece(environment, task, algorithm, run, logged))
    if not pieces:
        raise FileProblem("empty", f"no run in marl-eval's layout {LAYOUT}")
    return pieces
