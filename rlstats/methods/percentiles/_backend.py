"""The performance percentiles' declaration (read by the registry, :mod:`rlstats.methods`).

When to use
-----------
To aggregate agents over tasks whose scores have no common scale and no reference scores to normalise by:
performance percentiles (Jordan et al. 2020) place each run in the distribution of all agents' runs on its task,
and a game weights the tasks so that no agent is favoured by the choice of tasks. It gives each agent's aggregate
with simultaneous intervals and the range of ranks it may hold. Prefer it to averaging raw scores; prefer the
bootstrap when accepted normalisers exist (Atari's human scores), since its numbers are easier to compare with
published ones.

How the cost grows
------------------
PBP (the default) and PBP-t bound each agent's aggregate by two robust problems, its upper and its lower bound. Each
is a policy iteration over the game's agents^2 x tasks joint strategies (agent, task, reference agent), so the
bounds cost at least agents^3 x tasks. They cost more than that in agents for two reasons. Every joint strategy has
agents - 1 moves of the agent player. GMRES also needs more steps a round as agents are added: its preconditioner
leaves about one slow mode per agent. Measured in CPU seconds at 20 tasks x 10 runs (rounds s37-pbp and s38-pbp of
``benchmarks/README.md``), the bounds grow as about agents^2.4-2.6 from 5 to 10 agents, agents^3.4-3.6 from 10 to
20 and agents^3.0 from 20 to 40. The whole call grows less where its fixed cost dominates: agents^0.8-1.4 from 5
to 10 agents and agents^2.0 from 10 to 20. The bounds grow about linearly in tasks (tasks^1.0-1.1 from 20 to 100 at
10 agents; the call tasks^0.4-0.6). Runs enter only the payoff bounds: the call's exponent from 10 to 100 runs is
0.01-0.14.

The 2 x agents problems cannot share their work exactly. Each problem's optimal transition rows follow the order of
its own values. Its states cannot be merged across the agent a state belongs to, because each agent's ties differ:
its self payoff 0.5 on every task and its intervals clipped to [0, 1]. If no two of an agent's intervals were equal
(and all overlapped), the states would merge into the tasks x agents strategies of the adversary, and the work would
be quadratic in agents.

``interval="bootstrap"`` recomputes the point game for every resample. It costs n_resamples x agents^2 x tasks x
runs, because every run is placed against every other agent's runs on its task: quadratic in agents, linear in the
rest. It is a heuristic, and with few runs per cell its intervals undercover. In the calibration at 2 agents x 1
task, nominal 95% intervals held every true value in 0.58-0.70 of data sets at 3 runs a cell, 0.74-0.92 at 5 and
0.87-0.96 at 10; the result quotes this where it applies.
"""

from typing import Any

from .._declaration import Backend, Need
from ...cost import Shape, Work

_HERE = "rlstats.methods.percentiles"


#: bytes the bootstrap keeps per resample and agent at the call's peak (the aggregates, their copy in the design's
#: order and the quantiles' copy) and per resample (its RNG block's generator, 32 resamples a block: 35 measured with
#: tracemalloc); the whole call 42 a resample at 2 agents (198 and 240 MB peak RSS at 10**6 and 2 x 10**6, audit s31:
#: not counted before, 20 agents at n_resamples=10**7 were admitted with max_seconds= lifted)
BYTES_PER_AGENT_RESAMPLE, BYTES_PER_RESAMPLE = 24, 40


