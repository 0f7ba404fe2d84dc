"""Audit s30 (design30): irregular designs x every back end of rlstats.compare, every printed claim checked.

Each design is simulated (rlstats.datasets.simulate, or simulate_curves for the back ends that read curves) and made
irregular: agents that never share a task, one run in some cells or in every cell of an agent, an empty cell (with
and without na_action="drop"), unused Categorical levels, NaN scores (dropped, and left to raise), a task where every
agent ties, an agent with constant scores, cells whose runs all tie with the best tied, 2 and 8 agents, one task,
one run everywhere, 2 agents on one task, 2 against 10 runs. Each back end runs on its declared contract case; its
print, summary(), tidy() and to_latex() are checked: every agent or task named exists in the analysed rows (the note
of levels with no runs aside), no count of agents or tasks exceeds the design's, and no "N runs per ..." lies outside
the cells' run counts (calibration quotes aside). A refusal is printed with its message. The flags are leads to read,
not failures: most are quotes of simulated designs.

    PYTHONPATH=. python tests/reference/irregular_designs_grid.py [method,method,...] [all]
"""
import re
import sys
import traceback
import warnings

import numpy as np

import rlstats
from rlstats.methods import DECLARATIONS

warnings.simplefilter("ignore")


def base(curves, agents=3, tasks=6, seeds=4, rng=0):
    if curves:
        return rlstats.datasets.simulate_curves(agents=agents, tasks=tasks, seeds=seeds, steps=5, effect=0.5, rng=rng)
    return rlstats.datasets.simulate(agents=agents, tasks=tasks, seeds=seeds, effect=1.0, rng=rng)


def drop_rows(df, mask):
    return df[~mask].reset_index(drop=True)


def designs(curves):
    d = {}
    d["regular"] = (base(curves), {})
    df = base(curves, agents=4)
    lo = df.task.isin(["task_01", "task_02", "task_03"])
    d["disconnected"] = (drop_rows(df, (df.agent.isin(["agent_1", "agent_2"]) & ~lo)
                                   | (df.agent.isin(["agent_3", "agent_4"]) & lo)), {})
    df = base(curves)
    d["one_run_cells"] = (drop_rows(df, (df.seed > 0) & (((df.agent == "agent_1") & df.task.isin(["task_01", "task_02", "task_03"]))
                                                          | ((df.agent == "agent_2") & (df.task == "task_04")))), {})
    df = base(curves)
    d["one_run_agent"] = (drop_rows(df, (df.seed > 0) & (df.agent == "agent_3")), {})
    df = base(curves)
    d["empty_cell"] = (drop_rows(df, (df.agent == "agent_2") & (df.task == "task_03")), {})
    d["empty_cell_drop"] = (d["empty_cell"][0], {"na_action": "drop"})
    df = base(curves, agents=4, tasks=7)
    d["unused_levels"] = (drop_rows(df, (df.agent == "agent_4") | (df.task == "task_07")), {})
    df = base(curves)
    df.loc[df.index[[3, 30, 50]], "score"] = np.nan
    d["nan_drop"] = (df, {"na_action": "drop"})
    df = base(curves)
    df.loc[df.task == "task_02", "score"] = 7.0
    d["tie_task"] = (df, {})
    df = base(curves)
    m = df.agent == "agent_2"
    df.loc[m, "score"] = df.loc[m, "task"].cat.codes.astype(float) * 3.0
    d["constant_agent"] = (df, {})
    d["two_agents"] = (base(curves, agents=2), {})
    d["eight_agents"] = (base(curves, agents=8, seeds=3), {})
    d["one_task"] = (base(curves, tasks=1, seeds=5), {})
    df = base(curves)
    for agent, value in (("agent_1", 3.0), ("agent_2", 5.0), ("agent_3", 5.0)):
        df.loc[(df.task == "task_02") & (df.agent == agent), "score"] = value
    d["const_cells_tie_best"] = (df, {})
    df = base(curves)
    df.loc[df.index[[3, 30]], "score"] = np.nan
    d["nan_raise"] = (df, {})
    d["one_run_everywhere"] = (base(curves, seeds=1), {})
    d["two_agents_one_task"] = (base(curves, agents=2, tasks=1, seeds=6), {})
    df = base(curves, seeds=10)
    d["runs_2_vs_10"] = (drop_rows(df, (df.agent == "agent_1") & (df.seed >= 2)), {})
    return d


