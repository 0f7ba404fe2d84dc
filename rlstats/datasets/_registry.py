"""The registry of published datasets: what each is, where its files come from, how it is read.

:func:`load` reads one (its pinned files through :mod:`._fetch`, parsed by :mod:`._published`);
:func:`available` describes them all.
"""

from __future__ import annotations

import copy
import os
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Callable

import pandas as pd

from ..errors import OptionError
from ..options import check_choice, keywords_checked
from . import _atari_reference, _d4rl_reference, _procgen_reference
from ._fetch import CACHE_ENV, _fetch, _url
from ._hpo import (EVALUATION_FILE, LANDSCAPE_COLUMNS, LANDSCAPE_FILES, OPTIMISATION_COLUMNS, _parse_hpo_landscapes,
                   _parse_hpo_optimisation)
from ._published import (_ATARI_AGENT_FILES, _CURL_FILES, _HALFCHEETAH_FILES, _IRIS_DATA, _SPINNINGUP_FILES,
                         DOPAMINE_AGENTS, DOPAMINE_GAMES, DOPAMINE_ITERATIONS, DOPAMINE_RUNS, MUJOCO_BATCHES,
                         SPINNINGUP_EVALUATIONS, _dopamine_file, _mujoco_file, _parse_atari100k,
                         _parse_atari100k_reference, _parse_atari_reference, _parse_dopamine_atari,
                         _parse_halfcheetah_sac_td3, _parse_mujoco_adastop, _parse_spinningup_halfcheetah)

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
    parse: Callable[..., Any]

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
                "is the run's index within agent and task, not the training seed. As published, "
                "hopper's batches 3 and 4 repeat the runs of batches 1 and 2 exactly for PPO, SAC "
                "and DDPG (only TRPO's are new): 20 distinct runs of each, not 30."
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
        _Dataset(
            name="hpo_landscapes",
            description=(
                "PPO on Gymnasium LunarLander, 9 landscapes of one hyperparameter (learning rate, gamma or GAE "
                "lambda) x one reward weight (angle, distance or velocity): each the full 100 x 100 grid of 100 values "
                "of the hyperparameter and 100 reward weights from 0 to 10, every combination once (10,000 "
                "configurations; config is the row of the file), 10 training seeds each, final mean return. hyperparameter and reward_weight hold the values, landscape names the pair. "
                "The published learning-rate_angle-weight and learning-rate_distance-weight files are byte-identical "
                "(one SHA-256), so those two landscapes are the same numbers."
            ),
            source_paper=("Dierkes, Cramer, Hoos and Trimpe (2024), Combining automated optimisation of "
                          "hyperparameters and reward shape, Reinforcement Learning Conference (arXiv:2406.18293)"),
            licence="The repository states no licence; the files are read from their pinned URLs, never copied.",
            columns=LANDSCAPE_COLUMNS,
            rows=9 * 10_000 * 10,
            files=tuple(LANDSCAPE_FILES.values()),
            parse=_parse_hpo_landscapes,
        ),
        _Dataset(
            name="hpo_optimisation",
            description=(
                "Tuning procedures for PPO and SAC on Brax ant and humanoid, Gym lunar(lander) and Robosuite wipe: "
                "hpo and rpo are the optimiser of the hyperparameters and of the reward weights (base = defaults, "
                "rs = random search, dehb), objective return or return+stability; procedure names the "
                "combination. Each procedure ran 5 times (tuning_run) and the configuration each run found was "
                "trained again with 10 evaluation seeds (seed): score is its final mean return, "
                "default_reward_score the return under the default reward (score_std and default_reward_score_std: "
                "their standard deviations as published). Baselines (base/base) have no tuning "
                "run: tuning_run is 0 there. The tuning run, not the evaluation seed, is the unit of replication. The "
                "published file repeats 5 rows in every column (PPO ant twice, PPO humanoid, SAC wipe twice); they "
                "are kept as published: drop them (drop_duplicates()) before an analysis, which refuses to count a "
                "run twice. Each repeat stands where another evaluation seed's row should be (that seed's result is "
                "not in the file), so those 5 tuning runs then have 9 evaluation seeds."
            ),
            source_paper=("Dierkes, Cramer, Hoos and Trimpe (2024), Combining automated optimisation of "
                          "hyperparameters and reward shape, Reinforcement Learning Conference (arXiv:2406.18293)"),
            licence="The repository states no licence; the files are read from their pinned URLs, never copied.",
            columns=OPTIMISATION_COLUMNS,
            rows=2670,
            files=(EVALUATION_FILE,),
            parse=_parse_hpo_optimisation,
        ),
        _Dataset(
            name="d4rl_reference",
            description=(
                "D4RL, 115 datasets (Gym-MuJoCo v0/v1/v2, Adroit v0/v1, AntMaze v0/v2, Kitchen, Maze2D): each "
                "dataset's ref_min_score (random) and ref_max_score (expert), the normalisers of D4RL's score "
                "100 * (score - random) / (expert - random); task is the dataset name with its version "
                "(e.g. hopper-medium-v2), version and source columns say which release. "
                + _d4rl_reference.conflicts_sentence()
            ),
            source_paper=_d4rl_reference.PAPER,
            licence="Published numbers, typed into rlstats; no file is read.",
            columns=("task", "random", "expert", "version", "source"),
            rows=len(_d4rl_reference.SCORES),
            files=(),
            parse=_d4rl_reference.frame,
        ),
        *(
            _Dataset(
                name=f"procgen_{mode}_reference",
                description=(
                    f"Procgen, {mode} distribution mode, 16 games: each game's R_min and R_max, the normalisers of "
                    "Procgen's score (score - r_min) / (r_max - r_min); task is the game's env_name "
                    "(e.g. coinrun). " + _procgen_reference.conflicts_sentence()
                ),
                source_paper=_procgen_reference.PAPER,
                licence="Published numbers, typed into rlstats; no file is read.",
                columns=("task", "r_min", "r_max", "mode", "source"),
                rows=16,
                files=(),
                parse=parse,
            )
            for mode, parse in (("easy", _procgen_reference.easy_frame), ("hard", _procgen_reference.hard_frame))
        ),
    )
}


