"""Audit s23 prov23: one home for the ranking of close spellings ("did you mean ...") and a structured record of a
subset, in place of matching note text."""

import re

import pandas as pd
import pytest
from conftest import caught

from rlstats.errors import FormulaError, OptionError, agent_named, close_names
from rlstats.formula import check_columns, parse
from rlstats.logs._read import _warn_misspelt_fields
from rlstats.methods.selection._api import _suggest
from rlstats.normalization import normalize_response
from rlstats.options import did_you_mean

# ------------------------------------------------------------------------------------- close spellings, site by site

#: names offered to every site: a case-only match, a name holding a comma, two names one ratio apart
NAMES = ["PPO", "PPO2", "DQN", "R&D, Inc", "agent_1", "agent_2", "agent_3", "Score", "scores"]


def _hint(message):
    found = re.search(r"did you mean ([^?]*)\?", message)
    return found.group(1) if found else None


def _offered(site, typo):
    """What ``site`` offers for ``typo`` among NAMES: the text between 'did you mean' and '?' (None: nothing)."""
    if site == "did_you_mean":
        return _hint(did_you_mean(typo, NAMES))
    if site == "conditions":  # subset= values, as the note of a '!=' naming no value says them (review23b: this
        # called close_names itself, so it could not fail were the conditions to rank otherwise)
        from rlstats.design import subset_rows

        kept = subset_rows(pd.DataFrame({"agent": NAMES, "score": range(len(NAMES))}), f"agent != {typo!r}")
        return _hint(kept.attrs["rlstats_notes"][-1])
    if site == "agent_named":
        with pytest.raises(OptionError) as caught:
            agent_named(NAMES, "control", typo)
        return _hint(str(caught.value))
    if site == "formula":
        with pytest.raises(FormulaError) as caught:
            check_columns(parse(f"`{typo}` ~ agent | task"), NAMES + ["agent", "task"])
        return _hint(str(caught.value))
    if site == "selection":
        return _hint(_suggest(typo, NAMES))
    raise AssertionError(site)


SITES = ("did_you_mean", "conditions", "agent_named", "formula", "selection")

#: typo -> what each site of SITES offered before the ranking had one home (commit a14c48f3)
BEFORE = {
    "ppo": ("'PPO'", "'PPO'", None, None, None),
    "PP0": (None, "'PPO'", "'PPO'", "'PPO'", "'PPO'"),
    "dqn ": ("'DQN'", "'DQN'", None, None, None),
    "R&D Inc": ("'R&D, Inc'", "'R&D, Inc'", "'R&D, Inc'", "`R&D, Inc`", "'R&D, Inc'"),
    "score": ("'Score'", "'Score'", "'scores', 'Score'", "'scores'", "'scores', 'Score'"),
    "agent_4": ("'agent_1', 'agent_2' or 'agent_3'", "'agent_1', 'agent_2', 'agent_3'",
                "'agent_3', 'agent_2', 'agent_1'", "'agent_3'", "'agent_3', 'agent_2', 'agent_1'"),
    "Agent_2": ("'agent_2'", "'agent_2'", "'agent_2', 'agent_3', 'agent_1'", "'agent_2'",
                "'agent_2', 'agent_3', 'agent_1'"),
    "SAC": (None, None, None, None, None),
}

#: the same, as offered now: every site ranks by errors.close_names. What changed, deliberately: a name equal to the
#: typo but for case or white space at the ends is offered first and alone everywhere (agent_named, the formula and
#: selection compared case-sensitively: 'ppo' got nothing, 'score' got 'scores' before 'Score'); equally close names
#: come in the order given (the data's), where difflib.get_close_matches put them in reverse alphabetical order
#: ('agent_3', 'agent_2', 'agent_1'; the formula's one suggestion was 'agent_3').
NOW = {**BEFORE,
       "ppo": ("'PPO'",) * 5,
       "dqn ": ("'DQN'",) * 5,
       "score": ("'Score'",) * 5,
       "agent_4": ("'agent_1', 'agent_2' or 'agent_3'", "'agent_1', 'agent_2', 'agent_3'",
                   "'agent_1', 'agent_2', 'agent_3'", "'agent_1'", "'agent_1', 'agent_2', 'agent_3'"),
       "Agent_2": ("'agent_2'",) * 5}


@pytest.mark.parametrize("typo", list(NOW))
def test_close_spellings_offered_by_each_site(typo):
    assert tuple(_offered(site, typo) for site in SITES) == NOW[typo]


def test_a_value_that_is_not_text():
    """A number given where names are expected: did_you_mean offers nothing (a number misspells no option value); the
    others compare its text, 31 with '3' (difflib's ratio 0.67) and not '30' (0.5)."""
    names = ["3", "30", "PPO"]
    assert did_you_mean(31, names) == ""
    with pytest.raises(OptionError, match=re.escape("control=31 is not an agent (did you mean '3'?)")):
        agent_named(names, "control", 31)
    assert _suggest(31, names) == " (did you mean '3'?)"


