"""Session 15 review: a second reading of the session's merged changes (c412d1e..291d553).

Read and run: power()'s vectorised exact p-values and pvalue="auto"'s one home, sample_size()'s rule and sentence,
tuning's config levels, weights and best set, selection_check's round-off rule, read_logs' NaN rows, reruns and
one-file wording, curves' withholding at steps with 2 runs, the command line's AdaStop advice, rlstats.concat in
interop, the Generator record, bayes' diagnostics and plotting's layout. The defects found are reproduced here.
"""

import re

import numpy as np
import pandas as pd
import pytest

import rlstats
from rlstats.errors import OptionError


def _sweep(rows):
    """A one-agent sweep over lr on two tasks, the lr column of object dtype holding the values as given."""
    frame = pd.DataFrame(rows, columns=["agent", "task", "lr", "seed", "score"])
    frame["lr"] = pd.Series([r[2] for r in rows], dtype=object)
    return frame


def test_config_labels_do_not_change_with_row_order():
    """tuning: 0 and 0.0 in a config column are one setting (session 15), but the level was named by the value
    met first in row order: the best set said 'lr=0' for the frame and 'lr=0.0' for the same rows reversed; now the
    smallest of its texts."""
    rows = [("ppo", task, lr, f"{lr!r}-{s}", float(s) + (lr == 0.5))
            for task in ("t1", "t2") for lr in (0, 0.0, 0.5) for s in range(3)]
    frame = _sweep(rows)
    kwargs = dict(config="lr", rng=0, views="best_set", n_resamples=200)
    forward = rlstats.tuning(frame, "score ~ agent | task/seed", **kwargs).best_set()
    backward = rlstats.tuning(frame.iloc[::-1], "score ~ agent | task/seed", **kwargs).best_set()
    assert sorted(forward["config"]) == sorted(backward["config"]) == ["lr=0", "lr=0", "lr=0.5", "lr=0.5"]


def test_adastop_advice_divides_every_number_of_seeds():
    """power('adastop', seeds=[3, 5]) refused 3 seeds (not a multiple of the default K = 5) advising 'e.g. K=3',
    which does not divide 5: following it gives the next refusal, 'e.g. K=5'. The K advised should divide every
    number of seeds asked about: none above 1 here, which the advice now says; with seeds 6 and 9, K=3."""
    with pytest.raises(OptionError) as caught:
        rlstats.power("adastop", seeds=[3, 5], n_sim=5, tasks=3, rng=0, progress=False)
    assert "e.g. K=" not in str(caught.value) and "no K above 1 divides" in str(caught.value)
    with pytest.raises(OptionError) as caught:
        rlstats.power("adastop", seeds=[6, 9], n_sim=5, tasks=3, rng=0, progress=False)
    advised = int(re.search(r"e\.g\. K=(\d+)", str(caught.value)).group(1))
    assert 6 % advised == 0 and 9 % advised == 0 and advised > 1, str(caught.value)


def _tied_at_zero(scale):
    """Agent a's runs are b's, listed in another order in each task: every effect is 0 in exact arithmetic, and
    the means' summation order leaves round-off (effects of -1.1e-16 to 1.1e-16 at scale 1)."""
    rng = np.random.default_rng(3)
    rows = []
    for t in range(8):
        x = rng.random(3) * 0.9 + 0.1
        rows += [("b", f"t{t}", s, x[s] * scale) for s in range(3)]
        rows += [("a", f"t{t}", s, x[(s + 1) % 3] * scale) for s in range(3)]
    return pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])


@pytest.mark.parametrize("scale", [1.0, 0.1, 7.3])
def test_selection_check_effects_that_tie_at_zero_have_no_spread(scale):
    """selection_check (session 15) reads effects that tie but for round-off as having no spread by R's t.test
    rule, 10 eps times the larger |mean|; effects that tie at 0 (a treatment whose runs are the baseline's) have
    mean 0 and pass it, so round-off was read as spread and moved with the units: the reporter's p-value 0.21,
    0.5, 0.5, the detection probability 0.098, 0.0036, 0.0036 and the pooled-t inspector's t 1.48, 0.0, -0.40 at
    scales 1, 0.1 and 7.3. As for effects that tie at 1: no detection probability, and the t inspector refuses."""
    df = _tied_at_zero(scale)
    call = dict(treatment="a", baseline="b", reported=["t0", "t1", "t2"], normalize=False, rng=0)
    res = rlstats.selection_check(df, "score ~ agent | task", **call)
    assert res.detection_probability is None and np.isnan(res.pvalue_reporter)
    with pytest.raises(rlstats.errors.DesignError, match="no spread"):
        rlstats.selection_check(df, "score ~ agent | task", inspector="t", **call)



def test_varying_weights_are_refused_in_any_units():
    """tuning's weights= check (session 15: each configuration's largest weight against its smallest) used
    np.allclose's absolute tolerance of 1e-8: the weights 1, 0, 2 of one configuration were refused, the same
    weights in units of 1e-9 passed silently and the configuration weighed as its first run's weight. Now relative."""
    rows = [("ppo", "ant", c, s, float(v)) for c, runs in enumerate([[0.1, 0.2, 0.3], [1.0, 1.1, 0.9],
                                                                     [2.0, 2.5, 3.0]]) for s, v in enumerate(runs)]
    df = pd.DataFrame(rows, columns=["agent", "task", "lr", "seed", "score"])
    df["w"] = np.array([1.0, 0.0, 2.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]) * 1e-9
    with pytest.raises(rlstats.errors.DesignError, match="varies within a configuration"):
        rlstats.tuning(df, "score ~ agent | task/seed", config="lr", weights="w", views=["complete"], rng=0)


def test_adastop_advice_says_when_no_k_divides_every_number_of_seeds():
    """Seeds 3 and 7 share no divisor above 1: the advice says so rather than offering a K that one of them
    refuses next."""
    with pytest.raises(OptionError, match=r"no K above 1 divides every number of seeds asked about \(3 and 7\)"):
        rlstats.power("adastop", seeds=[3, 7], n_sim=5, tasks=3, rng=0, progress=False)
    with pytest.raises(OptionError, match=r"e\.g\. K=3, which divides 3, 6 and 9"):
        rlstats.power("adastop", seeds=[3, 6, 9], n_sim=5, tasks=3, rng=0, progress=False)
