"""What :func:`rlstats.power` decides on for AdaStop and the permutation test: some comparison decided.

Both run one test per task, so their rate is per task and simulation; AdaStop may stop early, so the mean
number of runs it used is reported too.  Its number of seeds is the budget ``n * K`` per agent.
"""

import math

import numpy as np

from ...errors import OptionError
from ...format import join_and
from ...options import check_int

#: AdaStop's number of interims in a power study when neither n nor K is given (the paper's toy examples)
POWER_K = 5
_DECIDED = ("larger", "smaller")


def check(options):
    """n= and K= are read by power() itself (the number of seeds fixes the other)."""
    if options.get("n") is not None and options.get("K") is not None:
        raise OptionError("give AdaStop either n= (runs per interim) or K= (interims), not both: the number "
                          "of seeds is the budget n * K, which fixes the other")
    for name in ("n", "K"):
        if options.get(name) is not None:
            check_int(name, options[name], minimum=1)


def seed_unit(options):
    """Numbers of seeds are multiples of n (when given) or K (default 5)."""
    return options.get("n") or options.get("K") or POWER_K, "AdaStop's n * K budget"


def _batches(options, seeds, asked=None):
    """(n, K) with n * K == seeds: from K (default 5) or from n. ``asked``: every number of seeds of the study, which
    the advice of the error fits (review s15: 'e.g. K=3' for seeds 3 and 5 led to the next refusal, 'e.g. K=5')."""
    n, K = options.get("n"), options.get("K")
    if n is not None:
        if seeds % n:
            raise OptionError(f"seeds={seeds} is not a multiple of AdaStop's n={n}: the number of seeds is the "
                              "budget n * K; give seeds that are multiples of n")
        return n, seeds // n
    unit = POWER_K if K is None else K
    if seeds % unit:
        # K=... and n=... are AdaStop's alone among the methods power() runs, so a plain keyword reaches it; the
        # example is a K that divides every number of seeds asked about (the command line spells it -o K=...)
        asked = tuple(asked or (seeds,))
        common = math.gcd(*asked)
        fits = max(k for k in range(1, 11) if common % k == 0)
        said = f"K = {POWER_K} (the default)" if K is None else f"K={K}"
        advice = (f", or pass K= (interims) or n= (runs per interim), which only AdaStop reads, e.g. K={fits}"
                  + ("" if len(asked) == 1 else f", which divides {join_and(map(str, asked))}") if fits > 1 else
                  f"; no K above 1 divides every number of seeds asked about ({join_and(map(str, asked))}): ask "
                  "about one number of seeds at a time, or about numbers with a common divisor")
        raise OptionError(f"seeds={seeds} is not a multiple of AdaStop's {said}: the number of seeds is the budget "
                          f"n * K runs per agent; give seeds that are multiples of {unit}{advice}")
    return seeds // unit, unit


def check_seeds(options, asked):
    """Every number of seeds power() is asked about, before any is simulated: an error's advice fits them all."""
    for seeds in asked:
        _batches(options, seeds, asked)


def adastop_call(options, seeds, alpha):
    call = {k: v for k, v in options.items() if k not in ("n", "K")}
    call["n"], call["K"] = _batches(options, seeds)
    return {**call, "alpha": alpha}


def decide(result, alpha, template, seeds):
    """Per task (or for the one test of unblocked data): some comparison decided, and the mean runs used."""
    decided = result.decisions["decision"].isin(_DECIDED).to_numpy()
    used = result.runs_used
    if not result.blocked:
        return np.array([bool(decided.any())]), np.array([float(used["n_runs"].mean())])
    index = {t: i for i, t in enumerate(template.tasks)}
    n = template.n_tasks
    rows = result.decisions["task"].map(index).to_numpy()
    rejected = np.bincount(rows, weights=decided, minlength=n) > 0
    used_rows = used["task"].map(index).to_numpy()
    runs = np.bincount(used_rows, weights=used["n_runs"].to_numpy(dtype=float), minlength=n)
    return rejected, runs / np.maximum(np.bincount(used_rows, minlength=n), 1)


def decide_outcomes(outcomes, alpha, template, seeds):
    """The outcomes operations already return (rejected, runs) per task."""
    return outcomes


def plan(options, seeds):
    """The design a study assumed at each number of seeds: K and n = seeds / K runs per agent per interim, or n and
    K = seeds / n (audit s20: the printed plan said neither, only report() said K)."""
    n, K = options.get("n"), options.get("K")
    if n is not None:
        fixed, name, unit = f"n = {n} runs per agent per interim, and K = seeds / n interims", "K", n
    else:
        default = " (the default)" if K is None else ""
        unit = POWER_K if K is None else K
        fixed, name = f"K = {unit} interims{default} of n = seeds / K runs per agent each", "n"
    return fixed + ": " + ", ".join(f"{name} = {s // unit} at {s} seeds" for s in seeds)


def adastop_sentence(result):
    # its n and K are the note plan() writes, which the report ends with
    return ("AdaStop (one test per task) counted as rejecting when it decided 'larger' or 'smaller' "
            "for a comparison; its rate is per task and simulation, and its mean number of runs used per agent "
            "is reported.")


def permutation_sentence(result):
    return ("The permutation test of mean differences (one test per task, step-down over comparisons) counted as "
            "rejecting when it rejected any comparison.")
