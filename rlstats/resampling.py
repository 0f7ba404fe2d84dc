"""Random number handling shared by every random procedure.

``rng=`` is keyword-only everywhere and becomes a ``numpy.random.SeedSequence``
exactly once, here.  What was passed is recorded so that a result can say how
to reproduce itself.  Work is split into blocks whose generators are spawned
from one ``SeedSequence``, so a result does not depend on the chunk size or on
the number of parallel workers.
"""

from __future__ import annotations

import numbers

import numpy as np

from .errors import OptionError


def seed_sequence(rng):
    """Turn ``rng`` (None, int, SeedSequence or Generator) into a SeedSequence.

    Returns ``(seed_sequence, record)``, where ``record`` is what a result
    stores: the int given, the entropy drawn for ``None`` (so the run can be
    repeated with ``rng=record``), or ``"Generator"`` when a Generator was
    passed (its stream is consumed, and it cannot be named).
    """
    if rng is None:
        ss = np.random.SeedSequence()
        return ss, int(ss.entropy)
    if isinstance(rng, (bool, np.bool_)):
        raise OptionError(f"rng must be None, an int or a numpy Generator, got {rng!r}")
    if isinstance(rng, numbers.Integral):
        if rng < 0:
            raise OptionError(f"rng must be a non-negative int, got {rng}")
        return np.random.SeedSequence(int(rng)), int(rng)
    if isinstance(rng, np.random.SeedSequence):
        return rng, int(rng.entropy) if not rng.spawn_key else "SeedSequence"
    if isinstance(rng, np.random.Generator):
        # Draw a seed from the caller's generator: their stream advances, as
        # scipy does, and our own stream is a pure function of that draw.
        return np.random.SeedSequence(int(rng.integers(2**63))), "Generator"
    raise OptionError(
        f"rng must be None, an int or a numpy.random.Generator, got {type(rng).__name__}; "
        "the legacy np.random.RandomState and the global random state are not used"
    )


def chunk_generators(ss, n_total, chunk_size):
    """Yield ``(start, stop, Generator)`` covering ``range(n_total)`` in blocks.

    Blocks have a fixed size that does not depend on the caller's memory
    budget, and block ``b`` always gets the ``b``-th spawned child of ``ss``,
    so the draws for a given replicate never depend on how work is batched.
    """
    n_blocks = -(-n_total // chunk_size)
    children = ss.spawn(n_blocks)
    for b, child in enumerate(children):
        start = b * chunk_size
        yield start, min(start + chunk_size, n_total), np.random.Generator(np.random.PCG64(child))
