"""Timing and memory helpers shared by the benchmark scripts (run from the repository root)."""

import os
import statistics
import sys
import time
import tracemalloc

HERE = os.path.dirname(os.path.abspath(__file__))


def tree_env(root):
    """The environment of a process that runs checkout ``root``'s rlstats (and these scripts), on one thread.

    Two trees cannot share a process: the package's back ends are found by name (the registry's
    ``rlstats.methods...`` paths, the lazy public names), so a second tree imported under another name runs
    the first tree's back ends. Time another checkout in its own process with this environment."""
    return dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.abspath(root), HERE]), OPENBLAS_NUM_THREADS="1")


def modules_outside(root):
    """The loaded ``rlstats`` modules whose files are not under checkout ``root`` (empty: the process ran that
    tree's code alone)."""
    root = os.path.realpath(root) + os.sep
    return sorted(name for name, module in list(sys.modules.items())
                  if (name == "rlstats" or name.startswith("rlstats.")) and getattr(module, "__file__", None)
                  and not os.path.realpath(module.__file__).startswith(root))


def run_times(function, repeat):
    """Wall-clock seconds of ``repeat`` calls of ``function``."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return times


def best_time(function, repeat):
    """The fastest of ``repeat`` calls, in seconds (the least disturbed by other work on the machine)."""
    return min(run_times(function, repeat))


def best_of(function, repeat, clock=time.process_time):
    """``(seconds, result)``: the fastest of ``repeat`` calls by ``clock`` (CPU seconds by default: the machine may
    be shared) and the last call's result."""
    best, result = float("inf"), None
    for _ in range(repeat):
        start = clock()
        result = function()
        best = min(best, clock() - start)
    return best, result


def median_time(function, repeat):
    """The median of ``repeat`` calls after one warm-up call, in seconds."""
    function()
    return statistics.median(run_times(function, repeat))


def peak_memory(function):
    """Peak Python-visible allocation in bytes (tracemalloc) while ``function`` runs."""
    tracemalloc.start()
    try:
        function()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
