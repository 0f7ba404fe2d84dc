"""Session 15 user audit of rlstats.adastop(), rlstats.permutation(), rlstats.skillings_mack() and the adastop
command line's incremental flow (``rlstats adastop update/status/plot``), on real data and hard cases."""
from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
import scipy.stats as ss

import rlstats
from rlstats.cli import main
from conftest import SHARED_DATA
from test_cli_adastop import batch_files

MUJOCO = SHARED_DATA / "mujoco_batches.csv"


def _batches(tmp_path):
    if not MUJOCO.exists():
        pytest.skip(f"real data {MUJOCO} absent")
    d = pd.read_csv(MUJOCO)
    return batch_files(tmp_path, d[d.task == "hopper"])


def test_cli_repeated_batch_can_be_accepted(tmp_path, capsys):
    """A batch fed twice to ``rlstats adastop update`` was refused with "Pass allow_repeat=True if it is genuine":
    a Python keyword the command line has no flag for, so a genuine repeat (e.g. capped scores that all hit the
    cap twice) could not be fed at all. The message must name a flag, and the flag must accept the batch."""
    b1 = _batches(tmp_path)[0]
    state = tmp_path / "s.json"
    assert main(["adastop", "update", str(state), str(b1), "--seed", "1", "--n-resamples", "200"]) == 0
    capsys.readouterr()
    assert main(["adastop", "update", str(state), str(b1)]) != 0
    err = capsys.readouterr().err
    assert "--allow-repeat" in err and "allow_repeat=" not in err
    assert main(["adastop", "update", str(state), str(b1), "--allow-repeat"]) == 0
    assert "after batch 2 of at most 6" in capsys.readouterr().out


def test_friedman_matches_scipy_complete_one_run():
    """Complete one-run design: the rank test's statistic and chi-squared p equal scipy's friedmanchisquare, and
    stay so with the rows shuffled and the score's units changed."""
    rng = np.random.default_rng(0)
    rows = [dict(task=f"t{t}", agent=a, score=rng.normal() + (a == "A")) for t in range(8) for a in "ABCD"]
    df = pd.DataFrame(rows)
    wide = df.pivot(index="task", columns="agent", values="score")
    ref = ss.friedmanchisquare(*[wide[c] for c in wide])
    for d in (df, df.sample(frac=1, random_state=1).assign(score=lambda x: x.score * 1000)):
        r = rlstats.skillings_mack(d, "score ~ agent | task")
        assert r.statistic == pytest.approx(ref.statistic, rel=1e-12)
        assert r.pvalue == pytest.approx(ref.pvalue, rel=1e-9)


def test_permutation_tiny_matches_enumeration():
    """Two agents, 3 runs each: the p-value equals the exhaustive enumeration of the 20 splits (0.1)."""
    a, b = [1.0, 2.5, 3.1], [4.0, 5.2, 6.3]
    df = pd.DataFrame(dict(agent=["A"] * 3 + ["B"] * 3, score=a + b))
    x = np.array(a + b)
    obs = abs(np.mean(a) - np.mean(b))
    exact = np.mean([abs(x[list(c)].mean() - np.delete(x, list(c)).mean()) >= obs - 1e-12
                     for c in itertools.combinations(range(6), 3)])
    with pytest.warns(rlstats.errors.RlstatsWarning, match="can never reject"):  # 0.1 is its smallest p-value
        r = rlstats.permutation(df, "score ~ agent", rng=1, n_resamples=1000)
    assert r.tidy()["p_adjusted"].iloc[0] == pytest.approx(exact)


def test_permutation_powerless_warning_in_its_own_words():
    """permutation() at 3 runs per agent warned "with n = 3 runs per batch and K = 1 interims no level can be spent
    ...; use a larger n or K (the paper advises n * K >= 30)": permutation() has no batches, interims, n= or K=
    (its signature has neither), so the advice cannot be followed. It must speak of runs per agent and adding runs."""
    df = pd.DataFrame(dict(agent=["A"] * 3 + ["B"] * 3, score=[1.0, 2.5, 3.1, 4.0, 5.2, 6.3]))
    with pytest.warns(rlstats.errors.RlstatsWarning) as caught:
        rlstats.permutation(df, "score ~ agent", rng=1, n_resamples=1000)
    text = " ".join(str(w.message) for w in caught)
    assert "3 runs per agent" in text and "add runs" in text
    assert "interim" not in text and "batch" not in text and "n * K" not in text
