"""What ``rlstats.power("bootstrap")`` plans against what ``rlstats.bootstrap()`` does: the ``power.bootstrap`` rows.

    PYTHONPATH=. python tests/reference/calibrate.py --only power.bootstrap [--jobs 2] [--quick]

(or this script with the same options). power("bootstrap") rejects when two agents' intervals of the IQM do not
overlap, the intervals being bootstrap()'s default (studentised, at level 1 - alpha), as a reader of bootstrap()'s
print decides; it computes them with 1,000 resamples from each simulated data set's own stream. Its rate is a plan
of bootstrap()'s, so each grid point measures two claims, each a row:

``statistic="size"`` (2 agents)
    With no difference (effect 0), the rule does not reject: ``coverage`` is the share of data sets on which
    power()'s rule found the two intervals overlapping, so its size is 1 - coverage (level 1 - alpha, 0.95). With
    more agents any pair apart counts and power() claims no level for that rate (its note quotes the measured one),
    so 8 agents have no size row: a row there would be read as a claim at 0.95 that only its 32 data sets let pass.
``statistic="agreement"``
    With a difference (effect 1: the last agent's runs shifted by one within-cell standard deviation of its task),
    power()'s decision on a data set is the one bootstrap() makes, called on that data set as a user would (a
    DataFrame, its defaults: 10,000 resamples, a seed of the user's, not power()'s stream): ``coverage`` is the share
    of data sets on which both separated or neither did. The planned power and the rate bootstrap() realises on the
    same data sets differ by at most 1 - coverage; :func:`measure` returns both rates too.

The data sets are power()'s own, from a pilot: ``PILOT_RUNS`` runs per agent and task of the grid's score families
(``designs.py``, agents alike, the tasks' offsets and scales from a design draw) given as ``design=``, resampled
with ``resample="pooled"`` (every agent's runs drawn from the task's pooled runs: exactly no difference, plus the
shift), so that power() plans on the families of the table (simulate()'s own have no capped or saturated scores).
bootstrap()'s data sets are rebuilt from power()'s streams (``rlstats.planning._api._drawn``, the source's draws of
the block), bit for bit those power() decides on. Grid: 2 and 8 agents, 5 and 26 tasks (on one task bootstrap()
withholds its studentised intervals and power() its rate, with a note), 3, 5 and 10 runs, and the four families of
the grid with ``saturated``; ``DESIGN_DRAWS`` draws pooled per row.

Measured (audit s11, 32 data sets a row): size 0-0.031 at 2 agents; at 8, where any of 28 pairs counts, 0-0.156 (0.092
of 240 at 8 x 26 x 10 normal runs; not tabled, see above); agreement 0.906-1, the planned power within 0.031 of the
realised at 2 agents and 0.094 (3 of 32) at 8, 0.007 on average; every row holds 0.95 by the table's 3-SE rule, one (8 x
5 x 5 normal, worst draw 5 of 8) after its continuation to ``CONTINUED`` data sets a draw. Audit s25 (cal25) measured
the six points with a row below 0.95 within 2 SE (``REMEASURED``: agreement 0.906-0.938 of 32) on 128 data sets
(the same, continued): agreement 0.938 (8 x 5 x 3 skewed, worst draw 0.875), 0.953 (8 x 5 x 3 heavy-tailed, 8 x 26 x
3 saturated) and 0.961-0.977 at 2 agents, sizes 0; the table's agreement is now 0.938-1 (2 agents: 0.961-1). Those
points' planned and realised rates were not recorded; their gap is at most 1 - agreement (0.039 at 2 agents).
"""

from __future__ import annotations

import pathlib
import runpy
import warnings

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
DESIGNS = runpy.run_path(str(HERE / "designs.py"))
PROCEDURE, ALPHA = "power.bootstrap", 0.05
LEVEL = 1 - ALPHA
#: data sets per grid point and design draw, for each row: the table's, and --quick's
SIMULATIONS = (8, 2)
#: data sets per design draw of a row that misses its level with SIMULATIONS (the same data sets, continued: power()'s
#: streams and the user's seeds are keyed by the data set's index), as the other procedures' rows are measured again
CONTINUED = 30
#: audit s25 (cal25): grid points (agents, tasks, runs, distribution) with a row below 0.95 but within 2 SE of it on
#: SIMULATIONS data sets per draw, measured on ``MORE_DATA_SETS`` times as many (the same data sets, continued)
REMEASURED = {(8, 5, 3, "skewed"), (2, 5, 5, "heavy_tailed"), (8, 5, 3, "heavy_tailed"), (2, 5, 10, "capped"),
              (2, 5, 10, "saturated"), (8, 26, 3, "saturated")}
MORE_DATA_SETS = 4
AGENTS, TASKS, RUNS = (2, 8), (5, 26), (3, 5, 10)
FAMILIES = (*DESIGNS["DISTRIBUTIONS"], *DESIGNS["EXTRA_DISTRIBUTIONS"])
#: the pilot's runs per agent and task, and the difference of the agreement rows (within-cell sd)
PILOT_RUNS, EFFECT = 20, 1.0
PLANNED_RESAMPLES = 1_000  # power()'s own (rlstats.methods.bootstrap._power.POWER_RESAMPLES)
FORMULA = "score ~ agent | task"