def cost(shape: Shape, options: Any) -> Work:
    """PBP intervals (the default, and ``"pbp_t"``) do not resample.  When each agent's payoff intervals all overlap
    (every design measured, up to 100 runs a cell) the robust game costs about agents^3 x tasks: 2 n_A bound
    problems of n_A^2 n_E joint strategies each, solved without dense blocks (issue 43 item 1): 3e-5 s a unit since
    round s37-pbp of benchmarks/README.md (policy iteration started from value iteration: 3-8 rounds a bound problem,
    11-18 before; 8e-5 s a unit before), measured / estimated 0.58-0.72 at 20 x 20, 10 x 100 and 20 x 100 x 10 (1.5 at
    10 x 20 in a fresh process) and 0.58-0.91 on cost_calibration's designs; in round s38-pbp, at a heavier load,
    1.5-2.0 at 10 x 100 and from 20 to 64 agents (the bounds alone at 40 x 20 and 64 x 5) and 1.7-2.8 on
    cost_calibration's designs: cubic with one constant, although the local exponent in agents exceeds 3 (3.4 from 10
    to 20 agents, 3.0 from 20 to 40). Runs enter only the payoff bounds, linearly, but change the game.  Separated
    intervals (thousands of runs) take the dense blocks, which cost more.
    ``interval="bootstrap"`` places every run against the other agents in each resample (1.3e-7 s a value, round s11
    of benchmarks/README.md: 0.8-1.6e-7 measured; 2.8e-7 before, 2-3.5x over)."""
    if options.interval == "bootstrap":
        return Work(options.n_resamples * shape.rows * shape.agents, "resampled values", 1.3e-7,
                    f"{options.n_resamples:,} resamples x {shape.rows:,} runs x {shape.agents} agents",
                    memory=options.n_resamples * (BYTES_PER_AGENT_RESAMPLE * shape.agents + BYTES_PER_RESAMPLE),
                    kept=f"{options.n_resamples:,} resamples x {shape.agents} agents",
                    way="a smaller n_resamples (10,000 to 100,000 give Monte Carlo errors well below the differences "
                        "that matter), or interval='pbp' (the default, which does not resample)")
    if options.interval is None:
        return Work(shape.rows, "rows", 1e-6, f"{shape.rows:,} runs")
    return Work(shape.agents ** 3 * shape.tasks, "agent^3-task units", 3e-5,
                f"{shape.agents}^3 (agents) x {shape.tasks:,} tasks")


BACKENDS = (
    Backend(
        name="percentiles",
        cost=f"{_HERE}._backend:cost",
        function=f"{_HERE}._api:percentiles",
        result=f"{_HERE}._result:PercentilesResult",
        options=f"{_HERE}._api:PercentilesOptions",
        citations=("jordan2020",),
        # PBP is valid with any number of runs; its t variant needs a standard deviation in every cell, and the
        # bootstrap needs some cell with runs to resample
        replication=(
            Need("intervals", 'interval="pbp_t" intervals', runs=2, per="cell", below="refuse",
                 when=(("interval", "pbp_t"),), way_on='use interval="pbp" or "bootstrap", or add runs'),
            Need("intervals", 'interval="bootstrap" intervals', runs=2, per="design", below="refuse",
                 when=(("interval", "bootstrap"),),
                 way_on='resampling single runs gives intervals of zero width; use interval="pbp" (valid with any '
                        'number of runs), or add runs'),
            # an agent with one run on every task adds no spread of its own: the others' resampling would be all
            Need("agent_intervals", 'interval="bootstrap" intervals', runs=2, per="agent",
                 when=(("interval", "bootstrap"),),
                 way_on='its interval would show only the other agents\' spread; use interval="pbp" (valid with '
                        'any number of runs), or add runs'),
        ),
        contract=("score ~ agent | task", {"interval": "pbp_t"}),
        demo=("score ~ agent | task", {"interval": "bootstrap", "n_resamples": 2000, "na_action": "drop"}),
        no_power="its simultaneous intervals of the agents' percentiles are estimates, not a test: there is no "
                 "decision for power() to count",
    ),
)

#: the tidy and glance columns only this folder's results report: (column, attribute, printed label,
#: description) rows, which rlstats.vocabulary reads through the registry
VOCABULARY = (
    ("rank", "rank", "rank", "competition rank of the estimate (1 = best; tied agents share the best rank)"),
    ("rank_best", "rank_best", "best rank", "best rank consistent with the simultaneous confidence intervals"),
    ("rank_worst", "rank_worst", "worst rank", "worst rank consistent with the simultaneous confidence intervals"),
    ("reference", None, "reference", "the reference agent whose score distribution normalises a payoff"),
    ("percentile", None, "percentile",
     "performance percentile on one task against the game's reference mixture of agents"),
    ("n_strategies", "n_strategies", "joint strategies", "number of joint pure strategies of a game"),
)
