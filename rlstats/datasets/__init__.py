"""Benchmark-like simulated scores and the published scores of real RL runs.

- :func:`simulate` draws long data that look like an RL benchmark (tasks on
  very different scales, skewed, heavy-tailed and bimodal score
  distributions, optional missing cells) with a known location shift per
  agent, deterministically for a given ``rng``; :func:`simulate_curves`
  draws learning curves (``_simulated.py``).
- :func:`load` reads a published dataset from files pinned by commit and
  SHA-256 (``_pins.py``), downloaded with pooch and cached, or read from an
  offline mirror named by the ``RLSTATS_DATA_MIRROR`` environment variable
  (``_fetch.py``), and parsed from the format it was published in
  (``_published.py``).
- :func:`available` describes the datasets :func:`load` knows (the registry,
  ``_registry.py``).
"""

from typing import NoReturn

# the public constants of the former datasets.py stay readable here
from ._fetch import CACHE_ENV, MIRROR_ENV
from ._published import (ATARI_GAMES, DOPAMINE_AGENTS, DOPAMINE_GAMES, DOPAMINE_ITERATIONS, DOPAMINE_RUNS,
                         FRAMES_PER_ITERATION, MUJOCO_BATCHES, SPINNINGUP_EVALUATIONS, SPINNINGUP_EVERY)
from ._registry import available, load
from ._simulated import FAMILIES, MAX_VALUES, MIXED_CYCLE, simulate, simulate_curves

__all__ = ["simulate", "simulate_curves", "load", "available"]


def __getattr__(name: str) -> NoReturn:
    # The lister was called ``list``, which hid the builtin inside this package; say where it went.
    if name == "list":
        raise AttributeError("rlstats.datasets.list() is now rlstats.datasets.available() (the old name hid "
                             "Python's builtin list)")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
