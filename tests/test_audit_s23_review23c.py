"""Audit s23 (review23c): a review of rhabits23 (``design.public_function``, R's habits at the call) and of
kind23/restate23 (notes by kind, re-stated after a back end's own drop).

* ``power()``/``sample_size()`` take the methods' options in ``**method_options`` and checked their names apart
  from ``options.unknown_option_error``: ``power("bootstrap", seed=1)`` said "seed=1 is not an option of
  bootstrap" and listed bootstrap's options, never power()'s own ``rng=``; ``p.adjust=`` for the rank test never
  named its ``adjustment=``.
* R's ``f(formula, data=df)`` was moved into place whatever else was given positionally: ``bootstrap(f, "x",
  data=df)`` (two positional arguments) was told by Python that 3 positional arguments were given.
"""

import pytest

import rlstats

DF = rlstats.datasets.simulate(agents=3, tasks=3, seeds=2, effect=1.0, rng=0)
FORMULA = "score ~ agent | task"


def test_power_names_its_own_rng_for_seed_and_the_methods_spelling_of_p_adjust():
    with pytest.raises(rlstats.OptionError, match=r"power\(\) has no option seed=: its name here is rng= "
                                                  r"\(seed= is another package's spelling\); pass rng=1"):
        rlstats.power("bootstrap", seed=1, n_sim=2, progress=False)
    with pytest.raises(rlstats.OptionError, match=r"skillings_mack in power\(\) has no option p.adjust=: its name "
                                                  r"here is adjustment= .*; pass adjustment='holm'"):
        rlstats.power("skillings_mack", n_sim=2, progress=False, **{"p.adjust": "holm"})
    with pytest.raises(rlstats.OptionError, match=r"sample_size\(\) has no option random_state=: its name here "
                                                  r"is rng="):
        rlstats.sample_size("bootstrap", random_state=1)
    with pytest.raises(rlstats.OptionError, match=r"skillings_mack in power\(\) has no option na.action=: .*; pass "
                                                  r"na_action='drop'$"):
        rlstats.power("skillings_mack", n_sim=2, progress=False, **{"na.action": "na.omit"})


def test_r_order_with_two_positionals_keeps_pythons_true_message():
    # audit s24 review24a: R matches data= first, so "score" is the surplus value, named (Python's TypeError named none)
    with pytest.raises(rlstats.OptionError, match=r"^bootstrap\(\) takes 2 values by position \(data, formula\), got 2 "
                                                  r"beside data= by name: give 'score' by its option's name; "):
        rlstats.bootstrap(FORMULA, "score", data=DF, n_resamples=50, rng=0)
    # where the call still fits, R's order is the call in rlstats' order: compare(f, method, data=df)
    r_order = rlstats.compare(FORMULA, "bootstrap", data=DF, n_resamples=200, rng=0, progress=False)
    ours = rlstats.compare(DF, FORMULA, "bootstrap", n_resamples=200, rng=0, progress=False)
    assert r_order.estimates.tolist() == ours.estimates.tolist()
    assert r_order.estimates.shape == (3, 4)  # three agents, four metrics: iqm, mean, median, optimality_gap
    by_hand = DF.groupby(["agent", "task"]).score.mean().groupby("agent").mean()  # the mean of the task means
    assert r_order.estimates[:, 1] == pytest.approx(by_hand[list(r_order.agents)].to_numpy(), rel=1e-12)


def test_a_stack_with_raw_rows_is_not_normalised_scores():
    """rlstats.concat of a frame rlstats.normalize made and a raw one: the Design called every score normalised
    ("normalised scores", no raw-scales warning), though agent_3's run 0.98 to 50.45 on the raw scale."""
    data = rlstats.datasets.simulate(agents=3, tasks=3, seeds=4, rng=2)
    half = rlstats.normalize(data[data.agent != "agent_3"], "minmax")
    stacked = rlstats.concat([half, data[data.agent == "agent_3"]])
    assert stacked.loc[stacked.agent == "agent_3", "score"].max() == pytest.approx(50.45, abs=0.01)  # raw
    design = rlstats.build(stacked, FORMULA)
    assert not design.normalized and design.units == "the units of 'score'"
    # the normalised agents alone are normalised scores (the raw rows not analysed), and so is a stack of
    # frames each normalised
    assert rlstats.build(stacked[stacked.agent != "agent_3"], FORMULA).normalized
    both = rlstats.concat([half, rlstats.normalize(data[data.agent == "agent_3"], "minmax")])
    assert rlstats.build(both, FORMULA).normalized
    assert both["score"].between(0, 1).all()


def test_r_na_action_values_are_said_in_rlstats_values():
    """R's na.action takes na.omit, na.exclude or na.fail: the way on said "pass na_action='na.omit'", which the
    next call refused ("not one of the allowed values: 'raise', 'drop', 'omit'")."""
    for given, own in (("na.omit", "drop"), ("na.exclude", "drop"), ("na.fail", "raise"), ("drop", "drop")):
        with pytest.raises(rlstats.OptionError, match=rf"\(na.action= is R's spelling\); pass na_action='{own}'$"):
            rlstats.bootstrap(DF, FORMULA, **{"na.action": given})
        design = rlstats.build(DF, FORMULA, na_action=own)  # the value said is one the option takes
        assert design.nobs == 18
