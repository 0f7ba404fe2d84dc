"""Shared test fixtures: the location of the shared real data, a clean matplotlib, and every plot of a result."""

import os
from pathlib import Path

import matplotlib
import pytest
from rlstats.errors import OptionError
from rlstats.tables import read_csv

matplotlib.use("Agg")

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


#: The wall-clock bound of a test's child process, in seconds: a guard against a hang only, never a measure of
#: speed, since a loaded machine (2 cores shared by 8 test runs) stretches wall time many times over; a child's
#: work is bounded in CPU seconds instead (:func:`cpu_limit`, :func:`run_child`).
HANG_SECONDS = 1800


def cpu_limit(seconds):
    """A ``preexec_fn`` capping a child process at ``seconds`` of CPU time (RLIMIT_CPU: SIGXCPU ends it at the
    soft limit, SIGKILL 10 s later); None where there is no RLIMIT_CPU (Windows), where the cap is skipped."""
    try:
        import resource
    except ImportError:
        return None

    def limit():
        resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds + 10))

    return limit


def run_child(args, cpu_seconds, **kwargs):
    """``subprocess.run(args, **kwargs)`` with the child capped at ``cpu_seconds`` of CPU time and
    :data:`HANG_SECONDS` of wall time; returns (completed process, CPU seconds the child used).

    The CPU seconds are the children's rusage before and after (user + system), so run nothing else
    meanwhile; where ``resource`` does not exist they are the wall-clock seconds.
    """
    import subprocess
    import time

    try:
        import resource
    except ImportError:
        resource = None

    def used():
        if resource is None:
            return time.monotonic()
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        return usage.ru_utime + usage.ru_stime

    before = used()
    done = subprocess.run(args, preexec_fn=cpu_limit(cpu_seconds), timeout=HANG_SECONDS, **kwargs)
    return done, used() - before


@pytest.fixture
def shared_data():
    """Path to ../shared/data; skips the test when the shared data are not beside the clone."""
    if not (SHARED_DATA / "atari100k.csv").is_file():
        pytest.skip(f"shared data not found at {SHARED_DATA} (they sit beside the repository in CI)")
    return SHARED_DATA


@pytest.fixture
def sb3(shared_data):
    """The shared Stable-Baselines3 logs' evaluation returns (TensorBoard), as column score; skips when absent."""
    import rlstats

    folder = shared_data / "logs" / "sb3_classic"
    if not folder.is_dir():
        pytest.skip(f"the SB3 logs are not at {folder}")
    return rlstats.read_logs(folder, "{agent}/{task}/seed_{seed}", format="tensorboard",
                             tags={"eval/mean_reward": "score"}, progress=False)


@pytest.fixture
def no_network(monkeypatch):
    """Fail the test if pooch is asked to download anything."""
    import pooch

    def refuse(*args, **kwargs):
        raise AssertionError(f"pooch.retrieve called with {args} {kwargs}")

    monkeypatch.setattr(pooch, "retrieve", refuse)


@pytest.fixture
def mirror(shared_data, monkeypatch, no_network):
    """RLSTATS_DATA_MIRROR pointed at ../shared/data/raw, downloads forbidden."""
    monkeypatch.setenv("RLSTATS_DATA_MIRROR", str(shared_data / "raw"))
    return shared_data / "raw"


@pytest.fixture
def atari(shared_data):
    """The Atari 100k scores as published (tidy CSV from ../shared/data)."""
    return read_csv(shared_data / "atari100k.csv")


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    import matplotlib.pyplot as plt

    plt.close("all")


def pytest_report_header(config):
    mirror = os.environ.get("RLSTATS_DATA_MIRROR")
    return f"rlstats data mirror: {mirror or '(none)'}"


def drawable_plots(result):
    """(kind, drawn) for every plot kind ``result`` can draw; a kind that needs something the run did not
    compute raises OptionError, which is its documented way of saying so, and is skipped."""
    for kind in type(result)._plot_kinds:
        try:
            drawn = result.plot(kind=kind)
        except OptionError:
            continue
        yield kind, drawn
