"""The published files' formats: which files make each dataset and how they become one tidy frame.

Each ``_parse_<dataset>(paths)`` reads ``{pinned key: local path}`` and returns the dataset's frame; a file
that does not have the expected layout is a :class:`DataUnavailableError` naming it.
"""

from __future__ import annotations

import csv
import json

import numpy as np
import pandas as pd

from ..errors import DataUnavailableError
from . import _atari_reference
from ._pins import ADASTOP, DOPAMINE, IRIS, RL_STATS, RLLTE

ATARI_GAMES = (
    "Alien", "Amidar", "Assault", "Asterix", "BankHeist", "BattleZone", "Boxing",
    "Breakout", "ChopperCommand", "CrazyClimber", "DemonAttack", "Freeway", "Frostbite",
    "Gopher", "Hero", "Jamesbond", "Kangaroo", "Krull", "KungFuMaster", "MsPacman",
    "Pong", "PrivateEye", "Qbert", "RoadRunner", "Seaquest", "UpNDown",
)  # fmt: skip

_RLLTE_ATARI = f"{RLLTE}/hsuanwu/evaluation/atari_100k"
_IRIS_DATA = f"{IRIS}/results/data"

#: Atari agents in the order of the tidy table, with the file of each
#: (``None``: CURL, one file per game).
_ATARI_AGENT_FILES = {
    "CURL": None,
    "DER": f"{_RLLTE_ATARI}/DER.json",
    "DrQ": f"{_RLLTE_ATARI}/DrQ.json",
    "DrQ(eps)": f"{_IRIS_DATA}/DrQ(eps).json",
    "IRIS": f"{_IRIS_DATA}/IRIS.json",
    "OTRainbow": f"{_RLLTE_ATARI}/OTRainbow.json",
    "PlayVirtual": f"{_RLLTE_ATARI}/PlayVirtual.json",
    "SPR": f"{_IRIS_DATA}/SPR.json",
    "SimPLe": f"{_IRIS_DATA}/SimPLe.json",
}
_CURL_FILES = {game: f"{_RLLTE_ATARI}/CURL/{game}.json" for game in ATARI_GAMES}

#: MuJoCo tasks in table order and the number of batch files of each.
MUJOCO_BATCHES = {"ant": 3, "halfcheetah": 6, "hopper": 6, "humanoid": 3, "walker": 6}


def _mujoco_file(task, batch):
    return f"{ADASTOP}/Deep_RL_xp/experiments/{task}/{task}{batch}.csv"


_HALFCHEETAH_FILES = {
    "SAC": f"{RL_STATS}/data/sac_hc_final_perfs.txt",
    "TD3": f"{RL_STATS}/data/td3_hc_final_perfs.txt",
}


def _layout_error(key, what):
    return DataUnavailableError(
        f"file {key} does not have the layout rlstats expects: {what}. Report this as a bug."
    )


def _read_json(paths, key):
    with open(paths[key], encoding="utf-8") as fh:
        return json.load(fh)


def _game_table(paths, key):
    """``{game: [score per run]}`` from a JSON object keyed by game."""
    table = _read_json(paths, key)
    if not isinstance(table, dict) or set(table) != set(ATARI_GAMES):
        raise _layout_error(key, "a JSON object with one entry per Atari 100k game")
    return table


def _curl_runs(paths, game):
    """CURL's scores on ``game``, in run order (``run_number`` 1, 2, ...)."""
    key = _CURL_FILES[game]
    records = sorted(_read_json(paths, key), key=lambda r: r["run_number"])
    numbers_ = [r["run_number"] for r in records]
    if numbers_ != [*range(1, len(records) + 1)]:
        raise _layout_error(key, "run_number should count 1, 2, ... without gaps")
    return [r["eval_average_return"] for r in records]


def _tidy(columns):
    """DataFrame from column lists, with the dtypes pandas.read_csv gives the tidy CSVs."""
    frame = pd.DataFrame(columns)
    for name in ("seed", "batch"):
        if name in frame:
            frame[name] = frame[name].astype(np.int64)
    for name in ("score", "random", "human"):
        if name in frame:
            frame[name] = frame[name].astype(np.float64)
    return frame


def _parse_atari100k(paths):
    rows = {"agent": [], "task": [], "seed": [], "score": []}
    for agent, key in _ATARI_AGENT_FILES.items():
        table = None if key is None else _game_table(paths, key)
        for game in ATARI_GAMES:
            runs = _curl_runs(paths, game) if key is None else table[game]
            rows["agent"] += [agent] * len(runs)
            rows["task"] += [game] * len(runs)
            rows["seed"] += range(len(runs))
            rows["score"] += runs
    return _tidy(rows)


