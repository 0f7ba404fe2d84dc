"""Benchmark-like simulated scores and the published scores of real RL runs.

Three public functions:

- :func:`simulate` draws long data that look like an RL benchmark (tasks on
  very different scales, skewed, heavy-tailed and bimodal score
  distributions, optional missing cells) with a known location shift per
  agent, deterministically for a given ``rng``.
- :func:`load` reads a published dataset from files pinned by commit and
  SHA-256, downloaded with pooch and cached, or read from an offline mirror
  named by the ``RLSTATS_DATA_MIRROR`` environment variable.
- :func:`list` describes the datasets :func:`load` knows.

The function that lists datasets is called ``list`` as the issue asks, so it
is defined last and nothing in this module calls the builtin ``list``.
"""

from __future__ import annotations

import contextlib
import csv
import hashlib
import json
import logging
import math
import numbers
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from . import _atari_reference
from ._registry_data import ADASTOP, DOPAMINE, IRIS, RL_STATS, RLLTE, SHA256
from .errors import DataUnavailableError, OptionError
from .options import check_at_most, check_choice, check_fraction, check_int
from .resampling import seed_sequence
from .simulation import noise, task_locations

__all__ = ["simulate", "simulate_curves", "load", "list"]

#: Where pinned files are downloaded from: ``<URL_ROOT>/<owner>/<repo>/<commit>/<path>``.
URL_ROOT = "https://raw.githubusercontent.com"
#: Environment variable naming an offline mirror with the ``owner/repo/commit/path`` layout.
MIRROR_ENV = "RLSTATS_DATA_MIRROR"
#: Environment variable naming the download cache (default: ``pooch.os_cache("rlstats")``).
CACHE_ENV = "RLSTATS_DATA_DIR"
# Seconds to wait for a connection (and between bytes of a reply) before saying the data are unavailable.
CONNECT_TIMEOUT = (5, 30)


# ---------------------------------------------------------------------------
# simulate()
# ---------------------------------------------------------------------------

#: Score families, each drawn standardised to mean 0 and variance 1.
FAMILIES = ("normal", "lognormal", "t", "beta", "mixture")
#: Families given to tasks in turn by ``distribution="mixed"``.
MIXED_CYCLE = ("lognormal", "t", "mixture", "beta", "normal")

#: The most scores simulate() and simulate_curves() draw, one row each (10**7 rows are about 300 MB).
MAX_VALUES = 10**7


def _check_size(function, sizes):
    """Refuse, before drawing anything, a simulation of more than :data:`MAX_VALUES` scores."""
    total = math.prod(sizes.values())
    if total > MAX_VALUES:
        shown = " x ".join(f"{n:,} {name}" for name, n in sizes.items())
        raise OptionError(f"{function}() would draw {shown} = {total:,} scores, more than the {MAX_VALUES:,} "
                          "allowed (one row each); ask for fewer")


def _names(value, what, prefix, pad):
    """Names for ``agents``/``tasks``: generated from a count, or checked if given.

    Generated numbers are zero-padded to at least two digits when ``pad``.
    """
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        n = check_at_most(what, check_int(what, value, minimum=1), MAX_VALUES, what,
                          "each takes a row at the least; simulate fewer")
        width = max(2, len(str(n))) if pad else 1
        return tuple(f"{prefix}{i:0{width}d}" for i in range(1, n + 1))
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise OptionError(
            f"{what} must be a count or a sequence of names, got {value!r}; "
            f"write e.g. {what}=3 or {what}=['a', 'b', 'c']"
        )
    names = tuple(value)
    if not names:
        raise OptionError(f"{what} must name at least one {what[:-1]}, got an empty sequence")
    bad = [n for n in names if not isinstance(n, str) or not n]
    if bad:
        raise OptionError(f"{what} names must be non-empty strings, got {bad[0]!r}")
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise OptionError(f"{what} names must be unique; repeated: {', '.join(dupes)}")
    return names


