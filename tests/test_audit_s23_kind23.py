"""Audit s23 kind23: what the package does no longer depends on the wording of a note (a frame's note set by hand that
reads alike, or a sentence of rlstats re-worded): each site reads a record (a note's kind, a result's field) set
where the note is made."""

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats.design import build


def _simulated():
    return rlstats.datasets.simulate(agents=2, tasks=3, seeds=3, rng=0)


# ------------------------------------------------------------------------------- Design.normalized (normalised_in)

def test_a_note_that_reads_like_normalisation_is_none():
    """A hand-set note "'score' normalised by ..." made build call raw scores normalised: the units 'normalised
    scores' and no raw-scales warning. Build reads the normaliser's record (kind NORMALISED and its column)."""
    data = _simulated()
    data.attrs["rlstats_notes"] = ("'score' normalised by the largest return reported in the paper",)
    design = build(data, "score ~ agent | task/seed")
    assert not design.normalized
    assert design.units == "the units of 'score'"


def _reference(data):
    return data.groupby("task").score.agg(["min", "max"]).reset_index().rename(columns={"min": "random",
                                                                                      "max": "human"})


def test_the_normalisers_record_not_its_wording():
    """Frames of rlstats.normalize read as normalised whatever the note's sentence (re-worded here), after Parquet
    (attrs as JSON), in a stack of frames normalised apart, and only for the column normalised; a file written
    before notes had kinds reads as before (by its sentence); a frame's note set by hand never does."""
    import dataclasses
    import io
    import json

    from rlstats.provenance import NORMALISED, Provenance, has_note, provenance_of, set_notes

    data = _simulated()
    data["other"] = data["score"]
    sourced = _reference(data).assign(source="made up")
    for reference in (_reference(data), sourced, "minmax"):
        normalised = rlstats.normalize(data, reference)
        assert has_note(normalised, NORMALISED) and build(normalised, "score ~ agent | task/seed").normalized
        assert not build(normalised, "other ~ agent | task/seed").normalized  # another column: raw
        provenance = provenance_of(normalised)
        reworded = normalised.copy()
        set_notes(reworded, [dataclasses.replace(n, text=f"rescaled ({i})") for i, n in enumerate(provenance.notes)],
                  columns=provenance.columns)
        assert build(reworded, "score ~ agent | task/seed").normalized
        back = normalised.copy()  # the attrs as Parquet stores them (JSON)
        back.attrs = json.loads(json.dumps({"rlstats_provenance": provenance, "rlstats_notes": list(provenance.texts)}))
        assert type(back.attrs["rlstats_provenance"]) is dict and build(back, "score ~ agent | task/seed").normalized
        buffer = io.BytesIO()
        normalised.to_parquet(buffer)
        read = pd.read_parquet(io.BytesIO(buffer.getvalue()))
        if read.attrs:  # pandas >= 2.1 writes attrs to Parquet
            assert type(read.attrs["rlstats_provenance"]) is dict
            assert build(read, "score ~ agent | task/seed").normalized
        old = json.loads(json.dumps(provenance))
        for note in old["notes"]:
            del note["kind"]
        if reference is sourced:  # its data was the sentence alone then: worded again from it
            old["notes"][0]["data"] = old["notes"][0]["data"][0]
        before = normalised.copy()
        before.attrs = {"rlstats_provenance": old, "rlstats_notes": list(normalised.attrs["rlstats_notes"])}
        assert [n.kind for n in Provenance.from_json(old).notes] == [None]
        assert build(before, "score ~ agent | task/seed").normalized
        assert not build(before, "other ~ agent | task/seed").normalized
        if reference is sourced:  # a subset of its tasks: the note worded again, naming the sources of those
            design = build(before[before.task == "task_01"], "score ~ agent | seed")
            assert design.notes[0].endswith("from the reference frame (made up)") and design.normalized
    agents = [rlstats.normalize(data[data.agent == a].reset_index(drop=True), "minmax") for a in ("agent_1", "agent_2")]
    stacked = rlstats.concat(agents)
    assert stacked.attrs["rlstats_notes"][1].endswith("task_03 18.323 to 19.568 (rows with agent 'agent_2')")
    assert build(stacked, "score ~ agent | task/seed").normalized  # each agent's rows normalised apart
    assert not build(pd.concat([agents[0], data[data.agent == "agent_2"]]), "score ~ agent | task/seed").normalized
    hand = data.copy()
    hand.attrs["rlstats_provenance"] = {"notes": [{"text": "'score' normalised by hand", "scope": "operation",
                                                   "keys": [], "items": [], "word": None, "data": None,
                                                   "kind": None}], "n_rows": 18, "columns": [], "digest": 0}
    assert not build(hand, "score ~ agent | task/seed").normalized


# ------------------------------------------------------------------------------- bayes: "more where a note says"

