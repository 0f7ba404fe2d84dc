"""Draw the README's figures of its real cases: performance profiles of the five Atari 100k games of its table,
and the sample-efficiency figure of the Dopamine baselines (vignettes/learning_curves_dopamine.py's call).

Run from the repository root (the published runs are downloaded once, or read offline from
RLSTATS_DATA_MIRROR):

    python docs/readme_figure.py            # writes docs/figures/atari100k_profiles.png and
                                            # vignettes/figures/dopamine_iqm.png

The profiles are one column of a paper wide (3.3 in), so the README shows what a reader would print; the curves
are drawn as the vignette draws them (6.5 in).
"""

from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # a file, never a window

import rlstats  # noqa: E402

AGENTS = ["CURL", "DER", "DrQ(eps)", "SPR"]
GAMES = ["Alien", "Boxing", "Breakout", "Freeway", "Pong"]
OUT = Path(__file__).resolve().parent / "figures" / "atari100k_profiles.png"
CURVES_OUT = Path(__file__).resolve().parents[1] / "vignettes" / "figures" / "dopamine_iqm.png"


def main():
    runs = rlstats.datasets.load("atari100k")
    five_games = runs[runs["agent"].isin(AGENTS) & runs["task"].isin(GAMES)]
    res = rlstats.performance_profile(five_games, "score ~ agent | task", normalize="atari100k_reference",
                                      rng=0)
    ax = res.plot()
    ax.set_xlabel("human-normalised score threshold tau")
    figure = ax.figure
    figure.set_size_inches(3.3, 2.4)
    figure.savefig(OUT, dpi=200, bbox_inches="tight")
    print(f"wrote {OUT} ({OUT.stat().st_size // 1024} KB)")
    print(res.notes[-1])
    dopamine_curves()


def dopamine_curves():
    """The 55 Dopamine games with human and random scores, IQM of human-normalised scores per iteration, 95%
    simultaneous bands from 2,000 whole-run resamples: the vignette's result and figure."""
    import matplotlib.pyplot as plt

    dopamine = rlstats.datasets.load("dopamine_atari")
    reference = rlstats.datasets.load("atari_reference")
    games = dopamine[dopamine["task"].isin(reference["task"])]
    res = rlstats.curves(games, "score ~ agent | task/seed", step="step", normalize="atari_reference",
                         statistic="iqm", compare=[("Rainbow", "IQN")], n_resamples=2_000, rng=0, n_jobs=2)
    fig, ax = plt.subplots(figsize=(6.5, 4), layout="constrained")
    res.plot(ax=ax)
    ax.set_xlabel("iteration (1M frames each)")
    ax.set_ylabel("IQM human-normalised score")
    fig.savefig(CURVES_OUT, dpi=150)
    print(f"wrote {CURVES_OUT} ({CURVES_OUT.stat().st_size // 1024} KB)")


if __name__ == "__main__":
    main()