def _shifts(effect, n_agents):
    """One location shift per agent, in within-cell standard deviations."""
    if isinstance(effect, numbers.Real) and not isinstance(effect, bool):
        if not np.isfinite(effect):
            raise OptionError(f"effect must be finite, got {effect!r}")
        return np.linspace(0.0, float(effect), n_agents)
    if isinstance(effect, str) or not isinstance(effect, Sequence | np.ndarray):
        raise OptionError(f"effect must be a number or one number per agent, got {effect!r}")
    try:
        shifts = np.asarray(effect, dtype=float)
    except (TypeError, ValueError):
        raise OptionError(f"effect must hold numbers, got {effect!r}") from None
    if shifts.shape != (n_agents,):
        raise OptionError(
            f"effect gives {shifts.size} shifts for {n_agents} agents; give one per agent "
            "or a single number"
        )
    if not np.all(np.isfinite(shifts)):
        raise OptionError(f"effect must be finite, got {effect!r}")
    return shifts


def _heterogeneity(value):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value):
        raise OptionError(f"heterogeneity must be a finite number >= 0, got {value!r}")
    if value < 0:
        raise OptionError(f"heterogeneity must be >= 0, got {value}")
    return float(value)


def _task_families(distribution, n_tasks):
    if distribution == "mixed":
        return tuple(MIXED_CYCLE[i % len(MIXED_CYCLE)] for i in range(n_tasks))
    return (distribution,) * n_tasks


def _missing_cells(gen, missing, n_agents, n_tasks):
    """Boolean (agents, tasks) mask of removed cells, keeping >= 2 agents per task."""
    removed = np.zeros((n_agents, n_tasks), dtype=bool)
    n_remove = int(round(missing * n_agents * n_tasks))
    if n_remove == 0:
        return removed
    most = n_tasks * max(n_agents - 2, 0)
    if n_remove > most:
        raise OptionError(
            f"missing={missing} asks to remove {n_remove} of {n_agents * n_tasks} agent x task "
            f"cells, but at most {most} can go while every task keeps 2 agents; "
            "lower missing or add agents"
        )
    left = np.full(n_tasks, n_agents)
    for cell in gen.permutation(n_agents * n_tasks):
        a, t = divmod(int(cell), n_tasks)
        if left[t] > 2:
            removed[a, t] = True
            left[t] -= 1
            n_remove -= 1
            if n_remove == 0:
                break
    return removed


def _long_frame(scores, removed, agent_names, task_names):
    """Long frame in agent, task, seed order, without the removed cells."""
    n_agents, n_tasks, n_seeds = scores.shape
    a, t, s = np.meshgrid(
        np.arange(n_agents), np.arange(n_tasks), np.arange(n_seeds), indexing="ij"
    )
    keep = ~np.repeat(removed[:, :, None], n_seeds, axis=2)
    agent = pd.Categorical.from_codes(a[keep], categories=agent_names, ordered=True)
    task = pd.Categorical.from_codes(t[keep], categories=task_names, ordered=True)
    return pd.DataFrame(
        {"agent": agent, "task": task, "seed": s[keep].astype(np.int64), "score": scores[keep]}
    )