#: The frames parsed from files, keyed by the dataset and its files' paths, sizes and modification times: load() of
#: files unchanged since copies the frame instead of parsing them again (audit s30 mends30: hpo_landscapes took 1-2 s
#: a call, its copy about 0.1 s); the files' SHA-256 is still checked on every call. The most recent
#: :data:`PARSED_KEPT` are kept (hpo_landscapes is about 100 MB).
_PARSED: OrderedDict[tuple, pd.DataFrame] = OrderedDict()
PARSED_KEPT = 2
_PARSED_LOCK = threading.Lock()


def _parsed(name, dataset, paths):
    """``dataset.parse(paths)``, or a copy of it parsed before from the same files (:data:`_PARSED`): a new frame and
    attrs (the loader's notes) every call, so a caller changing its frame changes no later one."""
    stamps = []
    for key, path in sorted(paths.items()):
        status = os.stat(path)
        stamps.append((key, os.fspath(path), status.st_size, status.st_mtime_ns))
    stamp = (name, tuple(stamps))
    with _PARSED_LOCK:
        frame = _PARSED.get(stamp)
        if frame is not None:
            _PARSED.move_to_end(stamp)
    if frame is None:
        frame = dataset.parse(paths)
        with _PARSED_LOCK:
            _PARSED[stamp] = frame
            while len(_PARSED) > PARSED_KEPT:
                _PARSED.popitem(last=False)
    out = frame.copy(deep=True)
    out.attrs = copy.deepcopy(frame.attrs)  # older pandas' copies share the dict
    return out


@keywords_checked  # a keyword it does not take: an OptionError naming it, not Python's TypeError (audit s23)
def load(name: str, *, cache_dir: str | os.PathLike[str] | None = None) -> pd.DataFrame:
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
        One of the names :func:`available` shows: final scores ``"atari100k"``,
        ``"mujoco_adastop"``, ``"halfcheetah_sac_td3"``; learning curves
        ``"dopamine_atari"`` and ``"spinningup_halfcheetah"`` (one row per
        agent, task, run and evaluation ``step``); hyperparameter sweeps
        ``"hpo_landscapes"`` and tuning procedures ``"hpo_optimisation"``;
        normalisers ``"atari100k_reference"``, ``"atari_reference"`` (57 games),
        ``"d4rl_reference"`` (D4RL's reference scores per dataset and version),
        ``"procgen_easy_reference"`` and ``"procgen_hard_reference"`` (Procgen's
        R_min and R_max per game), all but the first with no file to read; see
        :func:`rlstats.normalize`.
    cache_dir : str or path-like, optional
        Download cache; overrides ``RLSTATS_DATA_DIR``.

    Returns
    -------
    pandas.DataFrame
        A new frame on every call (files parsed once while they are unchanged, and copied on later calls; their
        SHA-256 checked on every one), with the columns and dtypes
        ``pandas.read_csv`` gives for a CSV of the same table (string
        columns for names, int64 for ``seed``, ``batch``, ``step`` and
        ``frames``, float64 for scores), rows in the published order; the
        learning curves are sorted by agent (in file order), task, run and
        step.

    Raises
    ------
    OptionError
        For an unknown ``name``, or a ``cache_dir`` that is not a str or path-like.
    DataUnavailableError
        When a file cannot be downloaded, is missing from the mirror or does
        not match its pinned SHA-256; the message names the file, the URL
        and what to do.

    See Also
    --------
    rlstats.datasets.available : What each data set is, with its source.
    rlstats.normalize : Human-normalised scores.

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
    if cache_dir is not None and not isinstance(cache_dir, (str, os.PathLike)):  # checked even when a mirror is read
        raise OptionError(f"cache_dir must be a folder (a str or os.PathLike), got {cache_dir!r}; or leave it out to "
                          f"use ${CACHE_ENV} or pooch's default cache")
    paths = {key: _fetch(key, cache_dir) for key in dataset.files}
    return _parsed(name, dataset, paths) if paths else dataset.parse(paths)


@keywords_checked  # a keyword it does not take: an OptionError naming it, not Python's TypeError (audit s23)
def available() -> pd.DataFrame:
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

    See Also
    --------
    rlstats.datasets.load : Load one of them.

    Examples
    --------
    >>> from rlstats import datasets
    >>> datasets.available()[["name", "rows", "files"]]
                          name    rows  files
    0                atari100k   16250     34
    1      atari100k_reference      26      2
    2           mujoco_adastop     415     24
    3      halfcheetah_sac_td3     385      2
    4           dopamine_atari  358200     60
    5          atari_reference      57      0
    6   spinningup_halfcheetah  154400      2
    7           hpo_landscapes  900000      9
    8         hpo_optimisation    2670      1
    9           d4rl_reference     115      0
    10  procgen_easy_reference      16      0
    11  procgen_hard_reference      16      0
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
