"""The ADA-research files of Dierkes et al. (RLC 2024): PPO landscapes on LunarLander and the tuning experiments.

Each ``_parse_<dataset>(paths)`` reads ``{pinned key: local path}`` and returns the dataset's frame; a file without
the expected columns is a :class:`DataUnavailableError` naming it.
"""

from __future__ import annotations

import pandas as pd

from ..errors import DataUnavailableError
from ..format import plural
from ..provenance import Note, set_notes
from ..tables import read_csv  # floats to the bit on pandas 2 too (its default parser can be 1 ulp off)
from ._pins import HPO, HPO_LANDSCAPES

_RESULTS = f"{HPO}/experimental_results"
LANDSCAPE_FILES = {name: f"{_RESULTS}/landscape_analysis/{name}.csv" for name in HPO_LANDSCAPES}
EVALUATION_FILE = f"{_RESULTS}/optimisation_experiments/optimisation_evaluation_results.csv"
LANDSCAPE_COLUMNS = ("task", "landscape", "config", "hyperparameter", "reward_weight", "seed", "score")
OPTIMISATION_COLUMNS = ("algorithm", "suite", "task", "procedure", "hpo", "rpo", "objective", "tuning_run", "seed",
                        "score", "score_std", "default_reward_score", "default_reward_score_std", "config")


def _read(key, path, columns):
    frame = read_csv(path)
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise DataUnavailableError(f"file {key} lacks {plural('column', len(missing))} {missing}; it does not have the "
                                   "pinned layout")
    return frame


def _parse_hpo_landscapes(paths):
    """One row per configuration and training seed: the 10 seeds' final returns of each row of each file."""
    frames = []
    for name, key in LANDSCAPE_FILES.items():
        raw = read_csv(paths[key])
        if raw.shape[1] != 3 or raw.columns[2] != "final_mean_return":
            raise DataUnavailableError(f"file {key} does not have the pinned layout (hyperparameter, reward weight, "
                                       "final_mean_return)")
        returns = raw["final_mean_return"].str.strip("[]").str.split(",", expand=True).astype(float)
        n_seeds = returns.shape[1]
        frames.append(pd.DataFrame({
            "task": "LunarLander", "landscape": name,
            "config": pd.RangeIndex(len(raw)).repeat(n_seeds),
            "hyperparameter": raw.iloc[:, 0].to_numpy().repeat(n_seeds),
            "reward_weight": raw.iloc[:, 1].to_numpy().repeat(n_seeds),
            "seed": list(range(n_seeds)) * len(raw),
            "score": returns.to_numpy().ravel()}))
    out = pd.concat(frames, ignore_index=True).astype({"config": "int64", "seed": "int64"})
    return set_notes(out, _identical_notes())


def _identical_notes():
    """A note per set of landscape files published with one SHA-256 (the published data's defect: the same numbers
    under two names), bound to the ``landscape`` column: said while the rows hold two of them."""
    by_sha: dict[str, list[str]] = {}
    for name, sha in HPO_LANDSCAPES.items():
        by_sha.setdefault(sha, []).append(name)
    notes = []
    for sha, names in by_sha.items():
        if len(names) > 1:
            items = tuple(((name,), None) for name in names)
            note = Note("", scope="rows", keys=("landscape",), items=items,
                        word="rlstats.datasets._hpo:_reword_identical", data=sha)
            notes.append(Note(_reword_identical(note, items, 0) or "", scope="rows", keys=("landscape",), items=items,
                              word=note.word, data=sha))
    return notes


def _reword_identical(note, items, n_rows):
    """The note on landscapes read from byte-identical files, for the landscapes present (None for fewer than 2)."""
    names = [key[0] for key, _ in items]
    if len(names) < 2:
        return None
    files = " and ".join(f"{name}.csv" for name in names)
    return (f"landscapes {' and '.join(names)} are the same numbers: the published files {files} (in "
            f"{_RESULTS}/landscape_analysis/) are byte-identical (SHA-256 {note.data}), a defect of the published "
            f"data, so each configuration's 10 runs there are one set of runs read twice; analyse one of them")


def _parse_hpo_optimisation(paths):
    """One row per evaluation run of the configuration each tuning run found (baselines: no tuning run)."""
    raw = _read(EVALUATION_FILE, paths[EVALUATION_FILE],
                ("algorithm", "suite", "environment", "single_obj", "hpo", "rpo", "optimisation_seed",
                 "evaluation_seed", "final_mean_return", "final_std_return", "def_rew_mean_return",
                 "def_rew_std_return", "config"))
    objective = raw["single_obj"].map({True: "return", False: "return+stability"})
    return pd.DataFrame({
        "algorithm": raw["algorithm"], "suite": raw["suite"], "task": raw["environment"],
        "procedure": "hpo=" + raw["hpo"] + ", rpo=" + raw["rpo"] + ", " + objective,
        "hpo": raw["hpo"], "rpo": raw["rpo"], "objective": objective,
        "tuning_run": raw["optimisation_seed"].fillna(0).astype("int64"), "seed": raw["evaluation_seed"].astype("int64"),
        "score": raw["final_mean_return"].astype(float), "score_std": raw["final_std_return"].astype(float),
        "default_reward_score": raw["def_rew_mean_return"].astype(float),
        "default_reward_score_std": raw["def_rew_std_return"].astype(float), "config": raw["config"]})