def simulate(
    agents=4,
    tasks=10,
    seeds=5,
    effect=0.0,
    *,
    distribution="mixed",
    heterogeneity=1.0,
    missing=0.0,
    rng=None,
):
    """Draw benchmark-like scores: agents x tasks x runs, in long form.

    Every run of agent ``a`` on task ``t`` scores::

        score = offset[t] + scale[t] * (effect[a] + Z)

    where ``Z`` has mean 0 and variance 1 and follows the task's score
    distribution.  ``scale[t]`` is therefore the within-cell standard
    deviation of task ``t`` and **the effect is measured in within-cell
    standard deviations**: a shift of 1 moves every run of the agent by one
    standard deviation of its task's noise.  The effect is a pure location
    shift, so with ``effect=0`` all agents on a task share one distribution
    and the null hypothesis of rank tests holds exactly.

    Parameters
    ----------
    agents, tasks : int or sequence of str
        A count (names ``"agent_1", "agent_2", ...`` and ``"task_01",
        "task_02", ...`` are generated) or the names themselves, in order.
    seeds : int
        Runs per agent and task, numbered ``0 .. seeds - 1``.
    effect : float or sequence of float
        A number spreads the agents' shifts evenly from 0 (first agent) to
        ``effect`` (last agent); a sequence gives one shift per agent.  In
        units of the within-cell standard deviation (see above).
    distribution : {"mixed", "normal", "lognormal", "t", "beta", "mixture"}
        Distribution of ``Z``, standardised to mean 0 and variance 1:
        ``"lognormal"`` is ``exp(0.5 N)`` (right-skewed, skewness 1.75);
        ``"t"`` is Student's t with 5 degrees of freedom (heavy tails,
        excess kurtosis 6); ``"beta"`` is Beta(5, 2) (bounded,
        left-skewed); ``"mixture"`` is bimodal, a "failed" normal mode of
        weight 0.3 and a "solved" one of weight 0.7, 5 mode-widths apart.
        ``"mixed"`` gives the tasks, in order, lognormal, t, mixture, beta,
        normal, then again from the start, so with 3 tasks or more skewed,
        heavy-tailed and bimodal tasks all appear.
    heterogeneity : float, >= 0
        How different the tasks are.  ``scale[t] = 10 ** (heterogeneity *
        u)`` and ``offset[t] = 10 * heterogeneity * scale[t] * v`` with
        ``u ~ Uniform(-1, 1)`` and ``v ~ Uniform(0, 1)`` drawn per task; 0
        makes every task's offset 0 and scale 1, 1 spreads scales over two
        orders of magnitude.
    missing : float in [0, 1)
        Fraction of agent x task cells (all runs of an agent on a task)
        removed at random, rounded to a whole number of cells.  Cells are
        visited in random order and one is skipped when removing it would
        leave its task with fewer than 2 agents; asking for more than can go
        is an error.
    rng : None, int or numpy.random.Generator
        Source of randomness.  The task parameters, the noise and the
        missing cells use separate streams spawned from it, so changing
        ``effect`` or ``missing`` leaves the noise draws unchanged (common
        random numbers across scenarios).

    Returns
    -------
    pandas.DataFrame
        Columns ``agent`` and ``task`` (ordered Categoricals in the given
        order), ``seed`` (int64) and ``score`` (float64), one row per run,
        sorted by agent, task and seed.  ``df.attrs["simulate"]`` records
        the truth: each task's ``distribution``, ``offset`` and ``scale``
        and each agent's ``effect``.

    Raises
    ------
    OptionError
        For a bad count, name, effect, distribution, heterogeneity or
        missing fraction.

    Examples
    --------
    >>> from rlstats.datasets import simulate
    >>> df = simulate(agents=3, tasks=4, seeds=5, effect=1.0, rng=0)
    >>> df.shape
    (60, 4)
    >>> df.columns.tolist()
    ['agent', 'task', 'seed', 'score']
    >>> df["agent"].cat.categories.tolist()
    ['agent_1', 'agent_2', 'agent_3']
    >>> df.attrs["simulate"]["distribution"]
    {'task_01': 'lognormal', 'task_02': 't', 'task_03': 'mixture', 'task_04': 'beta'}
    >>> sparse = simulate(agents=4, tasks=3, seeds=2, missing=0.25, rng=0)
    >>> sparse.groupby(["agent", "task"], observed=True).ngroups  # 12 cells, 3 removed
    9
    """
    agent_names = _names(agents, "agents", "agent_", pad=False)
    task_names = _names(tasks, "tasks", "task_", pad=True)
    n_seeds = check_int("seeds", seeds, minimum=1)
    _check_size("simulate", {"agents": len(agent_names), "tasks": len(task_names), "seeds": n_seeds})
    shifts = _shifts(effect, len(agent_names))
    distribution = check_choice("distribution", distribution, ("mixed",) + FAMILIES)
    heterogeneity = _heterogeneity(heterogeneity)
    missing = check_fraction("missing", missing, open_interval=False)

    ss, _record = seed_sequence(rng)
    task_ss, noise_ss, missing_ss = ss.spawn(3)
    families = _task_families(distribution, len(task_names))
    offset, scale = task_locations(np.random.default_rng(task_ss), len(task_names), heterogeneity)
    z = noise(np.random.default_rng(noise_ss), families, len(agent_names), n_seeds)
    scores = offset[None, :, None] + scale[None, :, None] * (shifts[:, None, None] + z)
    removed = _missing_cells(
        np.random.default_rng(missing_ss), missing, len(agent_names), len(task_names)
    )
    df = _long_frame(scores, removed, agent_names, task_names)
    df.attrs["simulate"] = {
        "distribution": dict(zip(task_names, families)),
        "offset": dict(zip(task_names, offset.tolist())),
        "scale": dict(zip(task_names, scale.tolist())),
        "effect": dict(zip(agent_names, shifts.tolist())),
    }
    return df


