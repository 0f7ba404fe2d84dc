"""Session 20, the lead's mends found while merging: power() from a pilot printed AdaStop's note on batches that
repeat an earlier one, which the pilot's resampling with replacement makes by construction."""

import numpy as np
import pandas as pd
import pytest
from conftest import caught

import rlstats
from rlstats.errors import RlstatsWarning


def test_pilot_power_leaves_out_repeats_its_resampling_makes():
    """power("adastop") from a pilot of 3 agents x 4 tasks x 5 runs at 10 seeds (n = 2 a batch) warned "runs that
    repeat an earlier interim's exactly ... a batch should hold new runs": true of a data set drawn with replacement
    (agent_1 on task_02 drew the same two runs twice; with audit s34 powerstream34's cell streams, 11 cells of the
    10 data sets do, agent_1 on task_04 in the first), of no data the user collected. The power is unchanged (0.375,
    as tests/test_audit_s10_order.py records) and adastop() on data with such a batch still says it."""
    pilot = rlstats.datasets.simulate(agents=3, tasks=4, seeds=5, effect=1.0, rng=0)
    pilot.attrs = {}
    res, said = caught(lambda: rlstats.power("adastop", design=pilot, formula="score ~ agent | task", seeds=[10],
                                             n_sim=10, rng=1, progress=False, permutations="joint"))
    assert res.tidy()["power"].tolist() == [0.375]  # 0.35 before audit s33's task keys, 0.4 before s34 powerstream34's
    # cell keys, as test_audit_s10_order
    assert not any("repeat an earlier interim" in s for s in said), said
    # the same check on collected runs: B's second batch repeats its first
    rng = np.random.default_rng(3)
    first = rng.normal(size=5)
    runs = pd.DataFrame({"agent": ["A"] * 10 + ["B"] * 10, "seed": list(range(10)) * 2,
                         "score": np.r_[rng.normal(size=10), first, first[::-1]]})
    with pytest.warns(RlstatsWarning, match="repeat an earlier interim's exactly"):
        rlstats.adastop(runs, "score ~ agent", n=5, K=2, rng=0, progress=False)
