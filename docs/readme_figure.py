"""Draw the README's figure of its real case: performance profiles of the five Atari 100k games of its table.

Run from the repository root (the published runs are downloaded once, or read offline from
RLSTATS_DATA_MIRROR):

    python docs/readme_figure.py            # writes docs/figures/atari100k_profiles.png

One column of a paper wide (3.3 in), so the README shows what a reader would print.
"""

from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # a file, never a window

import rlstats  # noqa: E402

AGENTS = ["CURL", "DER", "DrQ(eps)", "SPR"]
GAMES = ["Alien", "Boxing", "Breakout", "Freeway", "Pong"]
OUT = Path(__file__).resolve().parent / "figures" / "atari100k_profiles.png"


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


if __name__ == "__main__":
    main()
