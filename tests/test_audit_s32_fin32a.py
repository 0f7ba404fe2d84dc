"""Audit s32 (fin32a): a true/false outcome column read as tasks, install hints for an editable install, tuning's
'| seed' advice naming a column the data lack, config= lists on the command line, "K = 1 interims".

1. design32's check of '| seed' blocks against the tasks (``_tasks_within_run_blocks``) read a bool column
   (``df["solved"] = df.score > 0.5``) as tasks varying within a seed's block and refused ``score ~ agent | seed``;
   the older refusal of ``score ~ agent`` did the same (one home: ``block_like_columns``). A true/false column is an
   outcome or a flag, never the tasks: it is not read.
2. ``install_hint`` told an editable install to ``pip install "/work/main[logs]"``, which replaces it with a copy.
3. tuning's refusal of ``'ret ~ algo | seed'`` said to write ``'ret ~ algo | task/seed'`` where the tasks are 'env'.
4. ``pass config=['lr', 'gamma']`` stayed Python on the command line.
5. "K = 1 interims".
"""

from __future__ import annotations

import io
import json

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import rlstats
from rlstats import errors
from rlstats.cli import main
from rlstats.errors import DesignError, RlstatsWarning


def _cli(argv, capsys):
    out = io.StringIO()
    status = main(argv, out=out)
    return status, out.getvalue(), capsys.readouterr().err


# ----------------------------------------------------------------------------- 1. a true/false column is no task

def _solved(dtype=bool):
    rng = np.random.default_rng(1)
    df = pd.DataFrame([{"agent": a, "seed": s, "score": rng.normal(i)} for i, a in enumerate("abc") for s in range(8)])
    return df.assign(solved=(df.score > 0.5).astype(dtype))


@pytest.mark.parametrize("dtype", [bool, "boolean", object], ids=["bool", "nullable", "object"])
def test_a_true_false_outcome_is_not_read_as_tasks_within_seed_blocks(dtype):
    df = _solved(dtype)
    assert df.solved.nunique() == 2  # both values occur within the seeds' blocks
    blocked = rlstats.skillings_mack(df, "score ~ agent | seed", rng=0)
    plain = rlstats.skillings_mack(df.drop(columns="solved"), "score ~ agent | seed", rng=0)
    # 8 complete seed blocks of one run per agent, no ties: Skillings-Mack is Friedman's chi-squared, here by hand
    # from the rank sums 9, 15, 24 (12 / (n k (k + 1)) sum R_j^2 - 3 n (k + 1) = 882 / 8 - 96 = 14.25) and by scipy
    wide = df.pivot(index="seed", columns="agent", values="score")
    sums = wide.rank(axis=1).sum().to_numpy()
    assert sums.tolist() == [9.0, 15.0, 24.0]
    friedman = 12 / (8 * 3 * 4) * (sums ** 2).sum() - 3 * 8 * 4
    assert friedman == 14.25 == pytest.approx(stats.friedmanchisquare(*wide.to_numpy().T).statistic, rel=1e-12)
    assert blocked.statistic == pytest.approx(friedman) and plain.statistic == pytest.approx(friedman)
    assert blocked.p_value == plain.p_value
    # the older refusal of 'score ~ agent' (one home, block_like_columns): the flag pools nothing either
    pooled = rlstats.compare(df, "score ~ agent", method="permutation", n_resamples=200, rng=0)
    alone = rlstats.compare(df.drop(columns="solved"), "score ~ agent", method="permutation", n_resamples=200, rng=0)
    assert pooled.tidy()["p_adjusted"].tolist() == alone.tidy()["p_adjusted"].tolist()


def test_a_named_column_varying_within_seed_blocks_is_still_refused():
    df = _solved().assign(task=lambda d: np.where((d.seed + d.agent.map({"a": 0, "b": 1, "c": 0})) % 2, "t1", "t0"))
    with pytest.raises(DesignError, match="column 'task' \\(2 levels\\) takes several values within its blocks"):
        rlstats.skillings_mack(df, "score ~ agent | seed")


# ----------------------------------------------------------------------------- 2. an editable install's hint

class _Distribution:
    """importlib.metadata's distribution of rlstats, as pip records it: ``direct_url`` (None: no direct_url.json)
    and the installed files (RECORD)."""

    def __init__(self, direct_url, files=()):
        self.direct_url, self.files = direct_url, [type("P", (), {"name": f, "__str__": lambda s, f=f: f})()
                                                   for f in files]

    def read_text(self, name):
        return None if name != "direct_url.json" or self.direct_url is None else json.dumps(self.direct_url)


@pytest.mark.parametrize("record, files, editable", [
    ({"url": "file:///src/rl%20stats", "dir_info": {"editable": True}}, (), True),  # pip >= 21.3 (PEP 610)
    (None, ("__editable__.rlstats-0.2.0.pth", "rlstats-0.2.0.dist-info/METADATA"), True),  # PEP 660, no record
    ({"url": "file:///src/rl%20stats", "dir_info": {}}, (), False),  # pip install /src/rl stats: a copy
], ids=["direct_url", "editable-pth", "copy"])
def test_an_editable_install_is_told_to_install_the_extra_editable(monkeypatch, record, files, editable):
    import importlib.metadata

    monkeypatch.setattr(importlib.metadata, "distribution", lambda name: _Distribution(record, files))
    hint = errors.install_hint("logs", ["tensorboard"])
    folder = "/src/rl stats" if record else errors._source_checkout()
    assert folder is not None
    command = f"pip install {'-e ' if editable else ''}{errors.shell_word(f'{folder}[logs]')}"
    assert hint == f"{command} (or the package alone: pip install tensorboard)"