def simulate_curves(
    agents=2,
    tasks=5,
    seeds=5,
    steps=20,
    effect=0.0,
    *,
    max_step=1_000_000,
    noise=0.3,
    rho=0.8,
    heterogeneity=1.0,
    rng=None,
):
    """Draw learning curves: agents x tasks x runs x steps, in long form.

    Run ``r`` of agent ``a`` on task ``t`` at step ``s`` scores::

        score = offset[t] + scale[t] * (progress(s) * (1 + effect[a]) + noise * e[a, t, r, s])

    with ``progress(s) = 1 - exp(-3 s / max_step)`` (from 0 to 0.95) and ``e`` a stationary
    Gaussian AR(1) process over the logged steps with lag-one correlation ``rho`` and variance
    1, independent between runs: a run that is ahead early tends to stay ahead, as real runs do.
    The expected curve of an agent on a task is ``offset + scale * progress * (1 + effect)``, so
    the truth of any statistic of the means is known (``attrs["simulate_curves"]``).

    Parameters
    ----------
    agents, tasks : int or sequence of str
        Counts or names, as in :func:`simulate`.
    seeds : int
        Runs per agent and task.
    steps : int
        Logged steps per run, evenly spaced from 0 to ``max_step``.
    effect : float or sequence of float
        Relative gain of each agent's curve: spread evenly from 0 to ``effect`` over the agents,
        or one value per agent; 0.2 makes the last agent's curve 20% higher at every step.
    noise : float, >= 0
        Standard deviation of a run around its expected curve, in units of the task's scale.
    rho : float in [0, 1)
        Lag-one correlation of a run's deviations between consecutive logged steps.
    heterogeneity : float, >= 0
        Spread of the tasks' offsets and scales, as in :func:`simulate`.
    rng : None, int or numpy.random.Generator

    Returns
    -------
    pandas.DataFrame
        Columns ``agent``, ``task`` (ordered Categoricals), ``seed``, ``step`` (int64) and
        ``score``, sorted by agent, task, seed and step. ``attrs["simulate_curves"]`` holds the
        truth: ``steps``, ``progress``, and each task's ``offset`` and ``scale`` and each agent's
        ``effect``.

    Examples
    --------
    >>> from rlstats.datasets import simulate_curves
    >>> df = simulate_curves(agents=2, tasks=3, seeds=4, steps=5, rng=0)
    >>> df.shape, df.columns.tolist()
    ((120, 5), ['agent', 'task', 'seed', 'step', 'score'])
    """
    agent_names = _names(agents, "agents", "agent_", pad=False)
    task_names = _names(tasks, "tasks", "task_", pad=True)
    n_seeds = check_int("seeds", seeds, minimum=1)
    n_steps = check_int("steps", steps, minimum=1)
    _check_size("simulate_curves", {"agents": len(agent_names), "tasks": len(task_names), "seeds": n_seeds,
                                    "steps": n_steps})
    shifts = _shifts(effect, len(agent_names))
    heterogeneity = _heterogeneity(heterogeneity)
    rho = check_fraction("rho", rho, open_interval=False)
    if not (isinstance(noise, numbers.Real) and noise >= 0):
        raise OptionError(f"noise must be a number >= 0, got {noise!r}")
    if not (isinstance(max_step, numbers.Real) and max_step > 0):
        raise OptionError(f"max_step must be a positive number, got {max_step!r}")

    ss, _record = seed_sequence(rng)
    task_ss, noise_ss = ss.spawn(2)
    offset, scale = task_locations(np.random.default_rng(task_ss), len(task_names), heterogeneity)
    grid = np.linspace(0, max_step, n_steps).round().astype(np.int64)
    progress = 1.0 - np.exp(-3.0 * grid / max_step)
    shocks = np.random.default_rng(noise_ss).standard_normal((len(agent_names), len(task_names), n_seeds, n_steps))
    deviation = np.empty_like(shocks)
    deviation[..., 0] = shocks[..., 0]
    for s in range(1, n_steps):  # AR(1) over steps, vectorised over every run
        deviation[..., s] = rho * deviation[..., s - 1] + np.sqrt(1.0 - rho ** 2) * shocks[..., s]
    mean = progress[None, :] * (1.0 + shifts[:, None])  # (agents, steps), before the task's scale
    scores = offset[None, :, None, None] + scale[None, :, None, None] * (
        mean[:, None, None, :] + float(noise) * deviation)
    a, t, r, s = np.meshgrid(*(np.arange(n) for n in scores.shape), indexing="ij")
    df = pd.DataFrame({
        "agent": pd.Categorical.from_codes(a.ravel(), categories=agent_names, ordered=True),
        "task": pd.Categorical.from_codes(t.ravel(), categories=task_names, ordered=True),
        "seed": r.ravel().astype(np.int64),
        "step": grid[s.ravel()],
        "score": scores.ravel(),
    })
    df.attrs["simulate_curves"] = {
        "steps": grid.tolist(),
        "progress": progress.tolist(),
        "offset": dict(zip(task_names, offset.tolist())),
        "scale": dict(zip(task_names, scale.tolist())),
        "effect": dict(zip(agent_names, shifts.tolist())),
    }
    return df


