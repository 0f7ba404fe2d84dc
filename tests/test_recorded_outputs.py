"""Every public call gives the numbers it gave before issue 30's refactoring (recorded at commit 44b039b).

``tests/reference/record_outputs.py`` holds the calls and wrote ``tests/reference/recorded_outputs.json`` from
that commit; here the same calls run on today's package. Numbers agree to rtol 1e-6 (text exactly; the oldest allowed numpy and scipy differ by up to 2e-7); a number
that changed on purpose since is listed in CHANGED with the commit that changed it and its value today.
"""

import json
import math
import runpy
from pathlib import Path

import pytest

import rlstats

# run from its path, as the other reference scripts are: tests/ need not be importable
record_outputs = runpy.run_path(str(Path(__file__).parent / "reference" / "record_outputs.py"))
RECORDED = json.loads(record_outputs["OUT"].read_text(encoding="utf-8"))["outputs"]

# What changed on purpose since the recording: (call, part, column) -> (commit, why, today's values).
_RENAMED = ("ab3ea4a", "inspector='permutation' was renamed 'fisher_pitman' (issue 30, item 4: 'permutation' names "
            "the step-down back end)", ["fisher_pitman"])
_CANONICAL = ("9c5d6ac", "the permutation test relabels each cell's runs in score order, not in the rows' order, so "
              "that a shuffle of the rows draws the same relabellings (issue 39, item 4); Monte Carlo p-values of "
              "300 relabellings move within their error")
CHANGED = {
    ("compare/selection", "glance", "inspector"): _RENAMED,
    ("selection_check/fisher_pitman", "glance", "inspector"): _RENAMED,
    # issue 39 item 4: a canonical order before the random stream
    ("compare/permutation", "pvalue", None): _CANONICAL + ([0.12, 0.05, 0.6366666666666667],),
    ("compare/permutation", "tidy", "p_adjusted"): _CANONICAL + ([0.12, 0.05, 0.6366666666666667],),
    ("permutation/reference", "pvalue", None): _CANONICAL + ([0.06666666666666667, 0.03],),
    ("permutation/reference", "tidy", "p_adjusted"): _CANONICAL + ([0.06666666666666667, 0.03],),
    ("permutation/reference", "tidy", "decision"): _CANONICAL + (["equal", "smaller"],),
    ("permutation/reference", "glance", "n_equal"): _CANONICAL + ([1],),
    ("permutation/reference", "glance", "n_rejected"): _CANONICAL + ([1],),
    # session 17: power() states the level the exact rank test can spend, its largest attainable p-value at most
    # alpha: 17 / 432 for 3 agents x 5 tasks x 1 seed (enumerated in tests/test_audit_s17_prov17.py); at 2 seeds its
    # p-value is chi-squared, no level stated
    ("power/skillings_mack", "tidy", "level_spent"): (
        "session 17 (prov17)", "the exact rank test's level spent, enumerated", [17 / 432, None]),
    # issue 41 item 3: Skillings-Mack's statistic on a complete design's cell values is Friedman's, named so
    ("skillings_mack/aggregated", "glance", "method"): (
        "issue 41 item 3", "the header names what was computed: Friedman's statistic on a complete design's cell "
        "medians", ["Friedman rank sum test on cell medians"]),
}
# issue 39 item 4: AdaStop takes each batch's runs in score order (they are exchangeable; rlstats.AdaStop fed the
# same batches must agree), so the random relabellings act on other positions. This two-interim call sits at a
# boundary (200 relabellings): one pair was decided 'smaller' at the first interim and now runs to the second, 'equal'.
_BATCH_ORDER = ("issue 39", "each batch's runs in score order before the random relabellings")
for _call in ("adastop/two_interims", "compare/adastop"):
    CHANGED.update({
        (_call, "glance", "n_equal"): _BATCH_ORDER + ([3],),
        (_call, "glance", "n_rejected"): _BATCH_ORDER + ([0],),
        (_call, "tidy", "decision"): _BATCH_ORDER + (["equal", "equal", "equal"],),
        (_call, "tidy", "estimate"): _BATCH_ORDER + ([-0.9469469432943232, -1.221961027060689, -0.27501408376636594],),
        (_call, "tidy", "interim"): _BATCH_ORDER + ([2, 2, 2],),
        (_call, "tidy", "n_1"): _BATCH_ORDER + ([10, 10, 10],),
        (_call, "tidy", "n_2"): _BATCH_ORDER + ([10, 10, 10],),
    })


