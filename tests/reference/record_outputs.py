"""Record the numbers of a fixed list of public calls, so that a refactoring can show it changed none of them.

Each call runs on ``rlstats.datasets.simulate`` / ``simulate_curves`` data with a fixed ``rng``; what is kept of its
result is its p-value, statistic and degrees of freedom, the estimates and intervals it exposes, and every column
of ``tidy()`` and ``glance()`` (numbers at full precision, text as text). ``tests/test_recorded_outputs.py`` runs
the same calls on today's package and compares them with ``recorded_outputs.json``.

The recording was made at commit 44b039b, before issue 30's front door and renames (items 2 and 4)::

    git worktree add /tmp/pre30 44b039b
    cd /tmp/pre30 && PYTHONPATH=/tmp/pre30 python /work/main/tests/reference/record_outputs.py \\
        --out /work/main/tests/reference/recorded_outputs.json
    git worktree remove /tmp/pre30

Only names renamed since are adapted (``FISHER_PITMAN`` below), and defaults changed since are asked for by name
where the option exists (``_expanded_bands``: the curves' bands before issue 40). Run without ``--out`` to print a summary.

Calls whose numbers a change of random streams moved are re-recorded alone, on today's package, the others kept as
recorded; the file's ``rerecorded`` names each such call with the commit and the reason::

    PYTHONPATH=. python tests/reference/record_outputs.py --out tests/reference/recorded_outputs.json \
        --calls bootstrap/bca ... --why "audit s33 bootstream33: each cell's stream keyed by its task's name"
"""

from __future__ import annotations

import argparse
import inspect
import json
import platform
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

OUT = Path(__file__).with_name("recorded_outputs.json")

# Result attributes kept besides tidy() and glance(), where a result has them.
ATTRIBUTES = ("statistic", "pvalue", "df", "pvalue_asymptotic", "estimates", "intervals", "pointwise",
              "simultaneous", "power", "mean_ranks")


def _fisher_pitman(rlstats):
    """The permutation test of the mean difference: test="permutation" / inspector="permutation" before ab3ea4a."""
    return inspect.signature(rlstats.selection_check).parameters["inspector"].default


def _expanded_bands(rlstats):
    """The curves' bands as recorded: ``bands="expanded"`` since issue 40 made studentised bands the default."""
    return {"bands": "expanded"} if "bands" in inspect.signature(rlstats.curves).parameters else {}


def _percentile_profile(rlstats):
    """The profiles' bootstrap band as recorded: ``interval="percentile"`` since issue 40 (kind="runs") and audit s10
    (kind="tasks") made closed-form bands the defaults."""
    return {"interval": "percentile"} if "interval" in inspect.signature(rlstats.performance_profile).parameters \
        else {}


def _paper_reporter(rlstats):
    """The reporter's one-sample t as recorded: ``reporter="t"`` since issue 40 made the skewness-corrected t the
    default."""
    default = inspect.signature(rlstats.selection_check).parameters["reporter"].default
    return {"reporter": "t"} if default != "t" else {}


def _data(rlstats):
    simulate = rlstats.datasets.simulate
    return {
        "complete": simulate(agents=3, tasks=8, seeds=1, effect=1.0, rng=0),
        "small": simulate(agents=3, tasks=5, seeds=1, effect=1.0, rng=6),
        "missing": simulate(agents=4, tasks=10, seeds=1, effect=1.0, missing=0.15, rng=1),
        "runs": simulate(agents=3, tasks=5, seeds=5, effect=0.8, rng=2),
        "one_task": simulate(agents=3, tasks=1, seeds=10, effect=1.0, rng=3).drop(columns="task"),
        "two_agents": simulate(agents=2, tasks=12, seeds=4, effect=0.6, rng=4),
        "curves": rlstats.datasets.simulate_curves(agents=2, tasks=3, seeds=4, steps=6, effect=0.5, rng=5),
    }


BLOCKED = "score ~ agent | task"
RUNS = "score ~ agent | task/seed"