# ---------------------------------------------------------------------------
# Fetching pinned files
# ---------------------------------------------------------------------------


def _url(key):
    return f"{URL_ROOT}/{key}"


def _what_to_do():
    return (
        f"Check the network connection, or set {MIRROR_ENV} to a directory holding copies "
        "of the pinned files under <owner>/<repo>/<commit>/<path> (the layout of the URL "
        "after the host)."
    )


def _sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _from_mirror(key, mirror):
    """Path of ``key`` under the mirror, after checking that it is the pinned file."""
    root = Path(mirror).expanduser()
    if not root.is_dir():
        raise DataUnavailableError(
            f"{MIRROR_ENV}={mirror!r} is not a directory. Point it at a mirror with the "
            "<owner>/<repo>/<commit>/<path> layout, or unset it to download from the pinned URLs."
        )
    path = root / key
    if not path.is_file():
        raise DataUnavailableError(
            f"file {key} is missing from the mirror {root} ({MIRROR_ENV}); expected it at "
            f"{path}. Copy it there from {_url(key)}, or unset {MIRROR_ENV} to download it."
        )
    actual = _sha256(path)
    if actual != SHA256[key]:
        raise DataUnavailableError(
            f"file {key} in the mirror {root} does not match its pinned SHA-256: expected "
            f"{SHA256[key]}, got {actual}. Replace {path} with the file served at {_url(key)}."
        )
    return path


@contextlib.contextmanager
def _quiet_pooch():
    """Keep pooch's progress messages off the user's terminal while fetching."""
    import pooch

    logger = pooch.get_logger()
    level = logger.level
    logger.setLevel(logging.WARNING)
    try:
        yield pooch
    finally:
        logger.setLevel(level)


def _cache_root(cache_dir):
    if cache_dir is not None:
        return Path(cache_dir).expanduser()
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV]).expanduser()
    import pooch

    return Path(pooch.os_cache("rlstats"))


def _short_reason(exc):
    """The innermost cause of a download error, without urllib3's repeated host prefix."""
    while True:
        inner = getattr(exc, "reason", None)
        if not isinstance(inner, BaseException) and exc.args and isinstance(exc.args[0], BaseException):
            inner = exc.args[0]
        if not isinstance(inner, BaseException):
            break
        exc = inner
    text = str(exc)
    return text.rsplit("): ", 1)[-1] if "): " in text else text


def _download(key, cache_dir):
    """Path of ``key`` in the cache, downloading and verifying it if needed.

    Failures raise one :class:`DataUnavailableError` (no chained traceback) naming the URL,
    the cache folder and the mirror variable; a short connect timeout keeps an offline
    machine from waiting.
    """
    url = _url(key)
    target = _cache_root(cache_dir) / key
    try:
        with _quiet_pooch() as pooch:
            downloader = pooch.HTTPDownloader(progressbar=False, timeout=CONNECT_TIMEOUT)
            path = pooch.retrieve(
                url,
                known_hash=f"sha256:{SHA256[key]}",
                fname=target.name,
                path=target.parent,
                downloader=downloader,
            )
    except PermissionError as exc:
        raise DataUnavailableError(
            f"cannot write file {key} to the cache {target.parent} ({exc}). Pass cache_dir= or "
            f"set {CACHE_ENV} to a writable directory, or set {MIRROR_ENV} to read a mirror."
        ) from None
    except ValueError as exc:
        got = re.search(r"but got ([0-9a-fA-F]{64})", str(exc))
        if got is None:  # not pooch's checksum failure
            raise DataUnavailableError(_cannot_download(key, url, _cache_root(cache_dir), exc)) from None
        raise DataUnavailableError(
            f"file {key} downloaded from {url} does not match its pinned SHA-256: expected "
            f"{SHA256[key]}, got {got.group(1)}. The download was deleted. Retry later; if it "
            f"persists, set {MIRROR_ENV} to a mirror holding the pinned file."
        ) from None
    except OSError as exc:  # requests' errors derive from OSError
        raise DataUnavailableError(_cannot_download(key, url, _cache_root(cache_dir), exc)) from None
    return Path(path)