def _exact_hedges_correction(call, column):
    """Hedges' g and its limits as recorded, rescaled from the approximate J = 1 - 3 / (4 (n + m) - 9) to the exact
    J = Gamma(df / 2) / (sqrt(df / 2) Gamma((df - 1) / 2)), df = n + m - 2, of each row against its task's best."""
    tidy = RECORDED[call]["tidy"]
    best_runs = {task: runs for task, runs, best in zip(tidy["task"], tidy["n_runs"], tidy["best"]) if best}
    out = []
    for value, task, runs in zip(tidy[column], tidy["task"], tidy["n_runs"]):
        df = best_runs[task] + runs - 2
        exact = math.gamma(df / 2) / (math.sqrt(df / 2) * math.gamma((df - 1) / 2))
        out.append(None if value is None else value * exact / (1 - 3 / (4 * (df + 2) - 9)))
    return out


# issue 39 item 7: Hedges' g uses the exact small-sample correction, as R's effectsize (0.8.0 and later) does
for _call in ("compare/task_table", "task_table/aggregate", "task_table/brunnermunzel", "task_table/fisher_pitman",
              "task_table/mannwhitney", "task_table/welch"):
    for _column in ("hedges_g", "hedges_g_low", "hedges_g_high"):
        CHANGED[_call, "tidy", _column] = (
            "953f974", "Hedges' g and its limits take the exact J in place of 1 - 3 / (4 (n + m) - 9)",
            _exact_hedges_correction(_call, _column))


def _fcr_effect_intervals(call):
    """The default effect-size limits of issue 40 (``effect_intervals="fcr"``) from the recorded estimates: A12's
    score-type limits and delta's noncentral-t limits (g / J times sqrt(n m / (n + m)) inverted, not times J), at
    1 - 2 (1 - 0.95) / k for the k agents of each task, widened by the runs' kurtosis (issue 40, effect-size item)."""
    import numpy as np

    from rlstats.methods.task_table import _kernels

    tidy = RECORDED[call]["tidy"]
    best_runs = {task: runs for task, runs, best in zip(tidy["task"], tidy["n_runs"], tidy["best"]) if best}
    best_agent = {task: agent for task, agent, best in zip(tidy["task"], tidy["agent"], tidy["best"]) if best}
    agents = {task: sum(1 for t, runs in zip(tidy["task"], tidy["n_runs"]) if t == task and runs > 0)
              for task in tidy["task"]}
    # the recorded task_table calls read record_outputs.py's d["runs"], "task_table/fisher_pitman" d["two_agents"]
    data = record_outputs["_data"](rlstats)["two_agents" if call == "task_table/fisher_pitman" else "runs"]
    scores = data.groupby(["task", "agent"])["score"].apply(np.asarray)
    out = {column: [] for column in ("a12_low", "a12_high", "hedges_g_low", "hedges_g_high")}
    for a12, g, task, runs, agent in zip(tidy["a12"], _exact_hedges_correction(call, "hedges_g"), tidy["task"],
                                         tidy["n_runs"], tidy["agent"]):
        if tidy["a12_low"][len(out["a12_low"])] is None and tidy["hedges_g_low"][len(out["a12_low"])] is None:
            for column in out:
                out[column].append(None)
            continue
        n, m = best_runs[task], runs
        level = float(_kernels.fcr_level(0.95, agents[task]))
        low, high = _kernels.a12_score_limits(np.array([a12]), n, m, level)
        root = math.sqrt(n * m / (n + m))
        t = g / _kernels.hedges_correction(n + m - 2) * root
        g_low, g_high = _kernels.noncentral_t_limits(np.array([t]), np.array([n + m - 2.0]), level)
        # issue 40: widened around d = t / root by sqrt(max(1, V / V_normal)), V = 1/n + 1/m + d^2 (kurtosis - 1) /
        # (4 (n + m - 2)) with the pooled kurtosis of the residuals about each agent's mean (kurtosis 3: V_normal)
        x, y = scores[task, best_agent[task]], scores[task, agent]
        residual = np.concatenate([x - x.mean(), y - y.mean()])
        kurtosis = np.mean(residual ** 4) / np.mean(residual ** 2) ** 2
        d = t / root
        stretch = math.sqrt(max(1.0, (1 / n + 1 / m + d * d * (kurtosis - 1) / (4 * (n + m - 2)))
                                / (1 / n + 1 / m + d * d / (2 * (n + m - 2)))))
        g_low, g_high = d + stretch * (g_low / root - d), d + stretch * (g_high / root - d)
        for column, value in zip(out, (low[0], high[0], g_low[0], g_high[0])):
            out[column].append(float(value))
    return out


# issue 40 item 1: the default effect-size intervals are the score-type A12 and the exact noncentral-t intervals,
# adjusted for the choice of each task's best; effect_intervals="per_pair" gives the recorded ones
for _call in ("compare/task_table", "task_table/aggregate", "task_table/brunnermunzel", "task_table/fisher_pitman",
              "task_table/mannwhitney", "task_table/welch"):
    for _column, _values in _fcr_effect_intervals(_call).items():
        CHANGED[_call, "tidy", _column] = ("issue 40", "effect-size intervals at their level, effect_intervals='fcr' "
                                           "(Hedges' g's widened by the runs' kurtosis)",
                                           _values)