def _parse_atari100k_reference(paths):
    columns = {"task": [*ATARI_GAMES]}
    for column, name in (("random", "RANDOM"), ("human", "HUMAN")):
        key = f"{_IRIS_DATA}/{name}.json"
        table = _game_table(paths, key)
        if any(len(table[g]) != 1 for g in ATARI_GAMES):
            raise _layout_error(key, "exactly one score per game")
        columns[column] = [table[g][0] for g in ATARI_GAMES]
    return _tidy(columns)


def _parse_mujoco_adastop(paths):
    rows = {"task": [], "agent": [], "batch": [], "seed": [], "score": []}
    for task, n_batches in MUJOCO_BATCHES.items():
        runs_so_far = {}
        for batch in range(1, n_batches + 1):
            with open(paths[_mujoco_file(task, batch)], newline="", encoding="utf-8") as fh:
                header, *lines = csv.reader(fh)
            for line in lines:
                for agent, value in zip(header[1:], line[1:], strict=True):
                    seed = runs_so_far.get(agent, 0)
                    runs_so_far[agent] = seed + 1
                    rows["task"].append(task)
                    rows["agent"].append(agent)
                    rows["batch"].append(batch)
                    rows["seed"].append(seed)
                    rows["score"].append(float(value))
    return _tidy(rows)


def _parse_halfcheetah_sac_td3(paths):
    rows = {"agent": [], "task": [], "seed": [], "score": []}
    for agent, key in _HALFCHEETAH_FILES.items():
        with open(paths[key], encoding="utf-8") as fh:
            scores = [float(line) for line in fh if line.strip()]
        rows["agent"] += [agent] * len(scores)
        rows["task"] += ["HalfCheetah"] * len(scores)
        rows["seed"] += range(len(scores))
        rows["score"] += scores
    return _tidy(rows)


# ---------------------------------------------------------------------------
# Learning curves
# ---------------------------------------------------------------------------

#: The 60 games of the Dopamine Atari baselines (file ``<game>.json`` in lower case).
DOPAMINE_GAMES = (
    "AirRaid", "Alien", "Amidar", "Assault", "Asterix", "Asteroids", "Atlantis", "BankHeist",
    "BattleZone", "BeamRider", "Berzerk", "Bowling", "Boxing", "Breakout", "Carnival",
    "Centipede", "ChopperCommand", "CrazyClimber", "DemonAttack", "DoubleDunk",
    "ElevatorAction", "Enduro", "FishingDerby", "Freeway", "Frostbite", "Gopher", "Gravitar",
    "Hero", "IceHockey", "Jamesbond", "JourneyEscape", "Kangaroo", "Krull", "KungFuMaster",
    "MontezumaRevenge", "MsPacman", "NameThisGame", "Phoenix", "Pitfall", "Pong", "Pooyan",
    "PrivateEye", "Qbert", "Riverraid", "RoadRunner", "Robotank", "Seaquest", "Skiing",
    "Solaris", "SpaceInvaders", "StarGunner", "Tennis", "TimePilot", "Tutankham", "UpNDown",
    "Venture", "VideoPinball", "WizardOfWor", "YarsRevenge", "Zaxxon",
)  # fmt: skip
#: The agents of every Dopamine file, in the order their records come.
DOPAMINE_AGENTS = ("DQN", "C51", "Rainbow", "IQN", "Quantile (JAX)", "DQN (Adam + MSE in JAX)")
DOPAMINE_RUNS = 5
DOPAMINE_ITERATIONS = 199
#: One Dopamine iteration is 250,000 agent steps with 4 frames each (frame skip).
FRAMES_PER_ITERATION = 1_000_000


def _dopamine_file(game):
    return f"{DOPAMINE}/baselines/atari/data/{game.lower()}.json"


