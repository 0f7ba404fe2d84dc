"""Procgen's normalisation constants, R_min and R_max per game, for the easy and the hard distribution modes.

Cobbe et al. (2020) report ``(R - R_min) / (R_max - R_min)`` with a pair of constants per game and distribution
mode (harder levels lower R_min for most games and change R_max for StarPilot, CaveFlyer, FruitBot, Chaser and
Miner), so a study states its mode and normalises with that mode's table.

The numbers are the paper's table of normalisation constants (arXiv:1912.01588, appendix). The paper itself is not
on this machine: they were typed from a public transcription of the whole table (both modes, 64 numbers, in the
comments of one RL code base) and checked against two other copies (an easy-mode reward wrapper, all 32 equal; a
plotting script whose hard table agrees where it could be read and whose easy table is the conflicting copy
named below). The tests type them again, independently, from that table.

Task names are Procgen's environment names (``procgen.env.ENV_NAMES``: ``"coinrun"``, ``"bigfish"`` ...), the
``env_name`` a run was made with.
"""

#: Where the numbers come from, as shown in the ``source`` column.
SOURCE = "Cobbe et al. (2020), arXiv:1912.01588, appendix table of normalisation constants"

#: The paper.
PAPER = ("Cobbe, Hesse, Hilton and Schulman (2020), Leveraging Procedural Generation to Benchmark Reinforcement "
         "Learning, ICML 2020 (arXiv:1912.01588)")

#: mode -> game -> (R_min, R_max)
CONSTANTS = {
    "easy": {
        "bigfish": (1.0, 40.0), "bossfight": (0.5, 13.0), "caveflyer": (3.5, 12.0), "chaser": (0.5, 13.0),
        "climber": (2.0, 12.6), "coinrun": (5.0, 10.0), "dodgeball": (1.5, 19.0), "fruitbot": (-1.5, 32.4),
        "heist": (3.5, 10.0), "jumper": (3.0, 10.0), "leaper": (3.0, 10.0), "maze": (5.0, 10.0),
        "miner": (1.5, 13.0), "ninja": (3.5, 10.0), "plunder": (4.5, 30.0), "starpilot": (2.5, 64.0),
    },
    "hard": {
        "bigfish": (0.0, 40.0), "bossfight": (0.5, 13.0), "caveflyer": (2.0, 13.4), "chaser": (0.5, 14.2),
        "climber": (1.0, 12.6), "coinrun": (5.0, 10.0), "dodgeball": (1.5, 19.0), "fruitbot": (-0.5, 27.2),
        "heist": (2.0, 10.0), "jumper": (1.0, 10.0), "leaper": (1.5, 10.0), "maze": (4.0, 10.0),
        "miner": (1.5, 20.0), "ninja": (2.0, 10.0), "plunder": (3.0, 30.0), "starpilot": (1.5, 35.0),
    },
}

#: Copies that differ from the paper, as found in circulation: (mode, what differs, where it was seen).
CONFLICTING = (
    ("easy", "jumper (1, 10) and leaper (1.5, 10) instead of (3, 10) and (3, 10): the hard mode's numbers",
     "the easy-mode table of a public plotting script"),
    ("easy and hard", "(0, R_max) instead of (R_min, R_max)", "normalisers that divide by R_max alone, reported in "
     "issue 33"),
)


def conflicts_sentence():
    """The known conflicting copies, as one sentence for ``available()`` and the docs."""
    return "Known conflicting copies: " + "; ".join(
        f"{mode}: {what} ({where})" for mode, what, where in CONFLICTING) + "."


def frame_for(mode):
    """The table of one mode as ``load("procgen_<mode>_reference")`` gives it: task, r_min, r_max, mode, source."""
    import pandas as pd

    games = sorted(CONSTANTS[mode])
    return pd.DataFrame({"task": games, "r_min": [CONSTANTS[mode][g][0] for g in games],
                         "r_max": [CONSTANTS[mode][g][1] for g in games], "mode": [mode] * len(games),
                         "source": [SOURCE] * len(games)})


def easy_frame(paths=None):
    """``load("procgen_easy_reference")``."""
    return frame_for("easy")


def hard_frame(paths=None):
    """``load("procgen_hard_reference")``."""
    return frame_for("hard")
