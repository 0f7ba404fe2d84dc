"""Audit s33 cli33b: an unknown flag's suggestion is one the command then takes (review s33b cli.py).

compare's unknown-flag hints named ``-o`` options from the union of every back end's keywords, so that
``--method mixed --n-resamples 100`` suggested ``-o n_resamples=100``, which ``--method mixed`` then refuses; R's
``--R``/``--sig.level`` fell back to that union too; and ``--k 3`` without ``--summarize`` suggested
``--summarize-option k=3``, refused for want of ``--summarize``. Each suggestion is now run here.
"""

from __future__ import annotations


import numpy as np
import pandas as pd
import pytest

from conftest import cli_run

F = "score ~ agent | task/seed"


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """3 agents x 3 tasks x 3 seeds: each run's final score, and each run logged at steps 1..3 (for --summarize)."""
    rng = np.random.default_rng(0)
    rows = [(a, t, s, step, round(float(rng.normal(i + step, 1)), 6)) for i, a in enumerate("XYZ")
            for t in ("ant", "hopper", "walker") for s in range(3) for step in (1, 2, 3)]
    curves = pd.DataFrame(rows, columns=["agent", "task", "seed", "step", "score"])
    folder = tmp_path_factory.mktemp("cli33b")
    curves.to_csv(folder / "curves.csv", index=False)
    curves[curves["step"] == 3].drop(columns="step").to_csv(folder / "final.csv", index=False)
    return {"final": folder / "final.csv", "curves": folder / "curves.csv"}


def _said(argv):
    status, out, err = cli_run(*argv)
    assert status == 2 and out == "", err
    return err.strip().splitlines()[-1]


CASES = [  # (flags typed after FILE FORMULA, what the refusal says, the command line it suggests in their place)
    (["--method", "mixed", "--n-resamples", "100"],
     "--n-resamples 100; --method mixed takes no n_resamples=; --method skillings_mack, adastop, permutation",
     ["--method", "skillings_mack", "-o", "n_resamples=100"]),
    (["--method", "mixed", "--R", "100"],
     "--R 100; R= is the spelling of R's boot(), for n_resamples=; --method mixed takes no n_resamples=",
     ["--method", "skillings_mack", "-o", "n_resamples=100"]),
    (["--method", "mixed", "--alpha", "0.1"],
     # audit s34: mixed's own option of that job first
     "--alpha 0.1; --method mixed has no option alpha=: its name here is -o confidence_level= (alpha= is the error "
     "rate other rlstats functions take; confidence_level = 1 - alpha); pass -o confidence_level=0.9; --method "
     "skillings_mack, adastop, permutation",
     ["--method", "skillings_mack", "-o", "alpha=0.1"]),
    (["--method", "mixed", "--sig.level", "0.1"],
     "--sig.level 0.1; sig.level= is the spelling of R's pwr and power.t.test, for alpha=; --method mixed has no "
     "option alpha=: its name here is -o confidence_level=", ["--method", "skillings_mack", "-o", "alpha=0.1"]),
    (["--method", "mixed", "--task-bootstrap", "True"],
     "--task-bootstrap True; --method mixed takes no task_bootstrap=; --method bootstrap, performance_profile do "
     "(-o task_bootstrap=True)", ["--method", "bootstrap", "-o", "task_bootstrap=True", "-o", "n_resamples=50"]),
    (["--method", "mixed", "--margin", "0.5"],
     "--margin 0.5; --method mixed takes no margin=; --method equivalence does (-o margin=0.5)",
     ["--method", "equivalence", "-o", "margin=0.5", "-o", "control=X"]),
    (["--method", "mixed", "--n-jobs", "2"], "--n-jobs 2; --method mixed takes no n_jobs=; --method skillings_mack",
     ["--method", "skillings_mack", "-o", "n_jobs=1"]),
    (["--method", "bootstrap", "--p.adjust", "holm"],
     "--p.adjust holm; p.adjust= is R's spelling, for adjustment=; --method bootstrap takes no adjustment=; --method "
     "skillings_mack, task_table do (-o adjustment=holm)", ["--method", "skillings_mack", "-o", "adjustment=holm"]),
    (["--method", "bootstrap", "--alternative", "noninferior"],
     "--alternative noninferior; --method bootstrap takes no alternative=; --method equivalence does "
     "(-o alternative=noninferior)",
     ["--method", "equivalence", "-o", "alternative=noninferior", "-o", "control=X", "-o", "margin=0.5"]),
    (["--k", "3"], "--k 3 (did you mean --summarize last_k_mean --summarize-option k=3?",
     ["--summarize", "last_k_mean", "--summarize-option", "k=3"]),
    (["--threshold", "3"], "--threshold 3 (did you mean --summarize time_to_threshold --summarize-option threshold=3?",
     ["--summarize", "time_to_threshold", "--summarize-option", "threshold=3"]),
    (["--summarize", "final", "--k", "3"], "--k 3 (did you mean --summarize last_k_mean --summarize-option k=3?",
     ["--summarize", "last_k_mean", "--summarize-option", "k=3"]),
    (["--steps", "3"], "--steps 3 (did you mean --summarize HOW --summarize-option steps=3?",
     ["--summarize", "final", "--summarize-option", "steps=3"]),
]


@pytest.mark.parametrize("typed, said, suggested", CASES, ids=[" ".join(case[0]) for case in CASES])
def test_a_suggestion_is_one_the_method_takes(files, typed, said, suggested):
    runs = files["curves" if "--summarize" in suggested else "final"]
    refusal = _said(["compare", runs, F, *typed])
    assert f"unrecognized arguments: {said}" in refusal, refusal
    # the suggestion, run: accepted, and the numbers computed (the data step passed)
    status, out, err = cli_run("compare", runs, F, *suggested, "--seed", "0", "--no-progress")
    assert status == 0, err


@pytest.mark.parametrize("typed, said", [
    (["--method", "bootstrap", "--n-resamples", "100"], "--n-resamples 100 (did you mean -o n_resamples=100?)"),
    (["--summarize", "last_k_mean", "--k", "3"], "--k 3 (did you mean --summarize-option k=3? it sets Python's k=)"),
    (["--method", "mixed", "--conf.level", "0.9"], "pass -o confidence_level=0.9"),
])
def test_what_the_method_takes_is_suggested_as_before(files, typed, said):
    assert said in _said(["compare", files["final"], F, *typed])
