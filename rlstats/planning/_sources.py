"""Where a power study's data sets come from: datasets.simulate()'s model or a resampled pilot."""

from __future__ import annotations

import dataclasses
import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from .. import datasets as datasets_module
from ..resampling import agent_seed_sequence, cell_seed_sequence, child_stream
from ..simulation import family_noise, task_locations
from .. import format as fmt
from ..design import Design, check_agent_named, design_of
from ..errors import DesignError, OptionError, agent_named, as_given, shown
from ..formula import Formula, parse
from ..options import check_choice


#: how a pilot is resampled: each agent from its own runs, or every agent from the task's pooled runs
RESAMPLE = ("agents", "pooled")

#: formula of simulated data
SIMULATED_FORMULA = "score ~ agent | task"

#: seconds a standardised value of each score family takes to draw (rlstats.simulation's families, measured 50 x 10 x
#: 2,000 at once, audit s35 power35), and to place in a data set (_VALUE_SECONDS)
FAMILY_SECONDS = {"normal": 1.1e-8, "lognormal": 1.4e-8, "t": 2.8e-8, "beta": 3.7e-8, "mixture": 1.9e-8}
_VALUE_SECONDS = 3e-9

#: data sets a block of a pilot cell's stream holds, and a block of simulated data sets: data set j's runs are row
#: j % DRAW_BLOCK of its block j // DRAW_BLOCK (power()'s blocks of work, _BLOCK, are a different number: a data
#: set's runs depend on neither)
DRAW_BLOCK = 50


def _simulation_seed(root, seeds, index):
    """Stream of simulation ``index`` for ``seeds`` runs per cell: independent of blocks and workers (the methods'
    streams are below it, each its rule's key; simulated data sets are drawn a block at a time, :func:`_block_seed`)."""
    return child_stream(root, seeds, index)


#: the key below (root, seeds) of the blocks of simulated data sets: past any data set's index (power()'s
#: MAX_SIMULATIONS), so that no block's stream is a data set's or one below it (the methods')
_BLOCKS_KEY = 2**32 - 1


def _block_seed(root, seeds, block):
    """Stream of block ``block`` of :data:`DRAW_BLOCK` simulated data sets with ``seeds`` runs per cell."""
    return child_stream(root, seeds, _BLOCKS_KEY, block)