def _cannot_download(key, url, cache_folder, exc):
    return (f"could not download file {key} from {url} ({_short_reason(exc)}) into the cache "
            f"folder {cache_folder}. {_what_to_do()}")


def _fetch(key, cache_dir):
    """Local, verified path of the pinned file ``key``: from the mirror if set, else pooch."""
    mirror = os.environ.get(MIRROR_ENV)
    if mirror:
        return _from_mirror(key, mirror)
    return _download(key, cache_dir)


# ---------------------------------------------------------------------------
# Parsing the published formats
# ---------------------------------------------------------------------------

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


# ---------------------------------------------------------------------------
# The registry of datasets
# ---------------------------------------------------------------------------

_ATARI_LICENCE = (
    "Scores published with Agarwal et al. (2021). rllte's LICENSE file is the MIT License "
    "(seen at a later commit than the pinned one); no licence file was found for "
    "eloialonso/iris. See the source repositories before redistributing."
)


@dataclass(frozen=True)
class _Dataset:
    name: str
    description: str
    source_paper: str
    licence: str
    columns: tuple
    rows: int
    files: tuple
    parse: object

    def url_bases(self):
        if not self.files:
            return "none: the table is part of rlstats"
        bases = dict.fromkeys(_url(key.rsplit("/", 1)[0]) + "/" for key in self.files)
        return "; ".join(bases)