@pytest.mark.parametrize("field, meant", [("sed", "seed"), ("Seed", "seed"), ("agnt", "agent"), ("tsk", "task"),
                                          ("seeds", "seed"), ("TASK", "task"), ("run_id", None)])
def test_close_spellings_of_log_pattern_fields(field, meant):
    _, said = caught(lambda: _warn_misspelt_fields([field]))
    assert [_hint(s) for s in said] == ([] if meant is None else ["{" + meant + "}"])


#: key -> the key offered ('LOW' got nothing before: difflib compared case-sensitively)
NORMALIZE_KEYS = {"lo": "'low'", "High": "'high'", "refrence": "'reference'", 1: None, "hi": "'high'", "LOW": "'low'"}


@pytest.mark.parametrize("key", list(NORMALIZE_KEYS))
def test_close_spellings_of_normalize_keys(key):
    data = pd.DataFrame({"agent": ["a", "b"] * 2, "task": ["t"] * 4, "score": [1.0, 2, 3, 4]})
    with pytest.raises(OptionError, match="normalize= as a dict takes the keys") as caught:
        normalize_response(data, parse("score ~ agent | task"), {"reference": "minmax", key: 0})
    assert _hint(str(caught.value)) == NORMALIZE_KEYS[key]


def test_close_names_ranking():
    """The one ranking: case and end spaces alone first (all such names, up to n), else difflib's ratio of the
    case-folded texts at least the cutoff, most similar first, ties in the order given; names returned as given."""
    assert close_names("Ppo", ["PPO", "DQN", "ppo"]) == ["PPO", "ppo"]
    assert close_names("Ppo", ["PPO", "DQN", "ppo"], n=1) == ["PPO"]
    # 'pp0' ~ 'ppo' 2/3, ~ 'ppo2' 4/7: the one above the cutoff 0.6; at 0.5 both, the closer first
    assert close_names("PP0", ["PPO2", "PPO"]) == ["PPO"]
    assert close_names("PP0", ["PPO2", "PPO"], cutoff=0.5) == ["PPO", "PPO2"]
    assert close_names("agent_4", ["agent_2", "agent_1", "agent_3"], n=None, tied=True) == ["agent_2", "agent_1",
                                                                                            "agent_3"]
    assert close_names("agent_4", ["agent_10", "agent_1"], tied=True) == ["agent_1"]  # 6/7 beats 12/15
    assert close_names(31, [3, 30, "x"]) == [3]  # compared as text, returned as given
    assert close_names("R&D Inc", ["R&D, Inc", "R&D, Inc"]) == ["R&D, Inc"]  # once
    assert close_names("zzz", ["PPO"]) == [] and close_names("zzz", []) == []


# ------------------------------------------------------------------------------------- a subset, by its record

def _minmax_notes(data, **options):
    from rlstats.design import design_of

    return design_of(data, "score ~ agent | task", normalize="minmax", eval_env=0, **options).notes


def _simulated():
    import rlstats

    return rlstats.datasets.simulate(agents=2, tasks=2, seeds=3, rng=0)


def test_a_note_that_reads_like_a_subset_is_no_subset():
    """min-max said its bounds were taken "in the rows subset= kept" when the frame carried any sentence starting
    'subset=' (here one set by hand, every row analysed: task_01 43.33 to 65.426, its 12 runs'), and would stop
    saying it of a real subset if design.subset_rows' wording changed: it reads the note's record now."""
    data = _simulated()
    data.attrs["rlstats_notes"] = ("subset= of a spreadsheet: the rows of 2024",)
    notes = _minmax_notes(data)
    assert notes[0] == "subset= of a spreadsheet: the rows of 2024"
    assert notes[1].endswith("largest score of each task in the data: task_01 43.33 to 65.426, task_02 0.33396 to "
                             "1.0463"), notes
    notes = _minmax_notes(_simulated(), subset="seed < 2")  # 8 of 12 rows: the bounds of those
    assert notes == ("subset='seed < 2' kept 8 of 12 rows",
                     "'score' normalised per task as (score - min) / (max - min) with min and max the smallest and "
                     "largest score of each task in the rows subset= kept: task_01 46.008 to 65.426, task_02 0.33396 "
                     "to 0.73884")