def calls(rlstats):
    """name -> a function of no argument returning the call's result (a Result or a DataFrame)."""
    d = _data(rlstats)
    fp = _fisher_pitman(rlstats)
    reference = pd.DataFrame({"task": [f"task_{i:02d}" for i in range(1, 6)], "random": [-1.0, 0, 0.5, 1, -2],
                              "human": [3.0, 2, 4, 5, 1]})
    selection = dict(treatment="agent_3", baseline="agent_1", reported=["task_01", "task_02"],
                     **_paper_reporter(rlstats))
    out = {
        # compare(), one back end each
        "compare/skillings_mack": lambda: rlstats.compare(d["missing"], BLOCKED, method="skillings_mack", rng=0),
        # (AdaStop's and the permutation test's calls name permutations="joint", the default when recorded: audit
        # s29b made "holm" the default)
        "compare/adastop": lambda: rlstats.compare(d["one_task"], "score ~ agent", method="adastop", n=5,
                                                   n_resamples=200, rng=0, permutations="joint"),
        "compare/permutation": lambda: rlstats.compare(d["one_task"], "score ~ agent", method="permutation",
                                                       n_resamples=300, rng=0, permutations="joint"),
        "compare/bootstrap": lambda: rlstats.compare(d["runs"], BLOCKED, method="bootstrap", n_resamples=300, rng=0,
                                                     interval="percentile"),
        # the percentile interval, the default when this was recorded (issue 40: the score interval is), bit for bit
        "compare/probability_of_improvement": lambda: rlstats.compare(
            d["runs"], BLOCKED, method="probability_of_improvement", interval="percentile", n_resamples=300, rng=0),
        # the percentile band, the default when this was recorded (issue 40: the Wilson band is), bit for bit
        "compare/performance_profile": lambda: rlstats.compare(d["runs"], BLOCKED, method="performance_profile",
                                                               interval="percentile", n_resamples=200, rng=0),
        "compare/percentiles": lambda: rlstats.compare(d["runs"], BLOCKED, method="percentiles", interval="pbp_t",
                                                       rng=0),
        "compare/selection": lambda: rlstats.compare(d["runs"], BLOCKED, method="selection", n_resamples=499, rng=0,
                                                     **selection),
        "compare/task_table": lambda: rlstats.compare(d["runs"], RUNS, method="task_table", rng=0),
        "compare/curves": lambda: rlstats.compare(d["curves"], RUNS, method="curves", step="step", compare="all",
                                                  n_resamples=200, rng=0, **_expanded_bands(rlstats)),
        "compare/default_blocks": lambda: rlstats.compare(d["complete"], BLOCKED, rng=0),
        # the blocked rank tests
        "skillings_mack/friedman": lambda: rlstats.skillings_mack(d["complete"], BLOCKED, rng=0),
        "skillings_mack/incomplete": lambda: rlstats.skillings_mack(d["missing"], BLOCKED, pvalue="asymptotic", rng=0),
        "skillings_mack/mack_skillings": lambda: rlstats.skillings_mack(d["runs"], BLOCKED, rng=0),
        "skillings_mack/monte_carlo": lambda: rlstats.skillings_mack(d["complete"], BLOCKED, pvalue="monte_carlo",
                                                                     n_resamples=500, rng=0),
        "skillings_mack/exact": lambda: rlstats.skillings_mack(d["small"], BLOCKED, pvalue="exact", rng=0),
        "skillings_mack/wilcoxon": lambda: rlstats.skillings_mack(d["complete"], BLOCKED, posthoc="wilcoxon", rng=0),
        "skillings_mack/aggregated": lambda: rlstats.skillings_mack(d["runs"], BLOCKED, variant="skillings_mack",
                                                                    within_cell="median", rng=0),
        # the stratified bootstrap and its relatives
        # interval="percentile", the default when these were recorded (issue 40 made "studentized" the default)
        "bootstrap/percentile": lambda: rlstats.bootstrap(d["runs"], BLOCKED, n_resamples=300, rng=0,
                                                          interval="percentile"),
        "bootstrap/bca": lambda: rlstats.bootstrap(d["runs"], BLOCKED, metrics=["iqm", "mean"], interval="bca",
                                                   n_resamples=300, rng=0),
        "bootstrap/expanded": lambda: rlstats.bootstrap(d["runs"], BLOCKED, metrics=["mean"], interval="expanded",
                                                        n_resamples=300, rng=0),
        # interval="percentile": the reading recorded, the default of task_bootstrap=True until audit s29 (taskboot29
        # made it "expanded_tasks", which withholds the median's interval on these 5 tasks)
        "bootstrap/tasks": lambda: rlstats.bootstrap(d["runs"], BLOCKED, metrics=["median"], task_bootstrap=True,
                                                     interval="percentile", n_resamples=300, rng=0),
        "bootstrap/rliable_compat": lambda: rlstats.bootstrap(d["runs"], RUNS, metrics=["iqm"], rliable_compat=True,
                                                              n_resamples=300, rng=0),
        "bootstrap/normalized": lambda: rlstats.bootstrap(d["runs"], BLOCKED, metrics=["mean"], normalize=reference,
                                                          n_resamples=300, rng=0, interval="percentile"),
        "probability_of_improvement/expanded": lambda: rlstats.probability_of_improvement(
            d["runs"], BLOCKED, pairs=[("agent_3", "agent_1")], interval="expanded", n_resamples=300, rng=0),
        "performance_profile/tasks": lambda: rlstats.performance_profile(
            d["runs"], BLOCKED, kind="tasks", tau=np.linspace(-1, 2, 7), n_resamples=200, rng=0,
            **_percentile_profile(rlstats)),
        # percentiles
        "percentiles/pbp": lambda: rlstats.percentiles(d["runs"], BLOCKED, rng=0),
        "percentiles/bootstrap": lambda: rlstats.percentiles(d["runs"], BLOCKED, interval="bootstrap",
                                                             n_resamples=200, rng=0),
        # AdaStop and the permutation test
        "adastop/two_interims": lambda: rlstats.adastop(d["one_task"], "score ~ agent", n=5, K=2, n_resamples=200,
                                                        rng=0, permutations="joint"),
        "adastop/tasks": lambda: rlstats.adastop(d["runs"], BLOCKED, n=5, K=1, n_resamples=200, rng=0,
                                                 permutations="joint"),
        "permutation/reference": lambda: rlstats.permutation(d["one_task"], "score ~ agent", reference="agent_1",
                                                             n_resamples=300, rng=0, permutations="joint"),
        # the selection check, with each inspector
        "selection_check/fisher_pitman": lambda: rlstats.selection_check(d["runs"], BLOCKED, inspector=fp,
                                                                         n_resamples=499, rng=0, **selection),
        "selection_check/welch": lambda: rlstats.selection_check(d["runs"], BLOCKED, inspector="welch", rng=0,
                                                                 **selection),
        "selection_check/poi": lambda: rlstats.selection_check(d["runs"], BLOCKED, effect="poi", inspector="t",
                                                               rng=0, **selection),
        # the per-task table, with each test
        "task_table/welch": lambda: rlstats.task_table(d["runs"], RUNS, rng=0),
        "task_table/mannwhitney": lambda: rlstats.task_table(d["runs"], RUNS, test="mannwhitney", rng=0),
        "task_table/brunnermunzel": lambda: rlstats.task_table(d["runs"], RUNS, test="brunnermunzel",
                                                               n_resamples=200, rng=0),
        "task_table/fisher_pitman": lambda: rlstats.task_table(d["two_agents"], RUNS, test=fp, statistic="median",
                                                               n_resamples=200, rng=0),
        "task_table/aggregate": lambda: rlstats.task_table(d["runs"], RUNS, statistic="iqm", aggregate="bootstrap",
                                                           n_resamples=200, rng=0),
        # learning curves
        "curves/mean": lambda: rlstats.curves(d["curves"], RUNS, step="step", statistic="mean", align="linear",
                                              n_resamples=200, rng=0, **_expanded_bands(rlstats)),
        "align_steps": lambda: rlstats.align_steps(d["curves"], RUNS, step="step"),
        "summarize_runs/final": lambda: rlstats.summarize_runs(d["curves"], RUNS, step="step"),
        "summarize_runs/auc": lambda: rlstats.summarize_runs(d["curves"], RUNS, step="step", how="auc",
                                                             normalize_auc=True),
        "summarize_runs/threshold": lambda: rlstats.summarize_runs(d["curves"], RUNS, step="step",
                                                                   how="time_to_threshold", threshold=0.5),
        "normalize": lambda: rlstats.normalize(d["runs"], reference),
        # power, small studies
        "power/skillings_mack": lambda: rlstats.power("skillings_mack", effect=1.0, seeds=[1, 2], tasks=5, agents=3,
                                                      n_sim=20, rng=0, progress=False),
        "power/permutation": lambda: rlstats.power("permutation", effect=1.0, seeds=4, tasks=2, agents=2, n_sim=10,
                                                   n_resamples=100, rng=0, progress=False),
        "power/adastop": lambda: rlstats.power("adastop", effect=1.0, seeds=4, tasks=1, agents=2, n_sim=10, K=2,
                                               n_resamples=100, rng=0, progress=False),
        # interval="percentile": the thesis's rule as recorded (at 3 seeds power() withholds its default; s8 calib)
        "power/bootstrap": lambda: rlstats.power("bootstrap", effect=1.0, seeds=3, tasks=3, agents=2, n_sim=5,
                                                 n_resamples=100, interval="percentile", rng=0, progress=False),
        "power/pilot": lambda: rlstats.power("skillings_mack", design=d["runs"], formula=BLOCKED, effect=0.5,
                                             seeds=3, n_sim=10, rng=0, progress=False),
    }
    return out