_DATASETS = {
    d.name: d
    for d in (
        _Dataset(
            name="atari100k",
            description=(
                "Atari 100k, 26 games: final raw game score of every run of CURL, DER, DrQ, "
                "DrQ(eps), OTRainbow, SPR (100 runs per game), PlayVirtual (15), IRIS and "
                "SimPLe (5). seed is the run's index within agent and game."
            ),
            source_paper=(
                "Agarwal et al. (2021), Deep Reinforcement Learning at the Edge of the "
                "Statistical Precipice, NeurIPS; IRIS: Micheli, Alonso and Fleuret (2023), "
                "Transformers are Sample-Efficient World Models, ICLR"
            ),
            licence=_ATARI_LICENCE,
            columns=("agent", "task", "seed", "score"),
            rows=16250,
            files=tuple(k for k in _ATARI_AGENT_FILES.values() if k is not None)
            + tuple(_CURL_FILES.values()),
            parse=_parse_atari100k,
        ),
        _Dataset(
            name="atari100k_reference",
            description=(
                "Atari 100k, 26 games: score of a random policy and of a human player, the "
                "usual normalisers: (score - random) / (human - random)."
            ),
            source_paper=(
                "Agarwal et al. (2021), Deep Reinforcement Learning at the Edge of the "
                "Statistical Precipice, NeurIPS"
            ),
            licence="No licence file was found for eloialonso/iris; see the source repository.",
            columns=("task", "random", "human"),
            rows=26,
            files=(f"{_IRIS_DATA}/HUMAN.json", f"{_IRIS_DATA}/RANDOM.json"),
            parse=_parse_atari100k_reference,
        ),
        _Dataset(
            name="mujoco_adastop",
            description=(
                "MuJoCo ant, halfcheetah, hopper, humanoid, walker; PPO, SAC, DDPG, TRPO "
                "evaluated adaptively in batches of 5 runs (batch 1..6) until every comparison "
                "was decided (n=5, K=6, B=10000, alpha=0.05), so 5 to 30 runs per agent. seed "
                "is the run's index within agent and task, not the training seed."
            ),
            source_paper=(
                "Mathieu et al. (2023), AdaStop: adaptive statistical testing for sound "
                "comparisons of Deep RL agents, arXiv:2306.10882"
            ),
            licence="No licence file was found; see the source repository.",
            columns=("task", "agent", "batch", "seed", "score"),
            rows=415,
            files=tuple(
                _mujoco_file(task, b)
                for task, n in MUJOCO_BATCHES.items()
                for b in range(1, n + 1)
            ),
            parse=_parse_mujoco_adastop,
        ),
        _Dataset(
            name="halfcheetah_sac_td3",
            description=(
                "HalfCheetah-v2, final evaluation score of independent runs of SAC (192) and "
                "TD3 (193 lines in the published file, which its README calls 192 runs). Not the "
                "last evaluations of the spinningup_halfcheetah curves: apparently a separate measure "
                "of the same runs in the same order (rank correlation with the last evaluation "
                "0.88 for TD3, 0.54 for SAC once its unfinished curve 0 is skipped)."
            ),
            source_paper=(
                "Colas, Sigaud and Oudeyer (2019), A Hitchhiker's Guide to Statistical "
                "Comparisons of Reinforcement Learning Algorithms, arXiv:1904.06979"
            ),
            licence="No licence file was found; see the source repository.",
            columns=("agent", "task", "seed", "score"),
            rows=385,
            files=tuple(_HALFCHEETAH_FILES.values()),
            parse=_parse_halfcheetah_sac_td3,
        ),
        _Dataset(
            name="dopamine_atari",
            description=(
                "Learning curves of the Dopamine Atari baselines, 60 games (sticky actions): "
                "DQN, C51, Rainbow, IQN, Quantile (JAX) and DQN (Adam + MSE in JAX), 5 runs "
                "each, 199 iterations. step is the iteration (0..198); one iteration is 250,000 "
                "agent steps of 4 frames, so frames = (step + 1) * 1,000,000 is the number of "
                "frames seen by the end of the iteration; score is the mean return of the "
                "training episodes of that iteration. Runs are not labelled in the files: seed "
                "is the run's position in the file (records come run after run), not the "
                "training seed."
            ),
            source_paper=(
                "Castro et al. (2018), Dopamine: A Research Framework for Deep Reinforcement "
                "Learning, arXiv:1812.06110"
            ),
            licence=(
                "google/dopamine's LICENSE file is the Apache License 2.0 (seen at a later commit "
                "than the pinned one); see the source repository before redistributing."
            ),
            columns=("agent", "task", "seed", "step", "frames", "score"),
            rows=len(DOPAMINE_AGENTS) * len(DOPAMINE_GAMES) * DOPAMINE_RUNS * DOPAMINE_ITERATIONS,
            files=tuple(_dopamine_file(game) for game in DOPAMINE_GAMES),
            parse=_parse_dopamine_atari,
        ),
        _Dataset(
            name="atari_reference",
            description=(
                "57 Atari games: score of a random policy and of a human player, the usual "
                "normalisers (score - random) / (human - random); the source column names "
                "where the numbers were taken from. Covers 55 of the 60 dopamine_atari games; "
                "AirRaid, Carnival, ElevatorAction, JourneyEscape and Pooyan have no values."
            ),
            source_paper=(
                "Random and human (no-op starts) scores as tabulated in DQN Zoo (Quan and "
                "Ostrovski 2020) and rliable (Agarwal et al. 2021); random scores of 49 games from "
                "Mnih et al. (2015), Human-level control through deep reinforcement learning, Nature"
            ),
            licence="Published numbers, typed into rlstats; no file is read.",
            columns=("task", "random", "human", "source"),
            rows=len(_atari_reference.SCORES),
            files=(),
            parse=_parse_atari_reference,
        ),
        _Dataset(
            name="spinningup_halfcheetah",
            description=(
                "Learning curves on HalfCheetah-v2 of SAC and TD3 (Spinning Up implementations), "
                "193 runs each (the files have 193 columns; their README says 192), evaluated "
                "every 5,000 environment steps: step = 5,000, 10,000, ..., 2,000,000 (400 "
                "evaluations). SAC run 0 stops after 397 evaluations: its last 3 scores are "
                "NaN in the file and kept as NaN. seed is the run's column in the file, not the "
                "training seed. The final scores in halfcheetah_sac_td3 are not the last "
                "evaluations of these curves."
            ),
            source_paper=(
                "Colas, Sigaud and Oudeyer (2019), A Hitchhiker's Guide to Statistical "
                "Comparisons of Reinforcement Learning Algorithms, arXiv:1904.06979"
            ),
            licence="No licence file was found; see the source repository.",
            columns=("agent", "task", "seed", "step", "score"),
            rows=2 * 193 * SPINNINGUP_EVALUATIONS,
            files=tuple(_SPINNINGUP_FILES.values()),
            parse=_parse_spinningup_halfcheetah,
        ),
    )
}


