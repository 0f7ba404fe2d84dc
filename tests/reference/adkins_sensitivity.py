"""Hyperparameter sensitivity and effective dimensionality: rlstats.tuning against the authors' own code.

Adkins, Bowling and White (NeurIPS 2024) publish their analysis code and the PPO-variant sweep behind their
figures (7 variants x 5 Brax environments x 625 configurations, each configuration's return averaged over seeds and
percentile-normalised) in ``jadkins99/hyperparameter_sensitivity`` (commit e571b0b). This script runs their
``compute_scores`` (sensitivity) and ``generate_dimensionality_plot`` (the best score with k hyperparameters tuned
per environment, the others at the cross-environment tuned values), unchanged, and rlstats.tuning on the same CSV
with ``percentiles=None`` (the scores are normalised already), and prints both and their largest difference.

    python tests/reference/adkins_sensitivity.py /path/to/hyperparameter_sensitivity

Their code needs pandas < 3 (it assigns through chained indexing); it was run with pandas 2.0.3 and matplotlib
3.7.0. tests/test_tuning.py holds the numbers it printed (2026-11-26: sensitivity and every tuned-k score equal to
4e-16) and checks rlstats against them when ``RLSTATS_ADKINS_REPO`` names such a checkout.
"""

from __future__ import annotations

import contextlib
import io
import pathlib
import sys

import numpy as np
import pandas as pd

HYPERPARAMETERS = ["ent_coef", "gae_lambda", "actor_lr", "critic_lr"]


def _load(path):
    """Their module at ``path`` (read from the checkout, never installed)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"adkins_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def theirs(repo):
    """Their sensitivity table and best-score-per-number-of-fixed-hyperparameters table, from their code."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    analysis = pathlib.Path(repo) / "analysis"
    utils, plots = (_load(analysis / f"{name}.py") for name in ("utils", "plots"))
    df = pd.read_csv(pathlib.Path(analysis) / "data_expected_over_seeds.csv", index_col=0)
    with contextlib.redirect_stdout(io.StringIO()):
        scores = utils.compute_scores(df)
    captured = {}

    def keep_locals(frame, event, arg):  # their function draws the figure; keep its table as it returns
        if event == "return" and frame.f_code is plots.generate_dimensionality_plot.__code__:
            captured.update(frame.f_locals)

    show, plt.show = plt.show, lambda *a, **k: None
    sys.setprofile(keep_locals)
    try:
        plots.generate_dimensionality_plot(df, scores)
    finally:
        sys.setprofile(None)
        plt.show = show
        plt.close("all")
    # rows: number of hyperparameters tuned per environment, 0..4 (their table is flipped to that order)
    tuned = captured["best_tune_n_performance"].drop(columns="index")
    return df, scores.set_index("alg_type"), tuned


def ours(df):
    import rlstats

    runs = df.rename(columns={"alg_type": "agent", "env_name": "task", "percentile_normalized_return": "score"})
    runs = runs.assign(seed=0)[["agent", "task", "seed", "score", *HYPERPARAMETERS]]
    res = rlstats.tuning(runs, "score ~ agent | task/seed", config=HYPERPARAMETERS, views=["sensitivity"],
                         percentiles=None, n_resamples=100, rng=0)
    dims = res.dimensions()
    tuned = dims.groupby(["agent", "n_tuned"])["estimate"].max().unstack("agent")
    return res, res.sensitivity().set_index("agent"), tuned


def compare(repo):
    df, sens_theirs, tuned_theirs = theirs(repo)
    res, sens_ours, tuned_ours = ours(df)
    table = pd.DataFrame({
        "per_env_tuned (theirs)": sens_theirs["per_env_tuned_performance"],
        "per_task_tuned (ours)": sens_ours["per_task_tuned"],
        "cross_env (theirs)": sens_theirs["cross_env_tuned_performance"],
        "cross_task (ours)": sens_ours["cross_task_tuned"],
        "sensitivity (theirs)": sens_theirs["sensitivity_difference"],
        "sensitivity (ours)": sens_ours["sensitivity"],
    })
    gaps = {"sensitivity": float((table["sensitivity (theirs)"] - table["sensitivity (ours)"]).abs().max()),
            "tuned-k scores": float(np.nanmax(np.abs(tuned_theirs[tuned_ours.columns].to_numpy(dtype=float)
                                                     - tuned_ours.to_numpy(dtype=float))))}
    return table, tuned_theirs, tuned_ours, sens_ours, gaps


if __name__ == "__main__":
    table, tuned_theirs, tuned_ours, sens_ours, gaps = compare(sys.argv[1])
    pd.set_option("display.width", 250)
    pd.set_option("display.max_columns", 20)
    pd.set_option("display.precision", 12)
    print(table)
    print("\nbest score with k hyperparameters tuned per environment (theirs):")
    print(tuned_theirs)
    print("\n(ours):")
    print(tuned_ours)
    print("\neffective dimension (ours):", sens_ours["effective_dimension"].to_dict())
    print("largest differences:", gaps)
