"""Tests of rlstats.datasets: simulate(), load() and available().

load() is checked against the tidy CSVs in ../shared/data (bit for bit; skipped when that folder is not beside
the clone), through the offline mirror (RLSTATS_DATA_MIRROR, or ../shared/data/raw beside the clone), and through pooch against a throw-away
HTTP server on 127.0.0.1; no test contacts any other host.
"""

import functools
import hashlib
import http.server
import socket
import threading
import time

import numpy as np
import pytest
from pandas.testing import assert_frame_equal
from scipy import stats

from rlstats import datasets
from rlstats.datasets import _fetch as fetching, _registry as registry
from rlstats.datasets import load, simulate
from rlstats.errors import DataUnavailableError, OptionError, RlstatsError
from rlstats.tables import read_csv

RL_STATS = "flowersteam/rl_stats/d86bc5991c56743a7602b87afdd21d1de0155fac"
TD3 = f"{RL_STATS}/data/td3_hc_final_perfs.txt"
SAC = f"{RL_STATS}/data/sac_hc_final_perfs.txt"
# From ../shared/data/raw/SHA256SUMS.
TD3_SHA256 = "550200356c259b474cb0f6334cd055eaaaa34c56a2d0f7f6456a57b821146353"

CSV_OF = {
    "atari100k": "atari100k.csv",
    "atari100k_reference": "atari100k_reference.csv",
    "mujoco_adastop": "mujoco_batches.csv",
    "halfcheetah_sac_td3": "halfcheetah_sac_td3.csv",
}


# --------------------------------------------------------------------------
# fixtures
# --------------------------------------------------------------------------






@pytest.fixture
def online(monkeypatch):
    """No mirror and no cache variable: load() goes through pooch."""
    monkeypatch.delenv("RLSTATS_DATA_MIRROR", raising=False)
    monkeypatch.delenv("RLSTATS_DATA_DIR", raising=False)


