"""Shared test fixtures: the location of the shared real data, a clean matplotlib, and every plot of a result."""

import os
from pathlib import Path

import matplotlib
import pytest
from rlstats.errors import OptionError
from rlstats.tables import read_csv

matplotlib.use("Agg")

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


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
