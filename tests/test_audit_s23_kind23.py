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

@pytest.mark.xfail(strict=True, reason="normalised_in matches notes starting \"'<column>' normalised\"")
def test_a_note_that_reads_like_normalisation_is_none():
    """A hand-set note "'score' normalised by ..." made build call raw scores normalised: the units 'normalised
    scores' and no raw-scales warning."""
    data = _simulated()
    data.attrs["rlstats_notes"] = ("'score' normalised by the largest return reported in the paper",)
    design = build(data, "score ~ agent | task/seed")
    assert not design.normalized
    assert design.unit == "the units of 'score'"


# ------------------------------------------------------------------------------- bayes: "more where a note says"

@pytest.mark.xfail(strict=True, reason="BayesResult._more matches RUN_AGAIN in any note, the frame's too")
def test_bayes_header_reads_its_own_record_of_pairs_run_again():
    """A frame note holding "were run again with warm-up and draws extended to" made the model line say "more where
    a note says" of chains no pair was run again with."""
    data = _simulated()
    data.attrs["rlstats_notes"] = ("the seeds were run again with warm-up and draws extended to 4000 by the authors",)
    result = rlstats.bayes(data, "score ~ agent | task/seed", rng=0, model="hierarchical", chains=2, draws=100,
                           warmup=100, progress=False)
    assert "model: hierarchical model (2 chains of 100 draws after warm-up)\n" in str(result)


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


@pytest.mark.xfail(strict=True, reason="TuningResult.not_computed quotes the first note starting with the view's name")
def test_tuning_quotes_its_own_reason_not_a_frame_note():
    """A frame note "sensitivity analysis not computed in the paper" was quoted as why the view is missing."""
    result = _sensitivity_not_computed("sensitivity analysis not computed in the paper")
    assert result.notes[0] == "sensitivity analysis not computed in the paper"
    with pytest.raises(rlstats.errors.OptionError) as error:
        result.sensitivity()
    assert str(error.value) == WHY


# ------------------------------------------------------------------------------- task_table: the aggregate row's notes

@pytest.mark.xfail(strict=True, reason="task_table takes the bootstrap's notes holding 'weighs each task alike'")
def test_task_table_says_a_frame_note_once():
    """A frame note holding "weighs each task alike" was printed twice: among the frame's notes and again as the
    aggregate row's (taken from the bootstrap's notes by its words)."""
    data = _simulated()
    data.attrs["rlstats_notes"] = ("the PPO paper weighs each task alike",)
    result = rlstats.task_table(data, "score ~ agent | task/seed", rng=0, n_resamples=200, aggregate="bootstrap")
    assert result.notes.count("the PPO paper weighs each task alike") == 1


def _normalised_runs_of_seeds():
    """2 agents x 3 tasks x 4 seeds in 2 runs (seed % 2), normalised with a reference frame of each task's range."""
    data = rlstats.datasets.simulate(agents=2, tasks=3, seeds=4, rng=0)
    data["run"] = data["seed"] % 2
    ref = data.groupby("task").score.agg(["min", "max"]).reset_index().rename(columns={"min": "random",
                                                                                       "max": "human"})
    return rlstats.normalize(data, ref)


@pytest.mark.xfail(strict=True, reason="the run means' formula reads '`score`', which normalised_in did not match")
def test_run_means_of_normalised_scores_are_normalised():
    """Seeds averaged within runs ('| task/run/seed') of a normalised frame: the means' formula names the response
    '`score`', and the result said "'`score`' was not normalised here" beside the note that it was."""
    result = rlstats.bootstrap(_normalised_runs_of_seeds(), "score ~ agent | task/run/seed", rng=0, n_resamples=100,
                               progress=False)
    assert result.notes[1].startswith("'score' normalised per task as (score - random) / (human - random)")
    assert result.design.normalized
    assert not any("was not normalised here" in note for note in result.notes)