def pilot(distribution, agents, tasks, draw):
    """A pilot DataFrame: ``PILOT_RUNS`` runs of each of ``agents`` alike agents on ``tasks`` tasks of one draw."""
    import pandas as pd

    offset, scale = DESIGNS["design_draw"](draw, tasks)
    rng = np.random.default_rng([4711, draw, agents, tasks, FAMILIES.index(distribution)])
    z = DESIGNS["deviations"](rng, distribution, (tasks, agents, PILOT_RUNS))
    y = DESIGNS["scores"](distribution, z, 0.0, offset[:, None, None], scale[:, None, None])
    task, agent, _ = np.indices(y.shape).reshape(3, -1)
    return pd.DataFrame({"score": y.ravel(), "agent": [f"agent_{a}" for a in agent],
                         "task": [f"task_{t:02d}" for t in task]})


def _seed(*key):
    """An int seed from ``key`` (power() and bootstrap() take an int, and record it)."""
    return int(np.random.SeedSequence(key).generate_state(1)[0])


def _study(distribution, agents, tasks, runs, draw, effect, n_sim):
    """power()'s study of the pilot (its checks, source and root stream), as power() builds it."""
    from rlstats.planning import _api as planning

    seed = _seed(52, draw, agents, tasks, runs, FAMILIES.index(distribution), int(effect * 10))
    return planning._prepare("bootstrap", pilot(distribution, agents, tasks, draw), FORMULA, effect, None, None,
                             "mixed", 1.0, "pooled", None, ALPHA, n_sim, seed, 1, None, None, False, None, {})[0]


def planned(distribution, agents, tasks, runs, draw, effect, n_sim):
    """(n_sim,) power()'s decision on each of its data sets (its block runner: what power() counts)."""
    from rlstats.planning import _api as planning

    study = _study(distribution, agents, tasks, runs, draw, effect, n_sim)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        outcomes, _ = planning._run_block(study, runs, 0, n_sim)
    return outcomes["bootstrap"][0][:, 0], study


def realised(study, runs, n_sim, draw):
    """(n_sim,) whether bootstrap(), with its defaults, shows two agents' IQM intervals apart on power()'s data sets."""
    import pandas as pd

    import rlstats
    from rlstats.planning import _api as planning

    template = study.source.template(runs)
    agents, tasks = np.asarray(template.agents), np.asarray(template.tasks)
    apart = np.zeros(n_sim, dtype=bool)
    responses = planning._drawn(study, runs, 0, n_sim)  # the data sets power() counts (planned: its one block)
    for j, y in enumerate(responses):
        frame = pd.DataFrame({"score": y, "agent": agents[template.agent], "task": tasks[template.task]})
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = rlstats.bootstrap(frame, FORMULA, metrics=["iqm"], rng=_seed(9, draw, j), progress=False)
        low, high = res.intervals[:, 0, 0], res.intervals[:, 0, 1]
        apart[j] = bool(np.max(low) > np.min(high))  # a withheld (NaN) bound separates nothing, as power() reads it
    return apart


def size_row(point, n_sim):
    """The size row of ``point`` (agents, tasks, runs, distribution), ``n_sim`` data sets per design draw."""
    agents, tasks, runs, distribution = point
    held = [~planned(distribution, agents, tasks, runs, draw, 0.0, n_sim)[0] for draw in range(DESIGNS["DESIGN_DRAWS"])]
    return _row(point, "size", "effect 0", held)


def measure(point, n_sim):
    """(agreement row, planned rate, realised rate) of ``point`` on ``n_sim`` data sets per design draw."""
    agents, tasks, runs, distribution = point
    plans, done = [], []
    for draw in range(DESIGNS["DESIGN_DRAWS"]):
        decisions, study = planned(distribution, agents, tasks, runs, draw, EFFECT, n_sim)
        plans.append(decisions)
        done.append(realised(study, runs, n_sim, draw))
    row = _row(point, "agreement", f"effect {EFFECT:g}", [p == d for p, d in zip(plans, done)])
    return row, float(np.mean(plans)), float(np.mean(done))


def _row(point, statistic, configuration, held):
    agents, tasks, runs, distribution = point
    return {"statistic": statistic, "interval": "studentized", "metric": "iqm", "agents": agents, "tasks": tasks,
            "runs": runs, "distribution": distribution, "configuration": configuration,
            "n_resamples": PLANNED_RESAMPLES, **DESIGNS["pooled_row"](held, LEVEL)}


def grid(quick=False):
    """(agents, tasks, runs, distribution); --quick: 2 agents x 5 tasks, normal scores at 3 runs, saturated at 5."""
    return [(agents, tasks, runs, dist) for dist, agents, tasks, runs in DESIGNS["grid"](
        FAMILIES, AGENTS, TASKS, RUNS, quick=quick, quick_points=[("normal", 2, 5, 3), ("saturated", 2, 5, 5)])]


def table_rows(point, n_sim, quick=False):
    """The rows of one grid point for the package table (``tests/reference/calibrate.py``), each measured again on
    ``CONTINUED`` data sets per design draw where it misses its level (not with --quick)."""
    from rlstats.calibration import misses

    measured = [(lambda n: measure(point, n)[0])]
    if point[0] == 2:  # the only design whose rejection rate power() states at alpha
        measured.insert(0, lambda n: size_row(point, n))
    if not quick and tuple(point) in REMEASURED:
        n_sim *= MORE_DATA_SETS
    rows = [row_of(n_sim) for row_of in measured]
    if quick or n_sim >= CONTINUED:
        return rows
    return [row_of(CONTINUED) if misses({key: str(value) for key, value in row.items()}, LEVEL) else row
            for row_of, row in zip(measured, rows)]


def point_of(row):
    """The grid point (agents, tasks, runs, distribution) of a table row (``calibrate.replace_points``)."""
    return int(row["agents"]), int(row["tasks"]), int(row["runs"]), row["distribution"]


if __name__ == "__main__":
    runpy.run_path(str(HERE / "calibrate.py"))["run_alone"](PROCEDURE)