def _joint_difference_intervals(call):
    """The difference-of-means interval at the effect sizes' level (audit s32 equivtab32): each recorded 95% Welch
    interval rescaled about its middle, se = (high - low) / (2 t(0.975, df)) and half-width t(1/2 + L/2, df) se at
    L = 1 - 2 (1 - 0.95) / k for the k agents of the row's task (scipy's t quantiles; 2 agents keep 0.95)."""
    from scipy import stats

    tidy = RECORDED[call]["tidy"]
    agents = {task: sum(1 for t, runs in zip(tidy["task"], tidy["n_runs"]) if t == task and runs > 0)
              for task in tidy["task"]}
    out = {"diff_low": [], "diff_high": []}
    for low, high, df, task in zip(tidy["diff_low"], tidy["diff_high"], tidy["welch_df"], tidy["task"]):
        if low is None:
            out["diff_low"].append(None)
            out["diff_high"].append(None)
            continue
        level = 1 - 2 * (1 - 0.95) / max(agents[task], 2)
        half = (high - low) / 2 / stats.t.ppf(0.975, df) * stats.t.ppf(0.5 + level / 2, df)
        out["diff_low"].append((low + high) / 2 - half)
        out["diff_high"].append((low + high) / 2 + half)
    return out


# audit s32 (equivtab32): the difference of means' interval at the joint level the note gives every effect-size
# interval of a task (it stayed at 95% per pair beside A12's and g's)
for _call in ("compare/task_table", "task_table/aggregate", "task_table/brunnermunzel", "task_table/fisher_pitman",
              "task_table/mannwhitney", "task_table/welch"):
    for _column, _values in _joint_difference_intervals(_call).items():
        CHANGED[_call, "tidy", _column] = ("audit s32", "the difference's interval at the effect sizes' joint level",
                                           _values)


def _one_sided_intervals(call):
    """The selection check's intervals made one-sided from the recorded two-sided ones: each row's ``(mid - q95 se,
    inf)``, se = (high - low) / (2 q975), Student's t with the row's df; the permutation inspector's is its test
    inverted, whose lower end is -inf here: with 2 of 5 tasks reported the smallest p-value, 1 / C(5, 2) = 0.1, is
    above 0.05, so no shift is rejected."""
    from scipy import stats

    tidy = RECORDED[call]["tidy"]
    lows = []
    for low, high, df, method in zip(tidy["conf_low"], tidy["conf_high"], tidy["df"], tidy["method"]):
        if method == "permutation test over task labels":
            lows.append(-math.inf)
            continue
        se = (high - low) / (2 * stats.t.ppf(0.975, df))
        lows.append((low + high) / 2 - stats.t.ppf(0.95, df) * se)
    return {"conf_low": lows, "conf_high": [math.inf] * len(lows)}


# session 15: the selection check's intervals are one-sided, (low, inf), as its tests are (alternative="greater")
for _call in ("compare/selection", "selection_check/fisher_pitman", "selection_check/poi", "selection_check/welch"):
    for _column, _values in _one_sided_intervals(_call).items():
        CHANGED[_call, "tidy", _column] = ("session 15", "one-sided intervals, on the side of the one-sided tests",
                                           _values)

def test_per_pair_effect_intervals_are_those_recorded():
    # the data of record_outputs.py's "task_table/welch" call (its d["runs"])
    call = "task_table/welch"
    data = rlstats.datasets.simulate(agents=3, tasks=5, seeds=5, effect=0.8, rng=2)
    tidy = rlstats.task_table(data, "score ~ agent | task/seed", rng=0, effect_intervals="per_pair").tidy()
    assert _differences(RECORDED[call]["tidy"]["a12"], [None if v != v else v for v in tidy["a12"]]) == []
    for column in ("a12_low", "a12_high"):
        assert _differences(RECORDED[call]["tidy"][column], [None if v != v else v for v in tidy[column]]) == []
    for column in ("hedges_g_low", "hedges_g_high"):
        assert _differences(_exact_hedges_correction(call, column),
                            [None if v != v else v for v in tidy[column]]) == []


