"""Audit s16 (bayes16): rlstats.bayes as a user on real data (Atari 100k human-normalised, SB3 classic-control
evaluations).  Checked and found right: the signed-rank probabilities against baycomp 1.0.3 (DrQ(eps) vs SPR,
rope 0.01 normalised, 26 games x 100 runs: rlstats 0.00812 / 0 / 0.99188, baycomp 0.00822 / 2e-05 / 0.99176) and a
numpy Dirichlet simulation written for the audit; scores x 1000 with rope x 1000, row order and swapped agents (both
models).  The defects below are of the words."""

import dataclasses

import numpy as np
import pandas as pd
import pytest

import rlstats


def _fit():
    df = rlstats.datasets.simulate(agents=2, tasks=8, seeds=3, effect=1.0, rng=0)
    return rlstats.bayes(df, "score ~ agent | task/seed", rope=0.1, rng=0, n_samples=1000)


def test_a_share_near_one_is_not_printed_as_a_certainty():
    """DER vs SPR (Atari 100k, normalised, rope 0.01, 3 agents, rng=0) has P(worse) = 0.99996 of 50,000 draws: the
    print, summary and report rounded it to "1" (4 significant digits) and the simplex's corner read "1", a certainty
    the draws do not show (the print writes a share of 1 exactly as "> 1 - 1/n" for that reason).  A share that rounds
    to 1 is now "> 0.9999" (4 digits) / "> 0.999" (3)."""
    res = _fit()
    assert res._share(0.99996, 4) == "> 0.9999"
    assert res._share(0.99996, 3) == "> 0.999"
    assert res._share(0.9996, 3) == "> 0.999"
    assert res._share(0.9996, 4) == "0.9996"       # unchanged where the digits show it
    assert res._share(1.0, 4) == "> 1 - 1/1000"      # as before
    # the print's 5 digits since audit s30 mends30 (those of summary() and to_latex()): 0.99996 shows as it is
    near = dataclasses.replace(res, comparisons=res.comparisons.assign(p_better=0.999996, p_rope=0.000003,
                                                                       p_worse=0.000001))
    assert "0.999996" not in str(near) and "> 0.99999" in str(near)
    assert "P(better) $>$ 0.999," in near.report()  # LaTeX-escaped


def test_posterior_title_does_not_round_to_certainty():
    """plot(kind="posterior") titled DER vs SPR "better 0.00, rope 0.00, worse 1.00" (two decimals), where the print
    gives 2e-05 / 2e-05 / 0.99996: the title now writes the shares as the print does."""
    import matplotlib.pyplot as plt

    res = _fit()
    near = dataclasses.replace(res, comparisons=res.comparisons.assign(p_better=0.99996, p_rope=0.00002,
                                                                       p_worse=0.0))
    ax = near.plot(kind="posterior")
    title = ax.get_title()
    plt.close(ax.figure)
    assert "better > 0.99" in title and "rope 2e-05" in title and "worse < 1/1000" in title
    assert "1.00" not in title and "0.00" not in title


def test_report_gives_the_draws_of_a_run_again():
    """When a pair's chains were run again longer (IRIS vs SPR, Atari 100k, 4 chains of 500 draws, run again with
    8,000 a chain), report() said "fitted by Gibbs sampling with 4 chains of 500 draws"; the print's header already
    adds "more where a note says", and the report now says so too."""
    rng = np.random.default_rng(1)
    rows = [(a, f"t{t}", r, 10.0 * t + (0.5 if a == "A" else 0.0) + rng.normal())
            for t in range(3) for a in ("A", "B") for r in range(3)]
    df = pd.DataFrame(rows, columns=["agent", "task", "seed", "score"])
    from rlstats.methods.bayes import _api

    mp = pytest.MonkeyPatch()
    mp.setattr(_api, "ESS_LIMIT", 1e9)   # no chain reaches it: every pair is run again, to the bound
    mp.setattr(_api, "MAX_EXTENSION", 2)
    try:
        with pytest.warns(UserWarning, match="did not show convergence"):
            res = rlstats.bayes(df, "score ~ agent | task/seed", model="hierarchical", chains=2, warmup=100,
                                draws=100, rng=3, progress=False)
    finally:
        mp.undo()
    assert any("extended to 200 and 200 a chain" in note for note in res.notes)
    assert "with 2 chains of 100 draws, more where a note says;" in res.report()


def test_signed_rank_agrees_with_a_dirichlet_simulation_written_here():
    """The signed-rank probabilities against a direct simulation of the Dirichlet-process posterior (weights
    Dir(0.5, 1, ..., 1) over the pseudo-observation 0 and the task differences, each draw's masses of the Walsh
    averages below, within and above the ROPE, the largest one counted), on differences with mass on every side."""
    # no Walsh average on a bound (rlstats splits those 1/2 - 1/2, as its docstring says; -0.2 and 0 gave one)
    d = np.array([-0.37, -0.23, -0.06, 0.025, 0.043, 0.081, 0.155, 0.31, 0.62, 0.93])
    df = pd.DataFrame({"agent": ["A"] * 10 + ["B"] * 10, "task": [f"t{i}" for i in range(10)] * 2,
                       "score": np.r_[d, np.zeros(10)]})
    res = rlstats.bayes(df, "score ~ agent | task", rope=0.1, rng=0, n_samples=20_000, normalize=False)
    got = res.tidy()[["p_worse", "p_rope", "p_better"]].to_numpy()[0]
    rng = np.random.default_rng(12)
    z = np.r_[0.0, d]
    walsh = (z[:, None] + z[None, :]) / 2
    w = rng.dirichlet(np.r_[0.5, np.ones(d.size)], size=20_000)
    masses = np.stack([np.einsum("si,ij,sj->s", w, region, w) for region in
                       (walsh < -0.1, np.abs(walsh) <= 0.1, walsh > 0.1)], axis=1)
    want = np.bincount(masses.argmax(axis=1), minlength=3) / 20_000
    assert got.sum() == pytest.approx(1.0)
    assert want[2] > 0.5 and want[1] > 0.1   # the regions this design reaches
    # two independent shares of 20,000 draws: their difference has sd below 0.005
    np.testing.assert_allclose(got, want, atol=0.015)
