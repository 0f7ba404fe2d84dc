"""What a call will cost, known before it is spent: the one home of work estimates, progress defaults and the bound.

Each back end declares its own formula beside its declaration (``Backend.cost``, a ``"module:function"`` path to
``formula(shape, options) -> Work``, in its folder's ``_backend.py``): it counts the work a call does from the
Design's shape (:class:`Shape`: rows, agents, tasks, cells) and the checked options, in a unit of its own work
(resampled values, permuted values, posterior draws, rows), with the seconds one unit took, measured once on a
2-core machine (issue 43; ``benchmarks/cost_calibration.py`` re-measures every formula and prints measured /
estimated time). Estimates are within :data:`FACTOR` of measured CPU time there on calls of a second or more
(fast calls carry fixed costs no formula counts), but for AdaStop's, which prices every interim and so is an upper
bound that an early stop undercuts (power("adastop") at an effect of 1 sd: measured / estimated 0.21-0.30,
benchmarks/README.md round s16). That is all the decisions below need:

* above :data:`PROGRESS_SECONDS` of estimated work a progress bar is shown by default (``progress=True``, the
  default, means "when the work is long"; ``progress=False`` never shows one; fast calls show none);
* above :data:`MAX_SECONDS` (a small input can ask for hours: the bootstrap of 120,000 runs with
  ``n_resamples=10**6`` is estimated at 66 minutes) the call is an OptionError that quotes the estimate and names
  ``max_seconds=``, the option that accepts it;
* above :data:`MAX_BYTES` of resamples kept in memory, where a formula counts them (``Work.memory``: the bootstrap's,
  performance profiles', probability of improvement's, equivalence's, the task table's aggregate row's and the
  tuning best set's statistics per resample, and bayes()'s signed-rank posterior draws of every pair; curves counts its grid's values and its runs' draw counts, and AdaStop and the permutation test their
  paths, against the same bound), the call is an OptionError whatever ``max_seconds=``.

Nothing here changes a result: the decisions only switch a bar and refuse before anything is computed. Every
estimate is logged at DEBUG level on the ``rlstats.cost`` logger (the record's ``work`` attribute holds the
:class:`Work`), so a caller can read what a call expected to cost without a bar.
"""

from __future__ import annotations

import contextlib
import logging
import math
import numbers
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from .errors import ENTRY, OptionError, shown

_log = logging.getLogger(__name__)

#: estimated seconds above which a bar is shown by default
PROGRESS_SECONDS = 3.0
#: estimated seconds above which a call needs ``max_seconds=`` (an hour: the bootstrap of 10^6 runs with the default
#: 10,000 resamples, issue 43's case, stays below it and shows progress)
MAX_SECONDS = 3600.0
#: measured / estimated CPU time lies within [1 / FACTOR, FACTOR] on the calibration designs of a second or more
FACTOR = 4.0
#: bytes of kept resamples above which a call is refused whatever ``max_seconds=``: time bounds a call, not its memory
#: (36 runs and n_resamples=10**7, the most the option takes, were admitted and needed 7 to 14 GB)
MAX_BYTES = 4 * 1024 ** 3
#: bytes an agent's resampled statistic takes per resample at the call's peak (its resample, standard error and the
#: intervals' temporaries): 60-74 measured at 3e5 resamples, 2 and 5 agents, 1 and 4 metrics (session 18); the task
#: table's aggregate row, the same bootstrap of one statistic, 56 (2 agents, 10**6 and 2 x 10**6 resamples: 270 and
#: 383 MB peak RSS, audit s31)
BYTES_PER_STATISTIC = 64
#: what a refusal of kept resamples asks for where a formula names nothing else (``Work.way``)
SMALLER_RESAMPLES = ("a smaller n_resamples (10,000 to 100,000 give Monte Carlo errors well below the differences "
                     "that matter) or ask for fewer statistics")


@dataclass(frozen=True)
class Shape:
    """The sizes a cost formula reads: rows (runs, or seeds where a back end reads them), agents, tasks, the
    agent x task cells that hold runs, and the most runs in a cell."""

    rows: int
    agents: int
    tasks: int
    cells: int
    most_runs: int

    @classmethod
    def of(cls, design: Any) -> Shape:
        """The shape of a Design."""
        counts = design.counts
        return cls(rows=int(len(design.y)), agents=int(design.n_agents), tasks=int(design.n_tasks),
                   cells=int((counts > 0).sum()), most_runs=int(counts.max()) if counts.size else 0)


