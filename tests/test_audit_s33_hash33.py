"""Audit s33 (hash33, review of ttt33b/norm33): the hashes a note records of each run's key values and value
(``provenance.value_hashes``) hashed numeric key columns as float64 and any other (a Categorical of ints, text) as
objects, so an untouched time summary whose seed column was only recast (``astype("category")``, ``astype(str)``)
or whose numeric agents were recast to text was refused ("27 rows of 27 hold another value than the time recorded
... the column was changed"), and normalize()'s note on numeric tasks recast to text was dropped.

Fixed: a key value is hashed in one form, the label as build() and ``errors.label_named`` read it: a Categorical
through its categories' values, a number or text that is how ``str()`` prints a number ("3", "3.0"; not "03",
"1e3") as that number (integral ones exactly, as int64), anything else as its text. A key column holding labels the
summary did not record is named as such in the refusal (not "the column was changed").
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

import rlstats
from conftest import ATTRS_IN_PARQUET
from rlstats.errors import OptionError
from rlstats.provenance import NORMALISED, carried, has_note, label_hashes
from test_audit_s33_ttt33 import FORMULA, _curves

SAID = "'score' normalised per task"


@pytest.fixture(scope="module")
def times():
    return rlstats.summarize_runs(_curves(), FORMULA, step="step", how="time_to_threshold", threshold=10)


@pytest.fixture(scope="module")
def numeric_agents():
    c = _curves()
    c["agent"] = c.agent.map({"fast": 1, "mid": 2, "slow": 3})
    return rlstats.summarize_runs(c, FORMULA, step="step", how="time_to_threshold", threshold=10)


def _best(frame):
    t = rlstats.task_table(frame, FORMULA).tidy()
    return sorted(map(str, t[t.best].agent.unique()))


RECAST = {"seed category": lambda t: t.astype({"seed": "category"}),
          "seed str": lambda t: t.assign(seed=t.seed.astype(str))}
KEPT = {"as is": lambda t: t, "seed float": lambda t: t.assign(seed=t.seed.astype(float)),
        "seed Int64": lambda t: t.astype({"seed": "Int64"}), "agent category": lambda t: t.astype({"agent": "category"}),
        "task string": lambda t: t.astype({"task": "string"}),
        "task pyarrow": lambda t: t.astype({"task": "string[pyarrow]"}),
        "score float32": lambda t: t.assign(score=t.score.astype("float32")),
        "score int64": lambda t: t.assign(score=t.score.astype("int64")),
        "shuffled": lambda t: t.sample(frac=1, random_state=0), "subset": lambda t: t[t.task.isin(["t1", "t2"])]}



@pytest.mark.parametrize("name", list(RECAST))
def test_recast_seed_is_still_a_time(times, name):
    assert _best(RECAST[name](times)) == ["fast"]



@pytest.mark.parametrize("how", ["str", "category"])
def test_numeric_agents_recast(numeric_agents, how):
    frame = numeric_agents.assign(agent=numeric_agents.agent.astype(str))
    assert _best(frame if how == "str" else frame.astype({"agent": "category"})) == ["1"]
    if how == "category":
        assert _best(numeric_agents.astype({"agent": "category"})) == ["1"]


@pytest.mark.parametrize("name", list(KEPT))
def test_kept_is_still_a_time(times, name):
    assert _best(KEPT[name](times)) == ["fast"]


def test_parquet_round_trips(times, tmp_path):
    path = tmp_path / "t.parquet"
    for frame in (times, times.astype({"seed": "category", "agent": "category"})):
        frame.to_parquet(path)
        if ATTRS_IN_PARQUET:
            assert _best(pd.read_parquet(path)) == ["fast"]
        else:  # pandas 2.0 writes no notes: the 'censored' column alone is refused, never reversed
            with pytest.raises(OptionError, match="not that summary's notes"):
                _best(pd.read_parquet(path))


def test_changed_time_still_refused(times):
    changed = times.copy()
    changed.loc[changed.index[0], "score"] = 999
    with pytest.raises(OptionError, match="1 row of 27 holds another value"):
        rlstats.task_table(changed, FORMULA)


def _numeric_tasks():
    rng = np.random.default_rng(33)
    rows = [(agent, task, seed, (1.0 if task < 4 else 1000.0) * (1.0 + shift + rng.uniform()))
            for task in (1, 2, 3, 4) for agent, shift in (("A", 0.0), ("B", 0.5)) for seed in range(5)]
    raw = pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])
    reference = pd.DataFrame({"task": [1, 2, 3, 4], "random": 0.0, "human": [2.0, 2.0, 2.0, 2000.0]})
    return rlstats.normalize(raw, reference)



@pytest.mark.parametrize("how", ["str", "category", "int category"])
def test_normalize_note_kept_on_recast_tasks(how):
    n = _numeric_tasks()
    assert has_note(n, NORMALISED)
    recast = {"str": lambda f: f.assign(task=f.task.astype(str)),
              "category": lambda f: f.assign(task=f.task.astype(str).astype("category")),
              "int category": lambda f: f.astype({"task": "category"})}[how](n)
    texts = [note.text for note in carried(recast)]
    assert any(SAID in t for t in texts) and not any("not those normalize() wrote" in t for t in texts)


@pytest.mark.parametrize("how, said", [("seed", "'seed' holds labels that summary did not record (first: seed='00')"),
                                       ("agent", "'agent' holds labels that summary did not record (first: "
                                                 "agent='FAST')")])
def test_relabelled_keys_are_named(times, how, said):
    frame = (times.assign(seed=times.seed.map(lambda s: f"0{s}")) if how == "seed"
             else times.assign(agent=times.agent.str.upper()))
    with pytest.raises(OptionError, match=re.escape(said)):
        rlstats.task_table(frame, FORMULA)


def test_normalize_relabelled_task_named():
    n = _numeric_tasks()
    texts = [note.text for note in carried(n.assign(task=n.task.map(lambda s: f"0{s}")))]
    assert texts == ["the key column 'task' holds labels normalize() did not write 'score' for (first: task='01'; "
                     "relabelled or recoded, or rows of other data added), so normalize()'s note on 'score' is not shown"]


def test_label_hashes_read_labels_as_build_names_them():
    s = pd.Series(["3", "3.0", "03", "1e3", "1000", "inf", " 3", "-0", "True", None], dtype=object)
    h = label_hashes(s)
    numbers = label_hashes(pd.Series([3, 3.0, 1000, np.inf, True, np.nan], dtype=object))
    assert h[0] == h[1] == numbers[0] == numbers[1] == label_hashes(pd.Series([3]))[0]
    assert h[4] == numbers[2] and h[5] == numbers[3] and h[8] == numbers[4] and h[9] == numbers[5]
    assert len({h[0], h[2], h[6], h[7]}) == 4 and h[3] != h[4]  # "03", " 3", "-0", "1e3": labels of their own
    big = pd.Series([2**62 + 1, 2**62 + 2])  # equal as float64, two seeds
    assert label_hashes(big)[0] != label_hashes(big)[1]
    assert (label_hashes(big.astype(str)) == label_hashes(big)).all()
    assert (label_hashes(big.astype("category")) == label_hashes(big)).all()
