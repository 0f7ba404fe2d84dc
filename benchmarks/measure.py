"""Timing and memory helpers shared by the benchmark scripts (run from the repository root)."""

import statistics
import time
import tracemalloc


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