@dataclass(frozen=True)
class Work:
    """Counted work: ``units`` of ``unit`` ("resampled values"), the seconds one unit took where the back end's
    formula was calibrated (``per_unit``), and what was counted (``what``, the product the message quotes:
    "3 passes (studentised) x 10,000 resamples x (1,000,000 runs + 100 x 1 agents), 4 metrics")."""

    units: float
    unit: str
    per_unit: float
    what: str = ""
    #: bytes the kept resamples take at the call's peak (0 where the formula does not count them) and what they are
    memory: float = 0.0
    kept: str = ""
    #: what is kept ("resamples", "posterior draws") and what to pass instead when it is refused
    #: (:data:`SMALLER_RESAMPLES` where empty)
    held: str = "resamples"
    way: str = ""

    @property
    def seconds(self) -> float:
        """Estimated seconds on the calibration machine (2 cores, one thread, numpy with OpenBLAS)."""
        return self.units * self.per_unit

    @property
    def text(self) -> str:
        """'about 5.5 minutes (3e+10 resampled runs: 3 passes (studentised) x 10,000 resamples x (1,000,000 runs +
        100 x 1 agents), 4 metrics, + the call's own 0.006 s)'."""
        counted = f"{self.units:.2g} {self.unit}" + (f": {self.what}" if self.what else "")
        return f"about {_duration(self.seconds)} ({counted})"


def _duration(seconds):
    if seconds < 120:
        return f"{seconds:.2g} s"
    if seconds < 7200:
        return f"{seconds / 60:.3g} minutes"
    return f"{seconds / 3600:.3g} hours"


def check_max_seconds(value: object) -> float:
    """``max_seconds=`` checked: None (the package's :data:`MAX_SECONDS`) or a positive number (inf: no bound).

    Called by :func:`rlstats.options.check_cost_options`, with which every options class checks it, and again by
    :func:`admit` on what it is given (a checked value passes unchanged)."""
    if value is None:
        return MAX_SECONDS
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or math.isnan(value) or value <= 0:
        raise OptionError(f"max_seconds must be None or a positive number of seconds, got {shown(value)}; "
                          "float('inf') sets no bound")
    return float(value)


def admit(formula: Callable[[Shape, Any], Work], design: Any, options: Any, max_seconds: object = None,
          call: str = "this call") -> Work:
    """Estimate a call's work from its Design and checked options before computing; refuse it above the bound.

    Parameters
    ----------
    formula : callable
        The back end's declared cost formula, ``formula(shape, options) -> Work`` (``Backend.cost``).
    design : Design
    options : object
        The back end's checked options (the formula reads the attributes it needs).
    max_seconds : float or None
        ``max_seconds=`` as given: the most estimated seconds the caller accepts (None: :data:`MAX_SECONDS`).
    call : str
        How the message names the call ("bootstrap()").

    Returns
    -------
    Work
        The estimate; :func:`shows` turns it and ``progress=`` into whether to draw a bar.

    Raises
    ------
    OptionError
        When the estimate exceeds the bound: the message quotes it and the ``max_seconds=`` that accepts it.
    """
    bound = check_max_seconds(max_seconds)
    return within(formula(Shape.of(design), options), bound, call)


def within(work: Work, bound: float, call: str = "this call") -> Work:
    """``work`` if its estimate is at most ``bound`` seconds; otherwise the OptionError :func:`admit` describes."""
    seconds = work.seconds
    _log.debug("%s: %s", call, work.text, extra={"work": work})
    if work.memory > MAX_BYTES:  # no option lifts it: these calls ask for more resamples than any interval needs
        raise OptionError(f"{call} would keep about {work.memory / 1024 ** 3:.3g} GiB of {work.held} ({work.kept}) in "
                          f"memory, more than the {MAX_BYTES // 1024 ** 3} GiB rlstats allocates; pass "
                          f"{work.way or SMALLER_RESAMPLES}")
    if seconds > bound:
        accept = max(math.ceil(seconds * FACTOR / 60) * 60, 60)  # room for the estimate's error
        entry = ENTRY.get()
        if entry in ("power", "sample_size") and call.endswith("()"):  # a method the study runs whole first (s31)
            call = f"{call}, which {entry}() runs whole on the first data set of each number of seeds,"
        raise OptionError(f"{call} would take {work.text}, more than the {_duration(bound)} rlstats runs without "
                          f"being asked; pass max_seconds={accept} (or float('inf'); on the command line "
                          f"--max-seconds {accept} or inf) to run it, or ask for less work (fewer resamples, runs or "
                          f"agents)")
    return work


def shows(work: Work, progress: bool) -> bool:
    """Whether to draw a bar: ``progress=`` (True by default) and the estimate above :data:`PROGRESS_SECONDS`."""
    return bool(progress) and work.seconds > PROGRESS_SECONDS


@contextlib.contextmanager
def timed_bar(work: Work, shown: bool, description: str) -> Iterator[None]:
    """A bar over the estimated seconds, for work that reports no steps of its own: it advances with the clock
    to 99% of the estimate and completes when the work does (shown only where :mod:`rlstats.progress` draws)."""
    from .progress import progress_bar

    total = max(int(math.ceil(work.seconds)), 1)
    with progress_bar(total, shown, f"{description} (estimated {_duration(work.seconds)})") as advance:
        if not shown:
            yield
            return
        done = threading.Event()
        moved = [0]

        def tick():
            start = time.monotonic()
            while not done.wait(0.5):
                due = min(int(time.monotonic() - start), total - 1)
                if due > moved[0]:
                    advance(due - moved[0])
                    moved[0] = due

        ticker = threading.Thread(target=tick, daemon=True)
        ticker.start()
        try:
            yield
        finally:
            done.set()
            ticker.join()
        advance(total - moved[0])