def test_this_machines_editable_install_is_said_so():
    """/work/venv holds rlstats as an editable install of /work/main (pip show: "Editable project location")."""
    import importlib.metadata

    try:
        record = importlib.metadata.distribution("rlstats").read_text("direct_url.json")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("rlstats is not installed")
    if not record or not json.loads(record).get("dir_info", {}).get("editable"):
        pytest.skip("rlstats is not an editable install here")
    assert errors.install_hint("logs", ["tensorboard"]).startswith("pip install -e ")


# ----------------------------------------------------------------------------- 3. tuning's '| seed' advice

def _sweep_env():
    rng = np.random.default_rng(0)
    return pd.DataFrame([(a, e, lr, g, s, rng.normal()) for a in ("ppo", "sac") for e in ("Hop", "Ant")
                         for lr in (0.001, 0.01) for g in (0.9, 0.99) for s in range(3)],
                        columns=["algo", "env", "lr", "gamma", "seed", "ret"])


def _advised(call):
    with pytest.raises(DesignError) as info:
        call()
    import re

    return re.search(r"write '([^']+)'", str(info.value)).group(1), str(info.value)


@pytest.mark.parametrize("formula", ["ret ~ algo | seed", "ret ~ algo"])
def test_tuning_advice_names_the_task_column_found_and_runs(formula):
    df = _sweep_env()
    written, _ = _advised(lambda: rlstats.tuning(df, formula, config=["lr", "gamma"]))
    assert written == "ret ~ algo | env/seed"
    res = rlstats.tuning(df, written, config=["lr", "gamma"], n_resamples=200, rng=0, views=["best_set"])
    assert sorted(res.best_set()["agent"].unique()) == ["ppo", "sac"] and (res.n_configs == 4).all()
    assert sorted(res.best_set()["task"].unique()) == ["Ant", "Hop"]


def test_tuning_advice_without_a_task_column_adds_one_and_runs(tmp_path, capsys):
    df = _sweep_env().query("env == 'Hop'").drop(columns="env")
    written, text = _advised(lambda: rlstats.tuning(df, "ret ~ algo | seed", config=["lr", "gamma"]))
    assert written == "ret ~ algo | task/seed" and "df.assign(task='name')" in text
    path = tmp_path / "hop.csv"
    df.to_csv(path, index=False)
    status, _, err = _cli(["compare", str(path), "ret ~ algo | seed", "--method", "tuning", "-o",
                           "config=['lr', 'gamma']"], capsys)
    assert status != 0 and "write 'ret ~ algo | task/seed', with a column 'task' the file lacks: add it," in err, err
    res = rlstats.tuning(df.assign(task="name"), written, config=["lr", "gamma"], n_resamples=200, rng=0,
                         views=["best_set"])
    assert sorted(res.best_set()["agent"].unique()) == ["ppo", "sac"] and (res.n_configs == 4).all()


# ----------------------------------------------------------------------------- 4. config= lists on the command line

def test_a_config_list_is_an_option_word_on_the_command_line(tmp_path, capsys):
    two = pd.DataFrame([("PPO", "L", lr, gamma, s, 1.0) for lr in (1, 2) for gamma in (0.9, 0.99) for s in range(3)],
                       columns=["agent", "task", "lr", "gamma", "seed", "score"])
    path = tmp_path / "sweep.csv"
    two.to_csv(path, index=False)
    argv = ["compare", str(path), "score ~ agent | task/seed", "--method", "tuning", "-o", "config=lr"]
    status, _, err = _cli(argv, capsys)
    assert status != 0 and """pass -o "config=['lr', 'gamma']\"""" in err, err
    status, out, err = _cli(argv[:-1] + ["config=['lr', 'gamma']", "-o", "n_resamples=200", "--seed", "0"], capsys)
    assert status == 0, err


# ----------------------------------------------------------------------------- 5. one interim

def test_one_interim_in_the_singular():
    from rlstats.methods.adastop._api import no_level_clause

    assert no_level_clause(3, 1, 0.05).startswith("with n = 3 runs per batch and K = 1 interim no level")
    assert "K = 2 interims" in no_level_clause(3, 2, 0.05)
    df = pd.DataFrame(dict(agent=["A"] * 3 + ["B"] * 3, score=[1.0, 2.5, 3.1, 4.0, 5.2, 6.3], seed=[0, 1, 2] * 2))
    with pytest.warns(RlstatsWarning) as caught:
        res = rlstats.adastop(df, "score ~ agent", n=3, K=1, rng=0)
    text = " ".join(str(w.message) for w in caught)
    assert "K = 1 interim no level" in text and "interims" not in text
    assert "at most K = 1 interim;" in str(res)