def test_the_subset_record_not_its_wording():
    """The subset's note re-worded (as a later change to design.subset_rows' sentence would) still tells min-max the
    bounds are the subset's; the record survives JSON (Parquet's attrs) and a frame written before it has none."""
    import dataclasses

    from rlstats.design import subset_rows
    from rlstats.provenance import SUBSET, Note, Provenance, has_note, provenance_of, set_notes

    kept = subset_rows(_simulated(), "seed < 2")
    assert has_note(kept, SUBSET) and not has_note(_simulated(), SUBSET)
    assert not has_note(kept.iloc[:4], SUBSET)  # other rows: the frame note, and its record, are not theirs
    provenance = provenance_of(kept)
    set_notes(kept, [dataclasses.replace(note, text="kept the first two seeds") for note in provenance.notes],
              columns=provenance.columns)
    notes = _minmax_notes(kept)
    assert notes[0] == "kept the first two seeds" and "in the rows subset= kept: task_01 46.008 to 65.426" in notes[1]
    import json

    again = Provenance.from_json(json.loads(json.dumps(provenance_of(kept))))
    assert [note.kind for note in again.notes] == [SUBSET]
    old = json.loads(json.dumps(provenance_of(kept)))
    del old["notes"][0]["kind"]
    assert [note.kind for note in Provenance.from_json(old).notes] == [None]
    with pytest.raises(ValueError, match="kind must be None or one of"):
        Note("x", kind="subset=")


# ------------------------------------------------------------------------------------- notes of the rows analysed

def _curves_one_run_short():
    """2 agents x 2 tasks x 3 seeds logged every 10 steps to 100; agent A's seed 2 on t1 stops at 50."""
    import numpy as np

    rng, rows = np.random.default_rng(0), []
    for agent in ["A", "B"]:
        for task in ["t1", "t2"]:
            for seed in range(3):
                last = 50 if (agent, task, seed) == ("A", "t1", 2) else 100
                rows += [(agent, task, seed, step, rng.normal()) for step in range(0, last + 1, 10)]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "step", "score"])


def test_a_summary_note_names_a_run_na_action_dropped():
    """summarize_runs says one run ends early (A's seed 2 on t1, at step 50) and its value is from earlier in training;
    that run's summary is missing, so na_action='drop' leaves it out, and the result said of the 11 runs analysed
    "runs end between steps 50 and 100; 1 run ends more than one logging interval before ...", of a run not there.
    Now as of those rows left out by pandas: "every run ends at step 100"."""
    import numpy as np

    import rlstats

    summary = rlstats.summarize_runs(_curves_one_run_short(), "score ~ agent | task/seed", step="step", how="final")
    assert "runs end between steps 50 and 100" in summary.attrs["rlstats_notes"][0]
    short = (summary["agent"] == "A") & (summary["task"] == "t1") & (summary["seed"] == 2)
    summary.loc[short, "score"] = np.nan
    res = rlstats.compare(summary, "score ~ agent | task/seed", na_action="drop")
    assert res.nobs == 11
    assert res.notes[:2] == ("score: the value at each run's last logged step (every run ends at step 100)",
                             '1 of 12 rows dropped (na_action="drop"): 1 with a missing value in \'score\'')
    assert rlstats.compare(summary[~short], "score ~ agent | task/seed").notes[0] == res.notes[0]


def test_a_minmax_note_names_a_task_kept_out():
    """rlstats.normalize(df, 'minmax') on 3 tasks, one run by a single agent: the test keeps that task out, and its
    note still gave task_03's bounds (14.205 to 19.778) among those of the tasks analysed."""
    import rlstats

    data = rlstats.datasets.simulate(agents=2, tasks=3, seeds=3, rng=0)
    data = data[~((data["task"] == "task_03") & (data["agent"] == "agent_2"))].reset_index(drop=True)
    normalised = rlstats.normalize(data, "minmax")
    assert normalised.attrs["rlstats_notes"][0].endswith(
        "in the data: task_01 -2.5537 to 19.542, task_02 1.6103 to 2.3227, task_03 14.205 to 19.778")
    res = rlstats.compare(normalised, "score ~ agent | task/seed")
    assert res.notes[:2] == (
        "'score' normalised per task as (score - min) / (max - min) with min and max the smallest and largest score "
        "of each task in the frame normalised (before these rows were selected): task_01 -2.5537 to 19.542, task_02 "
        "1.6103 to 2.3227",
        "1 task (3 runs) kept out of the analysis because fewer than two agents have runs there: task_03")


def test_a_minmax_note_names_a_task_a_back_end_left_out():
    """The same frame through the bootstrap, whose build keeps a task of one agent and whose require_complete then
    leaves it out (na_action='drop'): the min-max note gave task_03's bounds (14.205 to 19.778); re-stated by
    select_tasks from Design.note_rows (audit s23 restate23)."""
    import rlstats

    data = rlstats.datasets.simulate(agents=2, tasks=3, seeds=3, rng=0)
    data = data[~((data["task"] == "task_03") & (data["agent"] == "agent_2"))].reset_index(drop=True)
    res = rlstats.bootstrap(rlstats.normalize(data, "minmax"), "score ~ agent | task/seed", na_action="drop",
                            n_resamples=200, rng=0)
    assert res.notes[1] == '1 task left out because some agent has no runs there (na_action="drop"; 3 runs ' \
                           'dropped): task_03'
    assert "task_03" not in res.notes[0], res.notes[0]