def calls(name, df):
    formula, options = DECLARATIONS[name].contract
    options = dict(options)
    agents = sorted(df.agent.unique())
    tasks = sorted(df.task.unique())
    if name == "selection":
        options.update(treatment=agents[-1], baseline=agents[0], reported=tasks[:min(3, len(tasks))])
    if name == "mixed":
        formula = "score ~ agent | task/seed" if "step" not in df else formula
    return formula, options


NAME = re.compile(r"\b(agent_\d+|task_\d+)\b")
COUNT = re.compile(r"\b(\d+) (agents|tasks)\b")
RUNS = re.compile(r"\b(\d+) runs? (?:\(seeds\) )?(?:per agent and task|per cell|per agent|in every)")


def outputs(res):
    out = {}
    for part, f in (("print", lambda: str(res)), ("summary", lambda: str(res.summary())),
                    ("tidy", lambda: res.tidy().to_string()), ("latex", lambda: res.to_latex())):
        try:
            out[part] = f()
        except Exception as e:  # noqa
            out[part] = f"!!! {type(e).__name__}: {e}"
    return out


def check(df, out):
    agents = set(df.dropna(subset=["score"]).agent.astype(str).unique())
    tasks = set(df.dropna(subset=["score"]).task.astype(str).unique())
    flags = []
    cells = df.dropna(subset=["score"]).groupby(["agent", "task"], observed=True).size()
    if "step" in df:
        cells = df.dropna(subset=["score"]).groupby(["agent", "task"], observed=True).seed.nunique()
    for part, text in out.items():
        if not text.startswith("!!!"):
            for line in text.splitlines():
                for m in RUNS.finditer(line):
                    if not cells.min() <= int(m.group(1)) <= cells.max() and "simulat" not in line and "measured" not in line:
                        flags.append(f"{part}: runs {m.group(1)} outside {cells.min()}-{cells.max()}: {line.strip()[:200]}")
        if text.startswith("!!!"):
            flags.append(f"{part}: {text[:300]}")
            continue
        for line in text.splitlines():
            for m in NAME.finditer(line):
                if m.group(1) not in agents | tasks and "with no runs left out" not in line:
                    flags.append(f"{part}: unknown name {m.group(1)}: {line.strip()[:200]}")
                    break
            for m in COUNT.finditer(line):
                n, what = int(m.group(1)), m.group(2)
                if n > len(agents if what == "agents" else tasks):
                    flags.append(f"{part}: count {n} {what} > {len(agents if what == 'agents' else tasks)}: {line.strip()[:200]}")
    return flags


def run(only=None, show=None):
    for curves_mode in (False, True):
        ds = designs(curves_mode)
        for name, declared in DECLARATIONS.items():
            if declared.reads_curves != curves_mode:
                continue
            if only and name not in only:
                continue
            for dname, (df, extra) in ds.items():
                formula, options = calls(name, df)
                options = {**options, **extra, "progress": False, "rng": 1}
                try:
                    res = rlstats.compare(df, formula, method=name, **options)
                except rlstats.RlstatsError as e:
                    print(f"[{name:>26} x {dname:<16}] REFUSED {type(e).__name__}: {str(e)[:250]}")
                    continue
                except Exception as e:
                    print(f"[{name:>26} x {dname:<16}] CRASH {type(e).__name__}: {e}")
                    traceback.print_exc(limit=3)
                    continue
                out = outputs(res)
                flags = check(df, out)
                print(f"[{name:>26} x {dname:<16}] ok, {len(flags)} flags")
                for f in flags[:8]:
                    print("     ", f)
                if show and (name, dname) in show or show == "all":
                    for part, text in out.items():
                        print(f"----- {part}\n{text}")


if __name__ == "__main__":
    only = sys.argv[1].split(",") if len(sys.argv) > 1 and sys.argv[1] else None
    show = "all" if len(sys.argv) > 2 and sys.argv[2] == "all" else None
    run(only, show)


def show(name, dname, parts=("print", "summary", "tidy", "latex"), **more):
    curves = DECLARATIONS[name].reads_curves
    df, extra = designs(curves)[dname]
    formula, options = calls(name, df)
    options = {**options, **extra, "progress": False, "rng": 1, **more}
    res = rlstats.compare(df, formula, method=name, **options)
    out = outputs(res)
    for part in parts:
        print(f"===== {name} x {dname}: {part}\n{out[part]}")
    return res