def _differences(recorded, today, where=""):
    """Paths at which two JSON values differ: numbers beyond rtol 1e-6, text, None or lengths exactly."""
    if isinstance(recorded, dict) and isinstance(today, dict):
        found = [f"{where}/{key}: missing today" for key in recorded if key not in today]
        return found + [d for key in recorded if key in today
                        for d in _differences(recorded[key], today[key], f"{where}/{key}")]
    if isinstance(recorded, list) and isinstance(today, list):
        if len(recorded) != len(today):
            return [f"{where}: {len(recorded)} values recorded, {len(today)} today"]
        return [d for i, (r, t) in enumerate(zip(recorded, today)) for d in _differences(r, t, f"{where}[{i}]")]
    numbers = (int, float)
    if isinstance(recorded, numbers) and isinstance(today, numbers) and not isinstance(recorded, bool) \
            and not isinstance(today, bool):
        # 1e-6: the oldest allowed numpy and scipy (CI) differ from the recording's in special functions and
        # root finding by up to 2e-7 relative; a refactoring slip moves numbers far more
        close = math.isclose(recorded, today, rel_tol=1e-6, abs_tol=1e-12)
        return [] if close else [f"{where}: {recorded!r} -> {today!r}"]
    return [] if recorded == today else [f"{where}: {recorded!r} -> {today!r}"]


@pytest.fixture(scope="module")
def today():
    return record_outputs["outputs"](rlstats)


def test_every_recorded_call_runs_today(today):
    assert sorted(today) == sorted(RECORDED)


# audit s32 curves32, s33 curvestream33 and s32 simband32: curves() draws each agent's (pair's) resamples from streams
# keyed by its labels, a stream a cell (agent, task), and reads its sup-t band's tail at most at Bonferroni's; its 2
# calls (compare/curves, curves/mean) were re-recorded on today's package (record_outputs.py --calls, audit s34
# repin34b), and the diff moved their bands, standard errors and effective df alone (df, pointwise, simultaneous,
# tidy's conf_low, conf_high, conf_low/high_simultaneous and std_error; estimates and every other part as recorded):
# e.g. curves/mean's first agent's last pointwise band [1.7725, 3.7402] -> [1.7575, 3.5917]. (Until audit s34 they ran
# here under the former keys and band, a path the package no longer has.)

# audit s33 bootstream33: the stratified bootstrap draws each cell (agent, task) from its own stream keyed by the
# agent's and the task's labels (each agent's whole rows from one stream before, laid out over the tasks in their
# names' sorted order), which moved the intervals read off the resamples and nothing else: its 8 calls
# (bootstrap/bca, bootstrap/expanded, bootstrap/normalized, bootstrap/percentile, compare/bootstrap,
# compare/performance_profile, compare/probability_of_improvement, probability_of_improvement/expanded) were
# re-recorded on today's package (record_outputs.py --calls; the file's "rerecorded" names them), and the diff moved
# their intervals (intervals, conf_low, conf_high) alone: e.g. bootstrap/percentile's first agent's IQM [8.5257,
# 9.7660] -> [8.4897, 9.7227], and 8 of compare/performance_profile's 270 band ends by one or two of its 25 runs'
# steps; the optimality gap's estimates by one unit in the last place (audit s24's max(gamma - score, 0) summed).
# (Until audit s34 they ran here under the former streams, a path the package no longer has.)


@pytest.mark.parametrize("call", sorted(RECORDED))
def test_the_numbers_are_those_recorded(call, today):
    assert _found(call, today) == []


#: columns renamed on purpose since the recording: (call, part, recorded name) -> today's name, the same numbers.
#: New-user trial s38 (fixb38): task_table's p_adjusted, the smallest adjusted p-value of any agent against the row's,
#: read as R's p.adjust() of the p_value beside it (which it can be below): now p_exclusion.
RENAMED_COLUMNS = {(call, "tidy", "p_adjusted"): "p_exclusion" for call in (
    "compare/task_table", "task_table/aggregate", "task_table/brunnermunzel", "task_table/fisher_pitman",
    "task_table/mannwhitney", "task_table/welch")}


def _found(call, today):
    found = []
    for part, recorded in RECORDED[call].items():
        columns = recorded.items() if part in ("tidy", "glance", "frame") else [(None, recorded)]
        for column, values in columns:
            named = RENAMED_COLUMNS.get((call, part, column), column)
            now = today[call].get(part, {}).get(named) if column is not None else today[call].get(part)
            if (call, part, column) in CHANGED:
                values = CHANGED[call, part, column][2]
            if now is None and values is not None:
                found.append(f"{part}/{column}: missing today")
                continue
            found += [f"{part}/{column}{d}" for d in _differences(values, now)]
    return found


def test_the_comparison_sees_a_change():
    assert _differences({"a": [1.0, None, "x"]}, {"a": [1.0 + 1e-8, None, "x"]}) == []
    assert _differences({"a": [1.0]}, {"a": [1.0 + 1e-5]}) == ["/a[0]: 1.0 -> 1.00001"]
    assert _differences({"a": [1.0, 2.0]}, {"a": [1.0]}) == ["/a: 2 values recorded, 1 today"]
    assert _differences({"a": "x", "b": 1}, {"a": "y"}) == ["/b: missing today", "/a: 'x' -> 'y'"]