def _dopamine_game(paths, game):
    """Scores of one game as an (agents, runs, iterations) array.

    Runs are not labelled in the file: within an agent the records come run
    after run and ``Iteration`` restarts at 0 for each run.  Anything else
    (another agent, a run of another length, iterations out of order) is an
    error naming the game and the agent, never a silent fix.
    """
    key = _dopamine_file(game)
    records = _read_json(paths, key)
    try:
        agent = np.array([r["Agent"] for r in records], dtype=object)
        iteration = np.array([r["Iteration"] for r in records])
        value = np.array([r["Value"] for r in records], dtype=np.float64)
    except (TypeError, KeyError, ValueError):
        raise _layout_error(key, 'a JSON list of {"Iteration", "Value", "Agent"} records') from None
    found = [*dict.fromkeys(agent)]
    if set(found) != set(DOPAMINE_AGENTS):
        raise _layout_error(key, f"agents {_names_text(DOPAMINE_AGENTS)}, found {_names_text(found)}")
    expected = np.tile(np.arange(DOPAMINE_ITERATIONS), DOPAMINE_RUNS)
    out = np.empty((len(DOPAMINE_AGENTS), DOPAMINE_RUNS, DOPAMINE_ITERATIONS))
    for a, name in enumerate(DOPAMINE_AGENTS):
        mine = agent == name
        its = iteration[mine]
        if len(its) != len(expected) or not np.array_equal(its, expected):
            starts = np.flatnonzero(its == 0)
            lengths = np.diff(np.append(starts, len(its))).tolist()
            raise _layout_error(
                key,
                f"agent {name!r} on {game} should have {DOPAMINE_RUNS} runs of iterations "
                f"0..{DOPAMINE_ITERATIONS - 1} in record order; found {len(its)} records, runs "
                f"of length {lengths} counting from each Iteration 0",
            )
        out[a] = value[mine].reshape(DOPAMINE_RUNS, DOPAMINE_ITERATIONS)
    return out


def _names_text(names):
    return ", ".join(repr(n) for n in names)


def _parse_dopamine_atari(paths):
    scores = np.stack([_dopamine_game(paths, game) for game in DOPAMINE_GAMES], axis=1)
    n_agents, n_games, n_runs, n_steps = scores.shape
    step = np.tile(np.arange(n_steps, dtype=np.int64), n_agents * n_games * n_runs)
    return pd.DataFrame(
        {
            "agent": np.repeat(np.array(DOPAMINE_AGENTS, dtype=object), n_games * n_runs * n_steps),
            "task": np.tile(np.repeat(np.array(DOPAMINE_GAMES, dtype=object), n_runs * n_steps), n_agents),
            "seed": np.tile(np.repeat(np.arange(n_runs, dtype=np.int64), n_steps), n_agents * n_games),
            "step": step,
            "frames": (step + 1) * FRAMES_PER_ITERATION,
            "score": scores.reshape(-1),
        }
    )


_SPINNINGUP_FILES = {
    "SAC": f"{RL_STATS}/data/sac_hc_all_perfs.txt",
    "TD3": f"{RL_STATS}/data/td3_hc_all_perfs.txt",
}
#: Environment steps between two evaluations of the Spinning Up runs, and their number.
SPINNINGUP_EVERY = 5_000
SPINNINGUP_EVALUATIONS = 400


def _spinningup_table(paths, key):
    """(evaluations, runs) array of one whitespace-separated file, NaN kept."""
    with open(paths[key], encoding="utf-8") as fh:
        try:
            table = [[float(x) for x in line.split()] for line in fh if line.strip()]
        except ValueError:
            raise _layout_error(key, "numbers separated by white space") from None
    widths = {len(row) for row in table}
    if len(table) != SPINNINGUP_EVALUATIONS or len(widths) != 1:
        raise _layout_error(
            key, f"{SPINNINGUP_EVALUATIONS} lines (evaluations) of equally many numbers (runs); "
            f"found {len(table)} lines of {sorted(widths)} numbers"
        )
    return np.array(table, dtype=np.float64)


def _parse_spinningup_halfcheetah(paths):
    frames = []
    for agent, key in _SPINNINGUP_FILES.items():
        table = _spinningup_table(paths, key)
        n_steps, n_runs = table.shape
        frames.append(
            pd.DataFrame(
                {
                    "agent": agent,
                    "task": "HalfCheetah",
                    "seed": np.repeat(np.arange(n_runs, dtype=np.int64), n_steps),
                    "step": np.tile(np.arange(1, n_steps + 1, dtype=np.int64) * SPINNINGUP_EVERY, n_runs),
                    "score": table.T.reshape(-1),
                }
            )
        )
    return pd.concat(frames, ignore_index=True)


def _parse_atari_reference(paths):
    games, random, human = zip(*_atari_reference.SCORES)
    return _tidy(
        {
            "task": [*games],
            "random": [*random],
            "human": [*human],
            "source": [_atari_reference.SOURCE] * len(games),
        }
    )