def _plain(value):
    """A JSON value: floats at full precision (NaN as None), arrays as nested lists, text as text."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return None if np.isnan(value) else float(value)
    if isinstance(value, np.ndarray):
        return [_plain(v) for v in value.tolist()] if value.ndim else _plain(value.item())
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if value is None or (not isinstance(value, str) and pd.isna(value)):
        return None
    return str(value)


def _frame(frame):
    """column -> its values, for every column of a DataFrame."""
    return {str(column): _plain(frame[column].to_numpy()) for column in frame.columns}


def numbers(result):
    """What is kept of one result: its attributes in ATTRIBUTES, tidy() and glance(); a DataFrame's columns."""
    if isinstance(result, pd.DataFrame):
        return {"frame": _frame(result)}
    kept = {}
    for name in ATTRIBUTES:
        value = getattr(result, name, None)
        if value is None or callable(value):
            continue
        array = np.asarray(value)
        if array.dtype.kind in "biuf":
            kept[name] = _plain(array)
    kept["tidy"] = _frame(result.tidy())
    kept["glance"] = _frame(result.glance())
    return kept


def outputs(rlstats, names=None):
    """name -> numbers(result) for every call of :func:`calls` (or those in ``names``)."""
    found = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, call in calls(rlstats).items():
            if names is None or name in names:
                found[name] = numbers(call())
    return found


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="write the JSON here (default: print a summary)")
    parser.add_argument("--calls", nargs="+", metavar="NAME",
                        help="re-record these calls alone into --out's file, keeping its other calls as recorded")
    parser.add_argument("--why", help="with --calls: why they are re-recorded (kept in the file's 'rerecorded')")
    args = parser.parse_args(argv)
    if args.calls and (args.out is None or not args.why):
        parser.error("--calls re-records into an existing --out file and needs --why")
    import rlstats

    if args.calls:
        unknown = sorted(set(args.calls) - set(calls(rlstats)))
        if unknown:
            parser.error(f"no such call: {', '.join(unknown)}")
    found = outputs(rlstats, args.calls)
    if args.out is None:
        for name, kept in found.items():
            print(name, sorted(kept))
        return
    import subprocess

    commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                            cwd=Path(rlstats.__file__).parent).stdout.strip()
    record = {"recorded_at": commit, "rlstats": rlstats.__version__, "python": platform.python_version(),
              "numpy": np.__version__, "pandas": pd.__version__, "outputs": found}
    if args.calls:
        record = json.loads(args.out.read_text(encoding="utf-8"))
        record["outputs"].update(found)
        record["rerecorded"] = {**record.get("rerecorded", {}),
                                **{name: f"{commit} ({rlstats.__version__}, numpy {np.__version__}, pandas "
                                         f"{pd.__version__}): {args.why}" for name in sorted(found)}}
        found = record["outputs"]
    # one line per call, so a change shows as the calls it touched
    lines = [f" {json.dumps(key)}: {json.dumps(value, sort_keys=True)}" for key, value in record.items()
             if key != "outputs"]
    calls_ = [f"  {json.dumps(name)}: {json.dumps(found[name], sort_keys=True)}" for name in sorted(found)]
    text = "{\n" + ",\n".join(lines + [' "outputs": {\n' + ",\n".join(calls_) + "\n }"]) + "\n}\n"
    assert json.loads(text)["outputs"] == json.loads(json.dumps(found))
    args.out.write_text(text, encoding="utf-8")
    print(f"wrote {len(args.calls or found)} calls to {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