def load(name, *, cache_dir=None):
    """Load a published dataset of RL scores as a tidy DataFrame.

    Every file behind a dataset is pinned by a commit in its URL and by its
    SHA-256, which is checked on every read.  Files are downloaded with pooch
    into a cache, or read from an offline mirror:

    - with the environment variable ``RLSTATS_DATA_MIRROR`` set, the file
      ``https://raw.githubusercontent.com/<owner>/<repo>/<commit>/<path>``
      is read from ``$RLSTATS_DATA_MIRROR/<owner>/<repo>/<commit>/<path>``
      and nothing is downloaded;
    - otherwise it is downloaded once into ``cache_dir``, else
      ``$RLSTATS_DATA_DIR``, else ``pooch.os_cache("rlstats")``.

    Parameters
    ----------
    name : str
        One of the names :func:`list` shows: final scores ``"atari100k"``,
        ``"mujoco_adastop"``, ``"halfcheetah_sac_td3"``; learning curves
        ``"dopamine_atari"`` and ``"spinningup_halfcheetah"`` (one row per
        agent, task, run and evaluation ``step``); normalisers
        ``"atari100k_reference"`` and ``"atari_reference"`` (57 games, no
        file to read; see :func:`rlstats.normalize`).
    cache_dir : str or path-like, optional
        Download cache; overrides ``RLSTATS_DATA_DIR``.

    Returns
    -------
    pandas.DataFrame
        A new frame on every call, with the columns and dtypes
        ``pandas.read_csv`` gives for a CSV of the same table (string
        columns for names, int64 for ``seed``, ``batch``, ``step`` and
        ``frames``, float64 for scores), rows in the published order; the
        learning curves are sorted by agent (in file order), task, run and
        step.

    Raises
    ------
    OptionError
        For an unknown ``name``.
    DataUnavailableError
        When a file cannot be downloaded, is missing from the mirror or does
        not match its pinned SHA-256; the message names the file, the URL
        and what to do.

    Examples
    --------
    Needs the network or a mirror, so not run as a doctest:

    >>> from rlstats import datasets
    >>> datasets.load("atari100k").shape  # doctest: +SKIP
    (16250, 4)
    >>> curves = datasets.load("dopamine_atari")  # doctest: +SKIP
    >>> curves.columns.tolist()  # doctest: +SKIP
    ['agent', 'task', 'seed', 'step', 'frames', 'score']

    The Atari normalisers need no file:

    >>> datasets.load("atari_reference").head(2)[["task", "random", "human"]]
         task  random   human
    0   Alien   227.8  7127.7
    1  Amidar     5.8  1719.5
    """
    dataset = _DATASETS[check_choice("name", name, tuple(_DATASETS))]
    paths = {key: _fetch(key, cache_dir) for key in dataset.files}
    return dataset.parse(paths)


def list():  # noqa: A001 - the public name the issue asks for
    """Describe the datasets :func:`load` can read.

    Returns
    -------
    pandas.DataFrame
        One row per dataset with columns ``name``, ``description``,
        ``source_paper``, ``url_base`` (the pinned directories the files
        come from, ``"; "``-separated; a table built into rlstats has
        none), ``licence`` (what the source repositories state, as far as
        known), ``rows``, ``columns`` (the column names, comma-separated)
        and ``files`` (how many pinned files).

    Examples
    --------
    >>> from rlstats import datasets
    >>> datasets.list()[["name", "rows", "files"]]
                         name    rows  files
    0               atari100k   16250     34
    1     atari100k_reference      26      2
    2          mujoco_adastop     415     24
    3     halfcheetah_sac_td3     385      2
    4          dopamine_atari  358200     60
    5         atari_reference      57      0
    6  spinningup_halfcheetah  154400      2
    """
    return pd.DataFrame(
        {
            "name": [d.name for d in _DATASETS.values()],
            "description": [d.description for d in _DATASETS.values()],
            "source_paper": [d.source_paper for d in _DATASETS.values()],
            "url_base": [d.url_bases() for d in _DATASETS.values()],
            "licence": [d.licence for d in _DATASETS.values()],
            "rows": [d.rows for d in _DATASETS.values()],
            "columns": [", ".join(d.columns) for d in _DATASETS.values()],
            "files": [len(d.files) for d in _DATASETS.values()],
        }
    )