@dataclass(frozen=True, eq=False)
class _SimulatedSource:
    """Benchmark-like data sets from :func:`rlstats.datasets.simulate`'s model (:mod:`rlstats.simulation`), drawn a
    block of :data:`DRAW_BLOCK` data sets at a time."""

    formula: Formula
    agents: tuple
    tasks: tuple
    families: tuple
    heterogeneity: float
    shifts: np.ndarray

    kind: ClassVar[str] = "simulate"
    #: continuous draws: ties have probability zero (power()'s estimate counts one exact null a design)
    untied: ClassVar[bool] = True

    @property
    def cells(self):
        """Agent-task cells of a data set (each gets ``seeds`` runs)."""
        return len(self.tasks) * len(self.agents)

    def template(self, seeds):
        return Design.from_counts(self.formula, self.agents, self.tasks,
                         np.full((len(self.tasks), len(self.agents)), seeds))

    def draws(self, root, seeds, start, stop):
        """Responses of data sets ``start`` to ``stop - 1`` below ``root``, (data sets, runs), runs in design order
        (task, agent, run).

        Block b of :data:`DRAW_BLOCK` data sets is drawn whole from its stream (:func:`_block_seed`), as simulate()
        draws one data set from its root: its child 0 the tasks' locations, ``task_locations(..., replicates=
        DRAW_BLOCK)``, its child 1 the noise, task after task ``family_noise(gen, family, (DRAW_BLOCK, agents,
        seeds))``; data set j is row j % DRAW_BLOCK of block j // DRAW_BLOCK. So a data set's runs are a function
        of rng=, seeds and j alone: of no batching, worker or backend, and the same drawn alone (the dry run's data
        set 0). A block is drawn whole even where fewer of its data sets are asked for (mixture scores and the
        locations draw two arrays a call, so a shorter block would draw other numbers); a Python loop over the
        tasks, never over the data sets (audit s35 power35: one data set at a time, two Generators each)."""
        n_agents, n_tasks = len(self.agents), len(self.tasks)
        out = np.empty((stop - start, n_tasks, n_agents, seeds))  # the one array of the range's size
        shifts = self.shifts[None, :, None]
        for block in range(start // DRAW_BLOCK, -(-stop // DRAW_BLOCK)):
            low, high = block * DRAW_BLOCK, min(stop, (block + 1) * DRAW_BLOCK)
            kept = slice(max(start, low) - low, high - low)  # the block's rows asked for
            rows = slice(max(start, low) - start, high - start)
            stream = _block_seed(root, seeds, block)
            offset, scale = task_locations(np.random.default_rng(child_stream(stream, 0)), n_tasks,
                                           self.heterogeneity, replicates=DRAW_BLOCK)
            noise_gen = np.random.default_rng(child_stream(stream, 1))
            for t, family in enumerate(self.families):  # a task's draws at a time: the block's size / tasks
                z = family_noise(noise_gen, family, (DRAW_BLOCK, n_agents, seeds))[kept]
                z += shifts  # in place: offset + scale * (shift + z), simulate()'s sum
                z *= scale[kept, t, None, None]
                z += offset[kept, t, None, None]
                out[rows, t] = z
        return out.reshape(stop - start, -1)

    def draw_seconds(self, shape, n_sim):
        """Estimated seconds drawing ``n_sim`` data sets of this shape takes (:meth:`draws`): each block of
        :data:`DRAW_BLOCK` drawn whole, whatever its data sets asked for (the dry run's one is a block), its two
        streams, a call a task and each value by its task's family (:data:`FAMILY_SECONDS`). Audit s35 power35,
        a block at 2-10 agents x 1-2,000 tasks x 1-1,000 seeds: 0.05 ms at 2 x 1 x 3, 0.15 at 3 x 5 x 5, 2.6 at
        8 x 26 x 10, 35 at 10 x 57 x 50, 19 at 2 x 2,000 x 1 (load 8-11)."""
        blocks = -(-n_sim // DRAW_BLOCK)
        per_value = _VALUE_SECONDS + float(np.mean([FAMILY_SECONDS[f] for f in self.families]))
        return blocks * (4e-5 + 7e-6 * shape.tasks + DRAW_BLOCK * per_value * shape.rows)

    def describe(self):
        families = sorted(set(self.families))
        return {"source": "simulate", "agents": list(self.agents), "tasks": list(self.tasks),
                "distribution": dict(zip(self.tasks, self.families)), "heterogeneity": self.heterogeneity,
                "effect": dict(zip(self.agents, self.shifts.tolist())),
                "families": families}

    def data_name(self):
        kinds = sorted(set(self.families))
        family = kinds[0] if len(kinds) == 1 else "mixed " + "/".join(kinds)
        return (f"simulated: {fmt.count(len(self.agents), 'agent')} x {fmt.count(len(self.tasks), 'task')} "
                f"({family} scores, heterogeneity {fmt.signif(self.heterogeneity)})")


@dataclass(frozen=True, eq=False)
class _PilotSource:
    """Runs drawn with replacement from a pilot's runs, with a shift added to one agent."""

    formula: Formula
    agents: tuple
    tasks: tuple
    present: np.ndarray       # (n_tasks, n_agents) bool: cells with runs in the pilot
    pools: tuple              # pools[t][a]: the pilot's runs of agent a on task t (None when absent)
    task_pools: tuple         # all runs of task t
    shift: np.ndarray         # (n_tasks, n_agents) added to every drawn run
    resample: str
    pilot_name: str
    pilot_counts: np.ndarray
    task_sd: np.ndarray
    shifted_agent: str
    notes: tuple              # what building the pilot did (rows dropped by na_action="drop")
    name_order: np.ndarray    # the cells with runs (in the design's order) in their names' sorted order
    normalized: bool          # the pilot's scores are normalised, so the data sets drawn from them are too

    kind: ClassVar[str] = "pilot"
    #: runs drawn with replacement repeat, and repeats tie (power()'s estimate counts an exact null a data set)
    untied: ClassVar[bool] = False

    @property
    def cells(self):
        """Agent-task cells of a data set: those with runs in the pilot (each gets ``seeds`` runs)."""
        return int(self.present.sum())

    def template(self, seeds):
        # the pilot's scale goes with its runs (audit s17: data sets of normalised runs were warned about raw scales)
        counts = self.present.astype(np.int64) * seeds
        return dataclasses.replace(Design.from_counts(self.formula, self.agents, self.tasks, counts),
                                   normalized=self.normalized)

    def gaps(self):
        """{other agent: (pilot gap, simulated gap)}: each other agent's mean less the shifted agent's, in within-cell
        standard deviations, averaged over the tasks both ran (audit s35 claims35: "effect = 0.5" raised the worse
        agent, and the print did not say that SAC's lead of 0.93 SD became 0.43). The simulated gap is the pilot's
        less the shift (in the same units); empty with pooled resampling (every agent drawn from the task's runs)."""
        if self.resample != "agents":
            return {}
        s = self.agents.index(self.shifted_agent)
        out = {}
        for a, agent in enumerate(self.agents):
            both = [t for t in range(len(self.tasks)) if a != s and self.present[t, a] and self.present[t, s]
                    and np.isfinite(self.task_sd[t]) and self.task_sd[t] > 0]
            if both:
                pilot = float(np.mean([(self.pools[t][a].mean() - self.pools[t][s].mean()) / self.task_sd[t]
                                       for t in both]))
                shift = float(np.mean([self.shift[t, s] / self.task_sd[t] for t in both]))
                out[agent] = (pilot, pilot - shift, len(both))
        return out

    def draws(self, root, seeds, start, stop):
        """Responses of data sets ``start`` to ``stop - 1`` below ``root``, (data sets, runs), runs in design order
        (task, agent, run).

        Each cell draws its runs' places in its pool from a stream of its own, keyed by its agent's and its task's
        labels (:func:`rlstats.resampling.cell_seed_sequence` below ``root``), then by ``seeds`` and the block of
        :data:`DRAW_BLOCK` data sets: block b is ``Generator.integers(0, pool size, (DRAW_BLOCK, seeds))`` on that
        stream, data set j its row j % DRAW_BLOCK (a block begun at its first row, so a range that starts inside one
        draws its earlier rows and drops them). So a cell's runs are a function of rng=, seeds, its labels, its pool
        and j alone: of no other cell (their names, order or number), of no batching, worker or backend (audit s34
        powerstream34: one stream a data set in the cells' sorted order moved every later cell's runs when a task was
        renamed to sort elsewhere)."""
        tasks, agents = np.nonzero(self.present)
        cells = [(cell_seed_sequence(agent_seed_sequence(root, self.agents[a]), self.tasks[t]),
                  self.task_pools[t] if self.resample == "pooled" else self.pools[t][a], self.shift[t, a])
                 for t, a in zip(tasks, agents)]
        out = np.empty((stop - start, len(cells), seeds))  # the one array of the block's size
        for block in range(start // DRAW_BLOCK, -(-stop // DRAW_BLOCK)):
            low, high = block * DRAW_BLOCK, min(stop, (block + 1) * DRAW_BLOCK)
            skip = max(start, low) - low
            rows = slice(max(start, low) - start, high - start)
            for i, (stream, pool, shift) in enumerate(cells):  # one call a cell and block: integers fills in order
                generator = np.random.Generator(np.random.PCG64(child_stream(stream, seeds, block)))
                out[rows, i] = pool[generator.integers(0, pool.size, (high - low, seeds))[skip:]] + shift
        return out.reshape(stop - start, -1)

    def beyond(self, low, high):
        """(agent, task, value, shift) of the first cell (in its names' sorted order) whose runs, shifted, reach past
        ``low`` or ``high`` (None: no bound), or None: every data set drawn lies within them."""
        cells = list(zip(*np.nonzero(self.present)))
        for i in self.name_order:
            t, a = cells[i]
            pool = self.task_pools[t] if self.resample == "pooled" else self.pools[t][a]
            least, most = pool[0] + self.shift[t, a], pool[-1] + self.shift[t, a]  # pools are sorted
            if low is not None and least < low:
                return self.agents[a], self.tasks[t], float(least), float(self.shift[t, a])
            if high is not None and most > high:
                return self.agents[a], self.tasks[t], float(most), float(self.shift[t, a])
        return None

    def draw_seconds(self, shape, n_sim):
        """Estimated seconds drawing ``n_sim`` data sets of this shape takes (:meth:`draws`): each cell's stream and
        Generator built once a block of :data:`DRAW_BLOCK` data sets, however few of them are asked for (the dry
        run's one too), then its runs' places and values a data set. Audit s35 power35 (load 8-11): a block's
        cells 40 us each (0.6 ms at 15 cells, 22 at 570), 4e-8 s a cell and 4e-9 s a run a data set (50 data sets
        of 570 cells x 50 seeds 27.6 ms, of 15 x 1,000 3.5). Before, one data set's cost times ``n_sim`` (audit s34,
        measured in blocks of 50) priced 10 data sets of a 3 x 5 pilot at 5 seeds 0.145 ms, for 1.126 ms drawn
        (7.8x under below a block)."""
        blocks = -(-n_sim // DRAW_BLOCK)
        return blocks * 4e-5 * shape.cells + n_sim * (4e-8 * shape.cells + 4e-9 * shape.rows)

    def describe(self):
        # the pilot by its formula, as a setting reads (audit s26: the data: line's "score and agent and task")
        return {"source": "pilot", "pilot": self.formula.normal_form, "agents": list(self.agents), "tasks": list(self.tasks),
                "resample": self.resample, "shifted_agent": self.shifted_agent,
                "shift": {t: dict(zip(self.agents, row.tolist())) for t, row in zip(self.tasks, self.shift)},
                "pilot_runs": {t: dict(zip(self.agents, row.tolist()))
                               for t, row in zip(self.tasks, self.pilot_counts)},
                "within_cell_sd": dict(zip(self.tasks, self.task_sd.tolist()))}

    def data_name(self):
        how = "each agent from its own runs" if self.resample == "agents" else "all agents from the pooled runs"
        # which pilot runs were drawn from, as a simulated plan says what it simulated (agents=/tasks= keep some)
        tasks = "" if self.formula.blocks is None else f" x {fmt.count(len(self.tasks), 'task')}"
        used = f"pilot of {fmt.count(len(self.agents), 'agent')}{tasks}, {fmt.count(int(self.pilot_counts.sum()), 'run')}"
        return f"{self.pilot_name}: {used} (resampled with replacement, {how})"


def _simulated_source(agents, tasks, effect, distribution, heterogeneity):
    """Checks the settings through simulate() itself, then keeps what drawing needs."""
    with np.errstate(over="ignore", invalid="ignore"):  # scores past what a Design takes: power()'s error says so
        probe = datasets_module.simulate(agents=2 if agents is None else agents, tasks=10 if tasks is None else tasks,
                                         seeds=1, effect=effect, distribution=distribution,
                                         heterogeneity=heterogeneity, rng=0)
    truth = probe.attrs["simulate"]
    agent_names = tuple(probe["agent"].cat.categories)
    task_names = tuple(probe["task"].cat.categories)
    if len(agent_names) < 2:
        raise OptionError(f"agents={agents!r}: a comparison needs at least two agents")
    return _SimulatedSource(formula=parse(SIMULATED_FORMULA), agents=agent_names, tasks=task_names,
                            families=tuple(truth["distribution"][t] for t in task_names),
                            heterogeneity=float(heterogeneity),
                            shifts=np.asarray([truth["effect"][a] for a in agent_names], dtype=float))


def _subset(design, agents, tasks):
    """The pilot restricted to the named agents and tasks (in the order given)."""
    if agents is not None:
        names = _name_list("agents", agents, design, "agent")
        if len(names) < 2:
            raise OptionError(f"agents={agents!r}: a comparison needs at least two agents")
        design = design.select_agents(names)
    if tasks is not None:
        design = design.select_tasks(_name_list("tasks", tasks, design, "task"))
    return design


def _name_list(option, value, design, what):
    """The pilot's agents (``what="agent"``) or tasks named by ``option``, checked against the pilot's."""
    available = design.agents if what == "agent" else design.tasks
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise OptionError(f"{option} must be a list of names for a pilot, got {shown(value)}; "
                          f"the {what}s are: {', '.join(map(repr, available))}")
    names = []
    column = design.formula.groups if what == "agent" else design.formula.blocks
    for name in value:  # the one rule and wording (errors.agent_named): 3 and "3" name the label printed 3
        try:
            names.append(agent_named(available, option, name, f" in column '{column}'",
                                     dict(design.left_out_agents) if what == "agent" else None, listed=True,
                                     what=what))
        except OptionError as error:
            commas = [n for n in available if "," in n]  # the command line splits its lists at commas
            way = (f"; a name with a comma goes in double quotes, as in a CSV row: --{option} "
                   f"'\"{commas[0]}\",...'") if commas and "'" not in commas[0] else ""
            raise OptionError(str(error), command_line=str(error) + way) from None
    first = {}
    for given, label in zip(value, names):  # which entries name one label (review s31: '9' and '9.0' said as a list)
        if label in first:
            raise OptionError(f"{option}= names the {what} {label!r} twice, as {as_given(first[label])} and "
                              f"{as_given(given)}; give it once")
        first[label] = given
    return names


def _within_cell_sd(design):
    """Pooled within-cell standard deviation of each task (NaN where no cell has two runs)."""
    cell = design.task * design.n_agents + design.agent
    size = design.n_tasks * design.n_agents
    n = np.bincount(cell, minlength=size).astype(float)
    mean = np.bincount(cell, weights=design.y, minlength=size) / np.maximum(n, 1)
    squares = np.bincount(cell, weights=(design.y - mean[cell]) ** 2, minlength=size)
    dof = np.maximum(n - 1, 0).reshape(design.n_tasks, design.n_agents).sum(axis=1)
    total = squares.reshape(design.n_tasks, design.n_agents).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(dof > 0, np.sqrt(total / np.where(dof > 0, dof, 1)), np.nan)


def _pilot_source(data, formula, agents, tasks, effect, resample, shifted_agent, eval_env, na_action="raise"):
    if formula is None and not isinstance(data, Design):
        raise OptionError("formula is required with a pilot DataFrame, e.g. formula='score ~ agent | task'")
    # a ready pilot Design is used as it is (formula= ignored, as before); eval_env was captured by power()
    design = design_of(data, None if isinstance(data, Design) else formula, na_action=na_action, eval_env=eval_env)
    design = _subset(design, agents, tasks)
    effect = _check_effect(effect, pilot=True)
    shifted = design.agents[-1] if shifted_agent is None else check_agent_named(design, "shifted_agent",
                                                                                 shifted_agent)
    sd = _within_cell_sd(design.runs_by_score())  # each cell summed in one order whatever the rows' (audit s30)
    shift = np.zeros((design.n_tasks, design.n_agents))
    if effect != 0:
        bad = [t for t, s in zip(design.tasks, sd) if not (np.isfinite(s) and s > 0)]
        if bad:
            raise DesignError(
                f"effect={effect} is measured in within-cell standard deviations, but {fmt.plural('task', len(bad))} "
                f"{', '.join(bad[:5])} {fmt.verb(len(bad), 'has')} no cell with two distinct runs to estimate it; use "
                "a pilot with "
                "several runs per agent and task, or effect=0")
        shift[:, design.agents.index(shifted)] = effect * sd
    # each pool's runs sorted and each cell drawn from its labels' stream (_PilotSource.draws): the same data sets
    # whatever the order of the pilot's rows, and of its agents and tasks (a Categorical's category order)
    pools = tuple(tuple(np.sort(design.y[(design.task == t) & (design.agent == a)]) if design.counts[t, a] > 0
                        else None for a in range(design.n_agents)) for t in range(design.n_tasks))
    task_pools = tuple(np.sort(design.y[design.task == t]) for t in range(design.n_tasks))
    resample = check_choice("resample", resample, RESAMPLE)
    _check_draws_vary(pools if resample == "agents" else (task_pools,), resample)
    tasks, agents = np.nonzero(design.counts > 0)
    name_order = np.lexsort((design.agent_places[agents],
                             design.task_places[tasks]))
    return _PilotSource(formula=design.formula, agents=design.agents, tasks=design.tasks,
                        present=design.counts > 0, pools=pools, task_pools=task_pools, shift=shift,
                        resample=resample, pilot_name=design.data_name,
                        pilot_counts=design.counts.copy(), task_sd=sd, shifted_agent=shifted,
                        notes=tuple(design.notes), name_order=name_order, normalized=design.normalized)


def _check_draws_vary(pools, resample):
    """A DesignError when every pool drawn from holds one distinct score: each data set would be the same, its rate 0
    or 1 whatever the runs' real spread (audit s17: a pilot of one run per cell gave power 1 at every number of seeds;
    a constant pilot searched to max_seeds and then advised a larger effect)."""
    if any(pool is not None and pool[-1] > pool[0] for row in pools for pool in row):  # pools are sorted
        return
    where, way = (("every agent-task cell of the pilot has", "several runs per agent and task that differ, or "
                   "resample='pooled' to draw every agent from the task's runs") if resample == "agents" else
                  ("every task of the pilot has", "runs that differ"))
    raise DesignError(f"{where} one distinct score (one run, or runs all equal): drawn with replacement, every "
                      "simulated data set would be the same, and its rate 0 or 1 whatever the runs' real spread; use "
                      f"a pilot with {way}")


def _check_effect(effect, pilot):
    if isinstance(effect, numbers.Real) and not isinstance(effect, bool) and math.isfinite(effect):
        return float(effect)
    if pilot:
        raise OptionError(f"effect must be one finite number (within-cell standard deviations added to "
                          f"shifted_agent) with a pilot, got {effect!r}")
    return effect  # simulate() checks sequences and says what is wrong
