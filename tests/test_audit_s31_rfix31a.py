"""Review s31 (rfix31a): defects confirmed in session 30's change (reproducers /tmp/review31a/r*.py)."""
import json
import warnings
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats.methods.adastop._incremental import AdaStop


# ---- 1. the incremental AdaStop names agents by the one rule, records the labels, and loads what it saved ----------

def _fed(**kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        seq = AdaStop(["0", "1", "2"], n=5, K=2, rng=0, **kw)
        seq.update({a: np.arange(5.0) + (3 if a == "2" else 0) for a in seq.agents_to_run})
    return seq


@pytest.mark.parametrize("kw, option, label", [({"reference": np.int64(2)}, "reference", "2"),
                                              ({"comparisons": [(0, 2.0)]}, "comparisons", (("0", "2"),))])
def test_incremental_records_the_labels_as_adastop_does(kw, option, label):
    seq = _fed(**kw)
    assert seq.result().options[option] == label
    df = pd.DataFrame({"agent": np.repeat([0, 1, 2], 10), "seed": np.tile(range(10), 3),
                       "score": np.r_[np.zeros(20), np.full(10, 3.0)] + np.tile(np.arange(10.0), 3)})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        batch = rlstats.adastop(df, "score ~ agent", n=5, K=2, rng=0, **kw)
    assert batch.options[option] == label


def test_state_with_integer_labelled_pairs_loads(tmp_path):
    seq = _fed(comparisons=[(0, 2.0)])
    back = AdaStop.load(seq.save(tmp_path / "s.json"))
    assert back._options.comparisons == (("0", "2"),)
    assert json.loads((tmp_path / "s.json").read_text())["options"]["comparisons"] == [["0", "2"]]
    assert back.decisions.equals(seq.decisions)


def _old_state(tmp_path, **given):
    """A state as session 30's rlstats wrote it: reference= and comparisons= recorded as given (label_value's int 2,
    the pair [0, 2.0]), the digests over those."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        seq = AdaStop(["0", "1", "2"], n=5, K=2, rng=0,
                      **{k: ("2" if k == "reference" else [("0", "2")]) for k in given})
    seq._options = replace(seq._options, **given)
    seq.update({a: np.arange(5.0) + (3 if a == "2" else 0) for a in seq.agents_to_run})
    return seq, seq.save(tmp_path / "old.json")


@pytest.mark.parametrize("given, option, label", [({"reference": 2}, "reference", "2"),
                                                 ({"comparisons": ((0, 2.0),)}, "comparisons", (("0", "2"),))])
def test_state_recording_names_as_given_still_loads(tmp_path, given, option, label):
    seq, path = _old_state(tmp_path, **given)
    state = json.loads(path.read_text())
    assert state["options"][option] == (2 if option == "reference" else [[0, 2.0]])  # as session 30 wrote it
    back = AdaStop.load(path)
    assert getattr(back._options, option) == label
    assert back.decisions.equals(seq.decisions)
    # an edit of such a state is still refused: the digests cover the names as recorded
    state["options"][option] = 1 if option == "reference" else [[1, 2.0]]
    path.write_text(json.dumps(state))
    with pytest.raises(rlstats.DesignError, match=f"batch 1 of the AdaStop state .* does not match its recorded digest: option {option} changed"):
        AdaStop.load(path)
