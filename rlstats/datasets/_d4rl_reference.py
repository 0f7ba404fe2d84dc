"""D4RL's reference scores, the normalisers of its normalised score, per dataset and version.

D4RL (Fu et al. 2020) reports ``100 * (score - ref_min_score) / (ref_max_score - ref_min_score)``, with
``ref_min_score`` a random policy's return and ``ref_max_score`` an expert's (for Adroit: an expert's
demonstrations; for AntMaze and Kitchen: the smallest and largest possible return). Every dataset of an
environment shares its environment's two numbers, in every version of the release.

The numbers were typed from ``d4rl/infos.py`` (``REF_MIN_SCORE``, ``REF_MAX_SCORE`` and the loop that gives the
v1/v2 Gym-MuJoCo and v1 Adroit datasets the v0 numbers) of ``Farama-Foundation/D4RL`` at commit
``89141a689b0353b0dac3da5cba60da4b1b16254d`` (2024-11-18), the last release; ``d4rl/gym_mujoco/__init__.py``
registers the same four Gym-MuJoCo pairs (``HOPPER_RANDOM_SCORE`` ...). All 115 rows below were checked against
that file. The Flow, CARLA, MiniGrid and PyBullet datasets of the release are not included.

Conflicting copies circulate (see :data:`CONFLICTING`): use these, the release's, and say so.
"""

#: Where the numbers come from, as shown in the ``source`` column.
SOURCE = "D4RL release, d4rl/infos.py (Farama-Foundation/D4RL@89141a6)"

#: The paper of the release.
PAPER = ("Fu, Kumar, Nachum, Tucker and Levine (2020), D4RL: Datasets for Deep Data-Driven Reinforcement "
         "Learning, arXiv:2004.07219")

#: environment -> (ref_min_score, ref_max_score)
ENVIRONMENTS = {
    "halfcheetah": (-280.178953, 12135.0),
    "hopper": (-20.272305, 3234.3),
    "walker2d": (1.629008, 4592.3),
    "ant": (-325.6, 3879.7),
    "pen": (96.262799, 3076.8331017826877),
    "hammer": (-274.856578, 12794.134825156867),
    "relocate": (-6.425911, 4233.877797728884),
    "door": (-56.512833, 2880.5693087298737),
    "antmaze": (0.0, 1.0),
    "kitchen": (0.0, 4.0),
}

#: Maze2D has one pair per maze (dataset name -> (ref_min_score, ref_max_score)).
MAZE2D = {
    "maze2d-open-v0": (0.01, 20.66),
    "maze2d-umaze-v1": (23.85, 161.86),
    "maze2d-medium-v1": (13.13, 277.39),
    "maze2d-large-v1": (6.7, 273.99),
    "maze2d-open-dense-v0": (11.17817, 27.166538620695782),
    "maze2d-umaze-dense-v1": (68.537689, 193.66285642381482),
    "maze2d-medium-dense-v1": (44.264742, 297.4552547777125),
    "maze2d-large-dense-v1": (30.569041, 303.4857382709002),
}

_LOCOMOTION = ("halfcheetah", "hopper", "walker2d", "ant")
# version -> datasets of each Gym-MuJoCo environment (full-replay came with v1)
_LOCOMOTION_DATASETS = {
    "v0": ("random", "medium", "expert", "medium-replay", "medium-expert"),
    "v1": ("random", "medium", "expert", "medium-replay", "full-replay", "medium-expert"),
    "v2": ("random", "medium", "expert", "medium-replay", "full-replay", "medium-expert"),
}
_ADROIT = ("pen", "hammer", "relocate", "door")
_ANTMAZE = ("umaze", "umaze-diverse", "medium-play", "medium-diverse", "large-play", "large-diverse")


def _rows():
    for version, datasets in _LOCOMOTION_DATASETS.items():
        for env in _LOCOMOTION:
            yield from ((f"{env}-{d}-{version}", env, version) for d in datasets)
    for version in ("v0", "v1"):
        for env in _ADROIT:
            yield from ((f"{env}-{d}-{version}", env, version) for d in ("human", "cloned", "expert"))
    for version in ("v0", "v2"):
        yield from ((f"antmaze-{d}-{version}", "antmaze", version) for d in _ANTMAZE)
    yield from ((f"kitchen-{d}-v0", "kitchen", "v0") for d in ("complete", "partial", "mixed"))


#: ``(dataset, ref_min_score, ref_max_score, version)`` for every dataset, in the order above.
SCORES = tuple((name, *ENVIRONMENTS[env], version) for name, env, version in _rows()) + tuple(
    (name, low, high, name.rsplit("-", 1)[1]) for name, (low, high) in MAZE2D.items())

#: Copies of these numbers that differ from the release, as found in circulation: (dataset family, which
#: score, the value in the copy, the release's value, where it was seen). Normalising with them shifts every
#: normalised score of that environment.
CONFLICTING = (
    ("hopper", "ref_min_score", -19.5, -20.272305,
     "a public constants file of third-party offline-RL code (HOPPER_RANDOM_SCORE), reported in issue 33"),
    ("walker2d", "ref_min_score", -0.48, 1.629008,
     "the same third-party file (WALKER2D_RANDOM_SCORE)"),
    ("halfcheetah", "ref_min_score", -278.6, -280.178953,
     "the same third-party file (HALFCHEETAH_RANDOM_SCORE)"),
)


def conflicts_sentence():
    """The known conflicting copies, as one sentence for ``available()`` and the docs."""
    copies = [f"{env} {which} {copy} instead of {release} ({where})"
              for env, which, copy, release, where in CONFLICTING]
    return "Known conflicting copies: " + "; ".join(copies) + "."


def frame(paths=None):
    """The table as ``load("d4rl_reference")`` gives it: task, random, expert, version, source."""
    import pandas as pd

    names, low, high, versions = zip(*SCORES)
    return pd.DataFrame({"task": [*names], "random": [*map(float, low)], "expert": [*map(float, high)],
                         "version": [*versions], "source": [SOURCE] * len(names)})