def _serve(root):
    """Start an HTTP server on 127.0.0.1 serving ``root``; return (server, base URL)."""

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    handler = functools.partial(Quiet, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


@pytest.fixture
def local_host(monkeypatch, online):
    """Serve a directory on 127.0.0.1 and point the pinned URLs at it."""
    servers = []

    def start(root):
        server, base = _serve(root)
        servers.append(server)
        monkeypatch.setattr(fetching, "URL_ROOT", base)
        return server

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


def _write(path, data):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


# --------------------------------------------------------------------------
# load(): the published data, through the mirror
# --------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(CSV_OF))
def test_load_reproduces_shared_csv_exactly(name, mirror, shared_data, tmp_path):
    got = load(name, cache_dir=tmp_path)
    expected = read_csv(shared_data / CSV_OF[name])
    assert_frame_equal(got, expected, check_exact=True)
    assert not any(tmp_path.iterdir()), "reading the mirror must not write to the cache"


def test_load_returns_a_new_frame_each_call(mirror, tmp_path):
    first = load("halfcheetah_sac_td3", cache_dir=tmp_path)
    original = first.loc[0, "score"]
    first.loc[0, "score"] = -1.0
    second = load("halfcheetah_sac_td3", cache_dir=tmp_path)
    assert second is not first
    assert second.loc[0, "score"] == original == 11900.143999999998


def test_atari_human_normalised_means_match_published_values(mirror, tmp_path):
    # IRIS paper (Micheli, Alonso and Fleuret, ICLR 2023), Table 1: IRIS has a mean
    # human-normalised score of 1.046 and a median of 0.289 over the 26 games.
    scores = load("atari100k", cache_dir=tmp_path)
    ref = load("atari100k_reference", cache_dir=tmp_path)
    merged = scores.merge(ref, on="task")
    merged["hns"] = (merged["score"] - merged["random"]) / (merged["human"] - merged["random"])
    per_game = merged[merged["agent"] == "IRIS"].groupby("task")["hns"].mean()
    assert round(per_game.mean(), 3) == 1.046
    assert round(per_game.median(), 3) == 0.289


def test_mujoco_runs_per_agent_match_the_adaptive_design(mirror, tmp_path):
    df = load("mujoco_adastop", cache_dir=tmp_path)
    runs = df.groupby(["task", "agent"]).size()
    assert runs.min() == 5 and runs.max() == 30
    assert set(runs) <= {5, 10, 15, 20, 25, 30}
    # seed counts the runs of an agent on a task: 0 .. n-1 in batch order
    for _, cell in df.groupby(["task", "agent"]):
        assert cell["seed"].tolist() == list(range(len(cell)))
        assert cell["batch"].tolist() == list(np.arange(len(cell)) // 5 + 1)


def test_registry_agrees_with_the_shared_checksum_list(mirror_root):
    from rlstats.datasets._pins import SHA256

    if not (mirror_root / "SHA256SUMS").is_file():
        pytest.skip(f"the mirror {mirror_root} has no SHA256SUMS (shared/data/raw's list of its files)")
    listed = {}
    for line in (mirror_root / "SHA256SUMS").read_text().splitlines():
        digest, path = line.split(None, 1)
        listed[path] = digest
    # Every pinned file is in the list with the same SHA-256, and every listed file is pinned, except
    # those no dataset reads yet: the TD3 MuJoCo curves of sfujim/TD3 (one agent only), the hyperparameter
    # sweeps of ADA-research (issue 32's datasets) and marl-eval's example log (a log format, issue 29).
    assert {key: listed.get(key) for key in SHA256} == SHA256
    unpinned = sorted(set(listed) - set(SHA256))
    not_yet_read = ("sfujim/TD3/", "ADA-research/combined_hpo_and_reward_shaping/", "instadeepai/marl-eval/")
    assert unpinned and all(key.startswith(not_yet_read) for key in unpinned), unpinned
    used = [key for d in registry._DATASETS.values() for key in d.files]
    assert sorted(used) == sorted(SHA256), "every pinned file is used by exactly one dataset"
    curve_files = [key for key in listed if key.startswith(("google/dopamine/", "flowersteam/rl_stats/"))]
    assert len(curve_files) == 60 + 4 and set(curve_files) <= set(used)
    for key in SHA256:
        assert (mirror_root / key).is_file(), f"{key} missing from the shared mirror"


# --------------------------------------------------------------------------
# load(): mirror problems
# --------------------------------------------------------------------------


def test_file_missing_from_mirror_is_named_with_url_and_advice(tmp_path, monkeypatch, no_network):
    mirror = tmp_path / "mirror"
    _write(mirror / TD3, b"1.0\n")  # the SAC file, read first, is absent
    monkeypatch.setenv("RLSTATS_DATA_MIRROR", str(mirror))
    with pytest.raises(DataUnavailableError) as info:
        load("halfcheetah_sac_td3", cache_dir=tmp_path / "cache")
    text = str(info.value)
    assert "sac_hc_final_perfs.txt" in text and "missing from the mirror" in text
    assert f"https://raw.githubusercontent.com/{SAC}" in text
    assert "RLSTATS_DATA_MIRROR" in text


def test_partial_copy_of_the_real_mirror(mirror_root, tmp_path, monkeypatch, no_network):
    mirror = tmp_path / "mirror"
    _write(mirror / SAC, (mirror_root / SAC).read_bytes())
    monkeypatch.setenv("RLSTATS_DATA_MIRROR", str(mirror))
    with pytest.raises(DataUnavailableError, match="td3_hc_final_perfs.txt is missing"):
        load("halfcheetah_sac_td3")


def test_mirror_file_with_wrong_content_is_a_checksum_error(tmp_path, monkeypatch, no_network):
    mirror = tmp_path / "mirror"
    bogus = b"12345.0\n"
    for key in (SAC, TD3):
        _write(mirror / key, bogus)
    monkeypatch.setenv("RLSTATS_DATA_MIRROR", str(mirror))
    with pytest.raises(DataUnavailableError) as info:
        load("halfcheetah_sac_td3")
    text = str(info.value)
    assert "sac_hc_final_perfs.txt" in text
    assert "334cda04e2ee2aff0359043b5627dc1aa640725952c8f66d7837fddc1d783339" in text  # pinned
    assert hashlib.sha256(bogus).hexdigest() in text  # what the mirror holds


def test_mirror_that_is_not_a_directory(tmp_path, monkeypatch, no_network):
    monkeypatch.setenv("RLSTATS_DATA_MIRROR", str(tmp_path / "nowhere"))
    with pytest.raises(DataUnavailableError, match="not a directory"):
        load("atari100k_reference")


def test_unknown_dataset_name_lists_the_known_ones():
    with pytest.raises(OptionError, match="atari100k_reference"):
        load("atari200k")


# --------------------------------------------------------------------------
# load(): the network path, against 127.0.0.1 only
# --------------------------------------------------------------------------


def _closed_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_network_failure_names_file_url_and_what_to_do(online, monkeypatch, tmp_path):
    base = f"http://127.0.0.1:{_closed_port()}"
    monkeypatch.setattr(fetching, "URL_ROOT", base)
    with pytest.raises(DataUnavailableError) as info:
        load("halfcheetah_sac_td3", cache_dir=tmp_path)
    text = str(info.value)
    assert f"{base}/{SAC}" in text
    assert "sac_hc_final_perfs.txt" in text
    assert "RLSTATS_DATA_MIRROR" in text and "network" in text


def test_offline_failure_is_one_short_error(online, monkeypatch, tmp_path):
    """No network, no mirror: one rlstats error, no chained traceback, naming URL, cache and mirror."""
    base = f"http://127.0.0.1:{_closed_port()}"
    monkeypatch.setattr(fetching, "URL_ROOT", base)
    with pytest.raises(DataUnavailableError) as info:
        load("atari100k_reference", cache_dir=tmp_path / "cache")
    error = info.value
    assert error.__cause__ is None and error.__suppress_context__, "the requests traceback must not be chained"
    text = str(error)
    assert "\n" not in text
    assert f"{base}/" in text and "HUMAN.json" in text
    assert str(tmp_path / "cache") in text and "RLSTATS_DATA_MIRROR" in text
    assert "Connection refused" in text and "HTTPConnection(" not in text, "the reason, without urllib3's prefix"


def test_silent_server_times_out_quickly(online, monkeypatch, tmp_path):
    """A host that accepts the connection but never answers costs the timeout, not minutes."""
    with socket.socket() as listener:  # listens but never accepts: the request waits for bytes
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        monkeypatch.setattr(fetching, "URL_ROOT", f"http://127.0.0.1:{listener.getsockname()[1]}")
        monkeypatch.setattr(fetching, "CONNECT_TIMEOUT", (0.5, 0.5))
        start = time.monotonic()
        with pytest.raises(DataUnavailableError, match="could not download"):
            load("atari100k_reference", cache_dir=tmp_path)
        # a wait, so wall time; generous, because load stretches it: without the timeout it never ends
        assert time.monotonic() - start < 60


def test_download_is_verified_cached_and_reused(mirror_root, published, local_host, tmp_path):
    # mirror_root and published before local_host, which unsets the mirror variable they read
    server = local_host(mirror_root)
    got = load("halfcheetah_sac_td3", cache_dir=tmp_path)
    assert_frame_equal(got, read_csv(published / "halfcheetah_sac_td3.csv"), check_exact=True)
    cached = tmp_path / TD3
    assert hashlib.sha256(cached.read_bytes()).hexdigest() == TD3_SHA256
    server.shutdown()  # offline now: the cache must be enough
    assert_frame_equal(load("halfcheetah_sac_td3", cache_dir=tmp_path), got, check_exact=True)


def test_cache_dir_defaults_to_environment_variable(mirror_root, local_host, tmp_path, monkeypatch):
    local_host(mirror_root)
    monkeypatch.setenv("RLSTATS_DATA_DIR", str(tmp_path / "env-cache"))
    load("halfcheetah_sac_td3")
    assert (tmp_path / "env-cache" / TD3).is_file()


def test_downloaded_file_with_wrong_hash_is_an_error(local_host, tmp_path):
    served = tmp_path / "served"
    bogus = b"1.0\n2.0\n"
    for key in (SAC, TD3):
        _write(served / key, bogus)
    local_host(served)
    with pytest.raises(DataUnavailableError) as info:
        load("halfcheetah_sac_td3", cache_dir=tmp_path / "cache")
    text = str(info.value)
    assert "sac_hc_final_perfs.txt" in text
    assert "334cda04e2ee2aff0359043b5627dc1aa640725952c8f66d7837fddc1d783339" in text
    assert hashlib.sha256(bogus).hexdigest() in text
    assert not (tmp_path / "cache" / SAC).exists(), "a file failing its hash must not be kept"


@pytest.mark.parametrize(
    "raised, words",
    [
        (PermissionError("read-only"), ["cannot write", "RLSTATS_DATA_DIR", "read-only"]),
        (ValueError("Unrecognized URL protocol"), ["could not download", "Unrecognized"]),
    ],
)
def test_other_pooch_failures_become_data_errors(online, monkeypatch, tmp_path, raised, words):
    import pooch

    def fail(*args, **kwargs):
        raise raised

    monkeypatch.setattr(pooch, "retrieve", fail)
    with pytest.raises(DataUnavailableError) as info:
        load("atari100k_reference", cache_dir=tmp_path)
    for word in words + ["HUMAN.json"]:
        assert word in str(info.value)


def test_mirror_is_used_instead_of_network(mirror, monkeypatch, tmp_path):
    # URL pointing nowhere and pooch forbidden: only the mirror can answer.
    monkeypatch.setattr(fetching, "URL_ROOT", f"http://127.0.0.1:{_closed_port()}")
    assert len(load("atari100k_reference", cache_dir=tmp_path)) == 26


def test_errors_are_rlstats_errors():
    assert issubclass(DataUnavailableError, RlstatsError)


# --------------------------------------------------------------------------
# available(), and the package's modules
# --------------------------------------------------------------------------


def test_available_describes_every_dataset():
    table = datasets.available()
    assert table["name"].tolist() == [
        "atari100k",
        "atari100k_reference",
        "mujoco_adastop",
        "halfcheetah_sac_td3",
        "dopamine_atari",
        "atari_reference",
        "spinningup_halfcheetah",
        "hpo_landscapes",
        "hpo_optimisation",
        "d4rl_reference",
        "procgen_easy_reference",
        "procgen_hard_reference",
    ]
    assert {"description", "source_paper", "url_base", "licence", "rows", "columns"} <= set(
        table.columns
    )
    assert table["rows"].tolist() == [16250, 26, 415, 385, 358200, 57, 154400, 900000, 2670, 115, 16, 16]
    assert table["files"].tolist() == [34, 2, 24, 2, 60, 0, 2, 9, 1, 0, 0, 0]
    for text in ("description", "source_paper", "licence", "url_base"):
        assert table[text].str.len().min() > 10
    with_files = table["files"] > 0
    assert table.loc[with_files, "url_base"].str.contains("raw.githubusercontent.com").all()
    assert set(table.loc[~with_files, "url_base"]) == {"none: the table is part of rlstats"}


def test_available_shapes_match_the_loaded_data(mirror, tmp_path):
    for row in datasets.available().itertuples():
        df = load(row.name, cache_dir=tmp_path)
        assert len(df) == row.rows
        assert ", ".join(df.columns) == row.columns


def test_list_was_renamed_available_and_says_so():
    # ``list`` hid Python's builtin inside the module; no alias is kept, the error names the new function.
    with pytest.raises(AttributeError, match=r"rlstats.datasets.available\(\)"):
        datasets.list  # noqa: B018
    assert "list" not in vars(datasets) and "list" not in datasets.__all__


def test_one_module_per_job_behind_the_same_names():
    from rlstats.datasets import (ATARI_GAMES, CACHE_ENV, DOPAMINE_GAMES, FAMILIES, MIRROR_ENV, available,
                                  simulate_curves)

    jobs = {f.__name__: f.__module__.rpartition(".")[2] for f in (simulate, simulate_curves, load, available)}
    assert jobs == {"simulate": "_simulated", "simulate_curves": "_simulated", "load": "_registry",
                    "available": "_registry"}
    assert fetching.MIRROR_ENV == MIRROR_ENV == "RLSTATS_DATA_MIRROR" and CACHE_ENV == "RLSTATS_DATA_DIR"
    assert len(ATARI_GAMES) == 26 and len(DOPAMINE_GAMES) == 60 and "mixture" in FAMILIES


# --------------------------------------------------------------------------
# simulate(): layout
# --------------------------------------------------------------------------


def test_simulate_layout_and_names():
    df = simulate(agents=3, tasks=12, seeds=4, rng=0)
    assert df.columns.tolist() == ["agent", "task", "seed", "score"]
    assert len(df) == 3 * 12 * 4
    assert df["agent"].cat.ordered and df["task"].cat.ordered
    assert df["agent"].cat.categories.tolist() == ["agent_1", "agent_2", "agent_3"]
    assert df["task"].cat.categories[[0, 11]].tolist() == ["task_01", "task_12"]
    assert df["seed"].dtype == np.int64 and df["score"].dtype == np.float64
    assert df["seed"].tolist()[:5] == [0, 1, 2, 3, 0]
    ordered = df.sort_values(["agent", "task", "seed"])
    assert ordered.index.tolist() == df.index.tolist()
    assert simulate(tasks=100, seeds=1, rng=0)["task"].cat.categories[0] == "task_001"


def test_simulate_keeps_given_name_order():
    df = simulate(agents=["zeta", "alpha"], tasks=["Pong", "Alien"], seeds=2, rng=0)
    assert df["agent"].cat.categories.tolist() == ["zeta", "alpha"]
    assert df["task"].cat.categories.tolist() == ["Pong", "Alien"]
    assert df["agent"].iloc[0] == "zeta" and df["task"].iloc[0] == "Pong"


def test_simulate_is_deterministic_and_leaves_global_state_alone():
    state = np.random.get_state()[1].copy()
    a = simulate(rng=7)
    b = simulate(rng=7)
    assert_frame_equal(a, b, check_exact=True)
    assert not np.array_equal(a["score"], simulate(rng=8)["score"])
    g1, g2 = np.random.default_rng(3), np.random.default_rng(3)
    assert_frame_equal(simulate(rng=g1), simulate(rng=g2), check_exact=True)
    assert np.array_equal(np.random.get_state()[1], state)


def test_simulate_bad_options_raise():
    bad = [
        dict(agents=0),
        dict(agents="abc"),
        dict(agents=["a", "a"]),
        dict(tasks=[]),
        dict(seeds=0),
        dict(effect=[0.0, 1.0]),  # 4 agents by default
        dict(effect=float("nan")),
        dict(distribution="gamma"),
        dict(heterogeneity=-1.0),
        dict(missing=1.5),
        dict(agents=2, missing=0.1),  # cannot remove any cell with 2 agents
    ]
    for kwargs in bad:
        with pytest.raises(OptionError):
            simulate(rng=0, **kwargs)


# --------------------------------------------------------------------------
# simulate(): the stated scale of the effect and of the noise
# --------------------------------------------------------------------------

FAMILIES = ["normal", "lognormal", "t", "beta", "mixture"]


@pytest.mark.parametrize("family", FAMILIES)
def test_within_cell_sd_is_one_unit_of_effect(family):
    n = 20_000
    df = simulate(agents=2, tasks=3, seeds=n, effect=[0.0, 1.5], distribution=family, rng=11)
    truth = df.attrs["simulate"]
    for task, cell in df.groupby("task", observed=True):
        scale = truth["scale"][task]
        a = cell.loc[cell["agent"] == "agent_1", "score"].to_numpy()
        b = cell.loc[cell["agent"] == "agent_2", "score"].to_numpy()
        # within-cell standard deviation equals the task's scale ...
        assert a.std(ddof=1) / scale == pytest.approx(1.0, abs=0.04)
        assert b.std(ddof=1) / scale == pytest.approx(1.0, abs=0.04)
        # ... and the mean of agent_1 is the task's offset (the noise has mean 0)
        assert (a.mean() - truth["offset"][task]) / scale == pytest.approx(0.0, abs=0.04)
        # a shift of 1.5 moves the mean by 1.5 within-cell standard deviations
        assert (b.mean() - a.mean()) / scale == pytest.approx(1.5, abs=0.05)


def test_heterogeneity_zero_gives_identical_task_scales():
    df = simulate(agents=1, tasks=4, seeds=20_000, distribution="normal", heterogeneity=0.0, rng=2)
    by_task = df.groupby("task", observed=True)["score"]
    np.testing.assert_allclose(by_task.mean(), 0.0, atol=0.03)
    np.testing.assert_allclose(by_task.std(), 1.0, atol=0.03)


def test_heterogeneity_spreads_task_scales():
    truth = simulate(tasks=200, seeds=1, heterogeneity=1.0, rng=4).attrs["simulate"]
    log_scale = np.log10([*truth["scale"].values()])
    assert -1 <= log_scale.min() < -0.9 and 0.9 < log_scale.max() <= 1
    offsets = np.array([*truth["offset"].values()]) / 10 ** log_scale
    assert 0 <= offsets.min() < 0.5 and 9.5 < offsets.max() <= 10


def test_effect_is_an_exact_location_shift_of_every_run():
    base = simulate(agents=3, tasks=5, seeds=6, effect=0.0, rng=5)
    shifted = simulate(agents=3, tasks=5, seeds=6, effect=[0.0, 0.5, -2.0], rng=5)
    scale = base["task"].map(base.attrs["simulate"]["scale"]).astype(float)
    shift = base["agent"].map({"agent_1": 0.0, "agent_2": 0.5, "agent_3": -2.0}).astype(float)
    np.testing.assert_allclose(shifted["score"], base["score"] + shift * scale, rtol=1e-12)
    spread = simulate(agents=3, effect=2.0, rng=0).attrs["simulate"]["effect"]
    assert spread == {"agent_1": 0.0, "agent_2": 1.0, "agent_3": 2.0}


def test_null_agents_share_one_distribution_per_task():
    df = simulate(agents=3, tasks=5, seeds=4000, effect=0.0, rng=9)
    for _, cell in df.groupby("task", observed=True):
        groups = [g["score"].to_numpy() for _, g in cell.groupby("agent", observed=True)]
        assert stats.kruskal(*groups).pvalue > 0.001
        assert stats.ks_2samp(groups[0], groups[2]).pvalue > 0.001
    # the test detects a real shift of 0.1 sd with this many runs
    moved = simulate(agents=2, tasks=1, seeds=4000, effect=0.1, distribution="normal", rng=9)
    a, b = (g["score"].to_numpy() for _, g in moved.groupby("agent", observed=True))
    assert stats.ks_2samp(a, b).pvalue < 0.001


# --------------------------------------------------------------------------
# simulate(): the advertised shapes
# --------------------------------------------------------------------------


def _modes(z, bins=40):
    """Number of histogram peaks separated by a trough below half the lower peak.

    Peaks lower than 5% of the highest bin (noise in the tails) are ignored.
    """
    counts, _ = np.histogram(z, bins=bins)
    counts = np.convolve(counts, np.ones(3) / 3, mode="same")
    floor = 0.05 * counts.max()
    peaks = []
    trough = np.inf
    for i in range(1, bins - 1):
        if counts[i] < floor:
            trough = min(trough, counts[i]) if peaks else trough
            continue
        if peaks:
            trough = min(trough, counts[i])
        if counts[i] >= counts[i - 1] and counts[i] > counts[i + 1]:
            if not peaks or trough < 0.5 * min(peaks[-1], counts[i]):
                peaks.append(counts[i])
                trough = np.inf
            else:
                peaks[-1] = max(peaks[-1], counts[i])
    return len(peaks)


def _one_task(family, n=20_000, rng=1):
    df = simulate(agents=1, tasks=1, seeds=n, distribution=family, heterogeneity=0.0, rng=rng)
    return df["score"].to_numpy()


def test_normal_family_is_symmetric_and_unimodal():
    z = _one_task("normal")
    assert abs(stats.skew(z)) < 0.1 and abs(stats.kurtosis(z)) < 0.2
    assert _modes(z) == 1


def test_lognormal_family_is_right_skewed():
    z = _one_task("lognormal")
    assert stats.skew(z) > 1.0  # exp(0.5 N) has skewness 1.75
    assert z.min() > -1 / np.sqrt(np.exp(0.25) - 1)  # bounded below like a lognormal


def test_t_family_is_heavy_tailed():
    z = _one_task("t")
    assert stats.kurtosis(z) > 2.0  # t with 5 df: excess kurtosis 6
    assert np.mean(np.abs(z) > 3) > 3 * 2 * stats.norm.sf(3)


def test_beta_family_is_bounded_and_left_skewed():
    z = _one_task("beta")
    mean, sd = 5 / 7, np.sqrt(10 / (49 * 8))  # Beta(5, 2)
    assert z.min() >= -mean / sd and z.max() <= (1 - mean) / sd
    assert stats.skew(z) < -0.3


def test_mixture_family_is_bimodal():
    z = _one_task("mixture")
    assert _modes(z) == 2
    n = len(z)
    g1, g2 = stats.skew(z), stats.kurtosis(z)
    coefficient = (g1**2 + 1) / (g2 + 3 * (n - 1) ** 2 / ((n - 2) * (n - 3)))
    assert coefficient > 5 / 9  # Sarle's bimodality coefficient


def test_mixed_gives_tasks_the_documented_families():
    df = simulate(agents=1, tasks=6, seeds=20_000, heterogeneity=0.0, rng=3)
    families = df.attrs["simulate"]["distribution"]
    assert [*families.values()] == ["lognormal", "t", "mixture", "beta", "normal", "lognormal"]
    z = {t: g["score"].to_numpy() for t, g in df.groupby("task", observed=True)}
    assert stats.skew(z["task_01"]) > 1.0
    assert stats.kurtosis(z["task_02"]) > 2.0
    assert _modes(z["task_03"]) == 2
    assert stats.skew(z["task_04"]) < -0.3
    for name in ("task_01", "task_02", "task_04", "task_05"):
        assert _modes(z[name]) == 1


# --------------------------------------------------------------------------
# simulate(): missing cells
# --------------------------------------------------------------------------


def test_missing_removes_whole_cells_and_keeps_two_agents_per_task():
    full = simulate(agents=5, tasks=8, seeds=3, effect=1.0, rng=6)
    sparse = simulate(agents=5, tasks=8, seeds=3, effect=1.0, missing=0.3, rng=6)
    cells = sparse.groupby(["agent", "task"], observed=True).size()
    assert len(cells) == 40 - 12  # round(0.3 * 40) cells removed
    assert (cells == 3).all()  # whole cells, never single runs
    assert sparse.groupby("task", observed=True)["agent"].nunique().min() >= 2
    # removing cells does not change the scores of the cells that stay
    kept = full.merge(sparse, on=["agent", "task", "seed"], suffixes=("", "_sparse"))
    assert len(kept) == len(sparse)
    np.testing.assert_array_equal(kept["score"], kept["score_sparse"])
    assert sparse["agent"].cat.categories.tolist() == full["agent"].cat.categories.tolist()


def test_missing_up_to_the_limit_and_beyond():
    most = simulate(agents=4, tasks=3, seeds=1, missing=0.5, rng=0)  # 6 of 12 cells = limit
    assert (most.groupby("task", observed=True)["agent"].nunique() == 2).all()
    with pytest.raises(OptionError, match="keeps 2 agents"):
        simulate(agents=4, tasks=3, seeds=1, missing=0.6, rng=0)
    assert len(simulate(agents=4, tasks=3, seeds=2, missing=0.0, rng=0)) == 24


def test_missing_cells_vary_with_the_seed():
    def pattern(r):
        df = simulate(agents=6, tasks=4, seeds=1, missing=0.25, rng=r)
        assert df.groupby(["agent", "task"], observed=True).ngroups == 18
        return frozenset(zip(df["agent"].astype(str), df["task"].astype(str)))

    assert len({pattern(r) for r in range(5)}) > 1
    assert pattern(1) == pattern(1)