def test_bayes_header_reads_its_own_record_of_pairs_run_again():
    """A frame note holding "were run again with warm-up and draws extended to" made the model line say "more where
    a note says" of chains no pair was run again with: it reads the pairs' draws now (more than chains x draws where
    run again; tests/test_audit_s16_bayes.py and test_audit_s13_bayesconv.py keep the line where they were)."""
    rng = np.random.default_rng(1)
    data = pd.DataFrame([(a, f"t{k}", s, rng.normal(0.3 * (a == "B"), 1)) for a in "AB" for k in range(6)
                         for s in range(5)], columns=["agent", "task", "seed", "score"])
    data.attrs["rlstats_notes"] = ("the seeds were run again with warm-up and draws extended to 4000 by the authors",)
    result = rlstats.bayes(data, "score ~ agent | task/seed", rng=0, model="hierarchical", chains=4, draws=1000,
                           warmup=300, progress=False)
    assert result.pair_draws == (4000,)  # converged: not run again
    assert "model: hierarchical model (4 chains of 1,000 draws after warm-up)\n" in str(result)


# ------------------------------------------------------------------------------- tuning: why a view is not computed

def _sensitivity_not_computed(note=None):
    """Agent a tuned on t0 only, b on t1 only, percentiles=None: sensitivity is asked for (by default), left out."""
    rng = np.random.default_rng(0)
    rows = [(a, t, lr, s, float(rng.normal(lr, 1))) for a, t in (("a", "t0"), ("b", "t1")) for lr in (0.1, 0.2, 0.3)
            for s in range(3)]
    frame = pd.DataFrame(rows, columns=["agent", "task", "lr", "seed", "score"])
    if note is not None:
        frame.attrs["rlstats_notes"] = (note,)
    return rlstats.tuning(frame, "score ~ agent | task/seed", config="lr", rng=0, progress=False, n_resamples=200,
                          percentiles=None)


WHY = ("the sensitivity view was asked for but not computed here: sensitivity() not computed: no agent has runs on "
       "every task with a configuration run on all of them (the notes above say which agent lacks what)")


def test_tuning_quotes_its_own_reason_not_a_frame_note():
    """A frame note "sensitivity analysis not computed in the paper" was quoted as why the view is missing: the
    result records the note that says why where it is made (TuningResult.not_computed_why)."""
    result = _sensitivity_not_computed("sensitivity analysis not computed in the paper")
    assert result.notes[0] == "sensitivity analysis not computed in the paper"
    with pytest.raises(rlstats.errors.OptionError) as error:
        result.sensitivity()
    assert str(error.value) == WHY
    assert result.not_computed_why == {"sensitivity": WHY.split("here: ", 1)[1]}
    assert result.to_dict()["not_computed_why"] == result.not_computed_why


# ------------------------------------------------------------------------------- task_table: the aggregate row's notes

def test_task_table_says_a_frame_note_once():
    """A frame note holding "weighs each task alike" was printed twice: among the frame's notes and again as the
    aggregate row's (taken from the bootstrap's notes by its words); the bootstrap's own notes alone are read now."""
    data = _simulated()
    data.attrs["rlstats_notes"] = ("the PPO paper weighs each task alike",)
    result = rlstats.task_table(data, "score ~ agent | task/seed", rng=0, n_resamples=200, aggregate="bootstrap")
    # (the raw-scales caution is the bootstrap's rule since audit s30: these 3 tasks' ranges are 7 times apart, not 10;
    # scale32's halves are read from 4 tasks, review32c)
    assert result.notes == ("the PPO paper weighs each task alike",)


def _normalised_runs_of_seeds():
    """2 agents x 3 tasks x 4 seeds in 2 runs (seed % 2), normalised with a reference frame of each task's range."""
    data = rlstats.datasets.simulate(agents=2, tasks=3, seeds=4, rng=0)
    data["run"] = data["seed"] % 2
    ref = data.groupby("task").score.agg(["min", "max"]).reset_index().rename(columns={"min": "random",
                                                                                       "max": "human"})
    return rlstats.normalize(data, ref)


def test_run_means_of_normalised_scores_are_normalised():
    """Seeds averaged within runs ('| task/run/seed') of a normalised frame: the means' formula names the response
    '`score`', and the result said "'`score`' was not normalised here" beside the note that it was."""
    result = rlstats.bootstrap(_normalised_runs_of_seeds(), "score ~ agent | task/run/seed", rng=0, n_resamples=100,
                               progress=False)
    assert result.notes[1].startswith("'score' normalised per task as (score - random) / (human - random)")
    assert result.design.normalized
    assert not any("was not normalised here" in note for note in result.notes)


# ------------------------------------------------------------------------------- the task table's caption

def test_task_table_caption_reads_no_frame_note_for_averaged_seeds():
    """A frame note saying the user averaged episodes within each seed made the caption call each seed 'the mean of
    its seeds'; the caption reads Design.averaged_within, set by _average_nested (audit s23 restate23)."""
    data = _simulated()
    data.attrs["rlstats_notes"] = ("10 evaluation episodes averaged within each seed: the seed is the unit",)
    caption = rlstats.task_table(data, "score ~ agent | task/seed", rng=0).caption()
    assert "standard deviation over 3 runs (seeds) per agent and task" in caption, caption
