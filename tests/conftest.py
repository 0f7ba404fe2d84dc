"""Shared test fixtures: the published data (through the mirror the loader reads, RLSTATS_DATA_MIRROR, or
../shared/data beside the clone), CPU-time limits for child processes, a clean matplotlib, and every plot of a result."""

import copy
import functools
import gc
import importlib.metadata
import os
import sys
from pathlib import Path

import matplotlib
import pytest
from rlstats.errors import OptionError
from rlstats.tables import read_csv

matplotlib.use("Agg")

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


@pytest.hookimpl(hookwrapper=True)  # the old-style wrapper: pytest 7 (setup.cfg's floor) has no wrapper=True
def pytest_collect_file(file_path, parent):
    """The test modules hold no doctests: --doctest-modules (pyproject.toml) is for the package's docstrings, and
    searching every object of each test module for examples cost each worker 2.5-5 s of collection."""
    outcome = yield
    outcome.force_result([node for node in outcome.get_result() if type(node).__name__ != "DoctestModule"])


@pytest.hookimpl(hookwrapper=True)
def pytest_collection(session):
    """No cyclic garbage collection while the tests are collected, then everything collection left alive (the test
    modules, their functions, the items) frozen out of the collector's sight. Rewriting the asserts of ~330 modules
    builds millions of short-lived AST nodes, which set off ~50 full collections, each walking every object of the
    libraries already imported: 4.6 s of a worker's 16 s of collection CPU (gc.callbacks). Only the garbage
    collector's timing changes; nothing collected or tested does."""
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
        gc.collect()
        gc.freeze()


@functools.cache
def _loaded(name):
    import rlstats

    return rlstats.datasets.load(name)


def load_dataset(name):
    """``rlstats.datasets.load(name)``, read from the mirror once a process and handed out as a fresh deep copy.
    For the tests that use a published data set as their input, not those of the loader itself: hpo_landscapes
    (900,000 rows) took 0.8-1.2 s of CPU a load, and ten tests loaded it, hpo_optimisation 0.35 s in fifteen,
    dopamine_atari 0.4 s in six; a copy takes 0.13 s at most. The caller may change its copy, attrs (the loader's
    notes) too."""
    frame = _loaded(name).copy(deep=True)
    frame.attrs = copy.deepcopy(frame.attrs)  # older pandas' copies share the dict
    return frame


@pytest.fixture
def first_run_only(monkeypatch):
    """bayes()' hierarchical chains kept as asked, never run again (its MAX_EXTENSION set to 1), for tests of other
    properties on quick fits: 2 chains of 200 draws miss ESS >= 400 by construction and would run again up to 32
    times (0.4 s became 14 s a test). The run-again itself is tested in test_audit_s13_bayesconv.py."""
    from rlstats.methods.bayes import _api

    monkeypatch.setattr(_api, "MAX_EXTENSION", 1)


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


#: The variable naming the offline mirror of the published files, the one the dataset loader reads.
MIRROR_ENV = "RLSTATS_DATA_MIRROR"
#: The tidy CSVs of ../shared/data, each the frame ``rlstats.datasets.load(name)`` returns (test_datasets checks it).
PUBLISHED = {"atari100k.csv": "atari100k", "atari100k_reference.csv": "atari100k_reference",
             "mujoco_batches.csv": "mujoco_adastop", "halfcheetah_sac_td3.csv": "halfcheetah_sac_td3"}
NO_MIRROR = (f"the published data are not here: set {MIRROR_ENV} to a mirror of the pinned files "
             f"(<owner>/<repo>/<commit>/<path>, e.g. a copy of shared/data/raw), or put shared/data beside the clone "
             f"({SHARED_DATA})")


def data_mirror():
    """The offline mirror of the published files: ``RLSTATS_DATA_MIRROR`` as the loader reads it, else
    ../shared/data/raw when it sits beside the clone; None when there is neither."""
    if os.environ.get(MIRROR_ENV):
        return Path(os.environ[MIRROR_ENV]).expanduser()
    return SHARED_DATA / "raw" if (SHARED_DATA / "raw").is_dir() else None


@pytest.fixture
def shared_data():
    """Path to ../shared/data, for the few tests that need what only it holds: the tidy CSVs made apart from
    the loader (to check the loader against) and the SB3 logs; skips when it is not beside the clone.
    Tests that only read published scores use :func:`published` or :func:`mirror`, which need just the mirror."""
    if not (SHARED_DATA / "atari100k.csv").is_file():
        pytest.skip(f"shared data not found at {SHARED_DATA} (they sit beside the repository in CI); this test "
                    f"needs the tidy CSVs or logs only that folder holds, not just the mirror {MIRROR_ENV}")
    return SHARED_DATA


@pytest.fixture(scope="session")
def published(tmp_path_factory):
    """Folder holding the tidy CSVs of published scores (:data:`PUBLISHED`): ../shared/data when it sits beside
    the clone, else written once from ``rlstats.datasets.load()`` reading the mirror (:func:`data_mirror`);
    skips when there is neither."""
    if all((SHARED_DATA / name).is_file() for name in PUBLISHED):
        return SHARED_DATA
    root = data_mirror()
    if root is None or not root.is_dir():
        pytest.skip(NO_MIRROR)
    import rlstats

    folder = tmp_path_factory.mktemp("published")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(MIRROR_ENV, str(root))
        for csv, name in PUBLISHED.items():
            rlstats.datasets.load(name).to_csv(folder / csv, index=False)
    return folder


@pytest.fixture
def sb3():
    """The shared Stable-Baselines3 logs' evaluation returns (TensorBoard), as column score; skips when absent
    (they are training logs, not published files: no mirror holds them)."""
    import rlstats

    folder = SHARED_DATA / "logs" / "sb3_classic"
    if not folder.is_dir():
        pytest.skip(f"the SB3 logs are not at {folder} (shared/data/logs/sb3_classic beside the clone; they are "
                    f"not published files, so {MIRROR_ENV} cannot stand in for them)")
    return rlstats.read_logs(folder, "{agent}/{task}/seed_{seed}", format="tensorboard",
                             tags={"eval/mean_reward": "score"}, progress=False)


@pytest.fixture
def sb3_evaluations():
    """The same logs' evaluation callbacks (``evaluations.npz``, format sb3_eval), as column score; skips when absent."""
    import rlstats

    folder = SHARED_DATA / "logs" / "sb3_classic"
    if not folder.is_dir():
        pytest.skip(f"the SB3 logs are not at {folder} (shared/data/logs/sb3_classic beside the clone)")
    return rlstats.read_logs(folder, "{agent}/{task}/seed_{seed}", format="sb3_eval",
                             tags={"eval/mean_reward": "score"}, progress=False)


@pytest.fixture
def no_network(monkeypatch):
    """Fail the test if pooch is asked to download anything."""
    import pooch

    def refuse(*args, **kwargs):
        raise AssertionError(f"pooch.retrieve called with {args} {kwargs}")

    monkeypatch.setattr(pooch, "retrieve", refuse)


@pytest.fixture
def mirror_root():
    """The mirror's folder (:func:`data_mirror`) without setting the variable (for a test that serves or copies
    it); skips without one."""
    root = data_mirror()
    if root is None or not root.is_dir():
        pytest.skip(NO_MIRROR)
    return root


@pytest.fixture
def mirror(monkeypatch, no_network):
    """RLSTATS_DATA_MIRROR pointed at the mirror (:func:`data_mirror`), downloads forbidden; skips without one."""
    root = data_mirror()
    if root is None or not root.is_dir():
        pytest.skip(NO_MIRROR)
    monkeypatch.setenv(MIRROR_ENV, str(root))
    return root


@pytest.fixture
def atari(published):
    """The Atari 100k scores as published (tidy CSV from ../shared/data, or written from the mirror)."""
    return read_csv(published / "atari100k.csv")


@pytest.fixture
def sb3_run_missing_a_file(tmp_path):
    """Two runs of PPO CartPole-v1 from the shared SB3 logs (seed_0, seed_1; four monitor.csv files each) copied into
    ``tmp_path``, with seed 0's 2.monitor.csv cut mid-line (training killed while writing); skips without the logs."""
    import shutil

    source = SHARED_DATA / "logs" / "sb3_classic" / "PPO" / "CartPole-v1"
    if not source.is_dir():
        pytest.skip(f"the SB3 logs are not at {source}")
    for seed in (0, 1):
        shutil.copytree(source / f"seed_{seed}", tmp_path / f"seed_{seed}")
    cut = tmp_path / "seed_0" / "2.monitor.csv"
    cut.write_text(cut.read_text()[:-7])
    return tmp_path


@pytest.hookimpl(trylast=True)  # after the test's own fixtures are torn down, as the autouse fixture this replaces
def pytest_runtest_teardown(item, nextitem):
    """Every figure a test left open is closed after it. A hook, not an autouse fixture: a fixture around each of
    the ~8,000 tests cost ~0.4 ms of CPU each in pytest's fixture machinery (~3.5 s a run), most of them drawing
    nothing."""
    plt = sys.modules.get("matplotlib.pyplot")
    if plt is not None and plt.get_fignums():
        plt.close("all")


def pytest_report_header(config):
    mirror = os.environ.get("RLSTATS_DATA_MIRROR")
    return f"rlstats data mirror: {mirror or '(none)'}"


def drawn_outside(figure):
    """How far (inches) what the figure draws reaches past each edge of the figure: left, bottom, right, top. Laid out
    and drawn as canvas.draw() or savefig draws it, on the same renderer, without the pixels (only where things lie is
    read: the same values on the 48 figures its callers drew, speed40)."""
    figure.draw_without_rendering()
    box = figure.get_tightbbox(figure.canvas.get_renderer())
    width, height = figure.get_size_inches()
    return max(0.0, -box.x0), max(0.0, -box.y0), max(0.0, box.x1 - width), max(0.0, box.y1 - height)


def drawable_plots(result):
    """(kind, drawn) for every plot kind ``result`` can draw; a kind that needs something the run did not
    compute raises OptionError, which is its documented way of saying so, and is skipped."""
    for kind in type(result)._plot_kinds:
        try:
            drawn = result.plot(kind=kind)
        except OptionError:
            continue
        yield kind, drawn


def script_module(path, name):
    """The Python file ``path`` (a reference script, docs/_generate.py) loaded as a module named ``name``."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


#: bayes(model="hierarchical") in short chains, and a max_seconds= (0.25 s, against an estimate of 0.1 s) that leaves
#: no room to run them again (the bound of _extension_bound is then 1), so that each pair's numbers are its first fit's
#: in every call; the long ones run as far as they need (the slow tests)
BAYES_CHAINS = {"model": "hierarchical", "chains": 2, "warmup": 100, "draws": 100, "rng": 3, "progress": False,
                "max_seconds": 0.25}
BAYES_LONG_CHAINS = {**BAYES_CHAINS, "chains": 4, "warmup": 200, "draws": 400, "max_seconds": float("inf")}


def pair_row(res, a, b):
    """The row of the pair (a, b) in a pairwise result's tidy() frame."""
    rows = res.tidy()
    return rows[(rows.agent_1 == a) & (rows.agent_2 == b)].iloc[0]


def caught(call, category=Warning):
    """(``call()``, the text of each warning of ``category`` it raised, in order): every warning recorded, none
    filtered or shown once only, for the tests of what a call says."""
    import warnings

    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        result = call()
    return result, [str(w.message) for w in said if issubclass(w.category, category)]


def rule_off(call, *patches):
    """``call()`` with a rule switched off: each (object, attribute, value) of ``patches`` set for the call's duration
    (the tests that a newer rule leaves a run bit for bit as it was check the run against this one; audit s11 first)."""
    with pytest.MonkeyPatch.context() as patch:
        for target, name, value in patches:
            patch.setattr(target, name, value)
        return call()


def no_welch_floor(bounds, se, *rest):
    """``statistics.welch_floor`` switched off: the bootstrap-t bounds as they are, none floored."""
    import numpy as np

    return bounds, se, np.zeros(np.shape(bounds), dtype=bool)


def welch_off():
    """The patches of :func:`rule_off` that switch the Welch t floor off (audit s20) where the back ends read it."""
    from rlstats.methods.bootstrap import _small_runs
    from rlstats.methods.equivalence import _api

    return [(_small_runs, "welch_floor", no_welch_floor), (_api, "welch_floor", no_welch_floor)]


#: How near scipy's noncentral t (special.nctdtr, stats.nct) is to the exact cdf, absolute. From scipy 1.15 it is
#: Boost's, within 1e-13 of an adaptive integral; before, cdflib's cumtnc, off by up to 1e-6 (measured with scipy
#: 1.11-1.14, identical there: 8.6e-7 for 1.5e-7 at t 10, df 2, ncp 39.99; 2.5e-7 at ncp 20; 0 for 9.8e-7 at df 1e5,
#: ncp 40), so the limits that rlstats finds by bisection on nctdtr below |ncp| 40 carry that error on the oldest
#: scipy the package allows.
NCT_ATOL = 1e-13 if tuple(int(part) for part in importlib.metadata.version("scipy").split(".")[:2]) >= (1, 15) else 2e-6


def same_bits(x, y):
    """x and y are equal bit for bit as float arrays (NaN where NaN)."""
    import numpy as np

    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    assert x.shape == y.shape and np.array_equal(x, y, equal_nan=True), (x, y)


def noise_ties(tasks):
    """(noisy, exact): agents a, b and c on ``tasks`` tasks x 4 seeds, where b's runs equal a's up to 1e-15 (0
    against -7e-15 among scores up to 13: round-off, not wins) and ``exact`` is the same frame with true ties."""
    import pandas as pd

    rows = []
    for t in range(tasks):
        for s in range(4):
            rows += [(f"t{t}", "a", s, float(s)), (f"t{t}", "b", s, float(s) - 7e-15 * (s == 0) + 1e-15 * s),
                     (f"t{t}", "c", s, 10.0 + s)]
    noisy = pd.DataFrame(rows, columns=["task", "agent", "seed", "score"])
    return noisy, noisy.assign(score=noisy["score"].round(6))


def capped_normal_frame(cap, seed, runs, tasks=5, agents=2, spread=0.0, seeds=False):
    """Agents A, B, ... on ``tasks`` tasks x ``runs`` runs of normal scores (sd 1, the agents' means evenly from 0 to
    ``spread``), each score above ``cap`` set to it (None: no cap): the saturated and capped runs of the audits'
    reproducers. ``seeds``: with the runs' numbers in column seed."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(seed)
    z = rng.standard_normal((agents, tasks, runs)) + np.linspace(0, spread, agents)[:, None, None]
    if cap is not None:
        z = np.minimum(z, cap)
    a, t, r = np.meshgrid(range(agents), range(tasks), range(runs), indexing="ij")
    frame = pd.DataFrame({"agent": np.array(list("ABCD"))[a.ravel()], "task": [f"t{i}" for i in t.ravel()],
                          "score": z.ravel()})
    if seeds:
        frame.insert(2, "seed", r.ravel())
    return frame


def curves_frame(*, tasks=2, runs=3, steps=4, seed=0, agents=("A", "B"), trend=0.0, scale=1.0, shift=0.0, slope=0.0,
                 cap=None, run="seed"):
    """Learning curves, every run logged at every step: ``agents`` on ``tasks`` (a count, named t0, t1, ...; or the
    names) x ``runs`` runs (column ``run``) x ``steps`` (a count, steps 0, 1, ...; or the step values), each score
    ``(trend + scale z + shift) + slope step``, capped at ``cap`` (None: no cap). ``z`` are standard normal draws from
    ``default_rng(seed)`` in row order (agent, task, run, step); ``trend`` is a scalar or one value per step,
    ``shift`` and ``slope`` a scalar or one value per agent."""
    import numpy as np
    import pandas as pd

    names = [f"t{i}" for i in range(tasks)] if isinstance(tasks, int) else list(tasks)
    values = np.arange(steps) if isinstance(steps, int) else np.asarray(steps)
    z = np.random.default_rng(seed).standard_normal((len(agents), len(names), runs, len(values)))

    def per_agent(value):
        return np.broadcast_to(np.asarray(value, dtype=float), len(agents))[:, None, None, None]

    score = (np.broadcast_to(trend, len(values)) + scale * z + per_agent(shift)) + per_agent(slope) * values
    if cap is not None:
        score = np.minimum(score, cap)
    a, t, r, s = np.meshgrid(range(len(agents)), range(len(names)), range(runs), range(len(values)), indexing="ij")
    return pd.DataFrame({"agent": np.asarray(agents)[a.ravel()], "task": np.asarray(names)[t.ravel()], run: r.ravel(),
                         "step": values[s.ravel()], "score": score.ravel()})


def rising_curves(cap, seed, runs=3, tasks=5, steps=4):
    """The saturation audits' curves: agents A and B, normal scores rising from -2 to 0 over the steps, capped at
    ``cap`` (None: no cap)."""
    import numpy as np

    return curves_frame(tasks=tasks, runs=runs, steps=steps, seed=seed, trend=np.linspace(-2, 0, steps), cap=cap)


def simulated_curves(tasks=4, steps=5):
    """The metamorphic and row-order checks' learning curves: 3 agents on ``tasks`` tasks x 3 seeds x ``steps`` steps
    (``rlstats.datasets.simulate_curves``, effect 0.5, rng 0), without the simulator's attrs."""
    import rlstats

    frame = rlstats.datasets.simulate_curves(agents=3, tasks=tasks, seeds=3, steps=steps, effect=0.5, rng=0)
    frame.attrs = {}
    return frame


def lr_sweep(categorical=False, tasks=("ant", "hopper")):
    """A learning-rate sweep: agents ppo and sac on ``tasks``, lr 0.001, 0.01 and 0.1, 4 seeds each, the score
    N(0, 1) plus 1 at lr = 0.01 (default_rng(0)); ``categorical``: agent and task as categories."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(0)
    rows = [(a, t, lr, s, (lr == 0.01) + rng.normal()) for a in ("ppo", "sac") for t in tasks
            for lr in (0.001, 0.01, 0.1) for s in range(4)]
    frame = pd.DataFrame(rows, columns=["agent", "task", "lr", "seed", "score"])
    return frame.astype({"agent": "category", "task": "category"}) if categorical else frame


def contract_frame(name, df):
    """``df``, simulated runs (agent, task, seed, score), as back end ``name``'s contract case reads them: tuning's
    names ``config="lr"`` (its declaration; each agent one configuration is refused, nothing to tune: new-user trial
    s38), so its runs get a learning rate of two values a sweep, 0.001 for the even seeds and 0.01 for the odd ones;
    other back ends' frames as they are."""
    import numpy as np

    if name != "tuning" or "lr" in df.columns:
        return df
    return df.assign(lr=np.where(df["seed"].to_numpy() % 2 == 0, 0.001, 0.01))


def one_sweep(values, agent="ppo", task="ant"):
    """One sweep of ``agent`` on ``task``: values[c] are the scores of configuration lr = c's runs (seeds 0..n-1)."""
    import pandas as pd

    return pd.DataFrame([(agent, task, c, s, float(v)) for c, runs in enumerate(values) for s, v in enumerate(runs)],
                        columns=["agent", "task", "lr", "seed", "score"])


def long_frame(scores, agents="ABCDEFGH", task="t{}"):
    """The long frame of an array of scores shaped (tasks, agents, runs): agent ``i`` named ``agents[i]``, task ``i``
    named ``task.format(i)``, run ``r`` in column seed."""
    import numpy as np
    import pandas as pd

    tasks, n_agents, runs = scores.shape
    t, a, r = np.meshgrid(np.arange(tasks), np.arange(n_agents), np.arange(runs), indexing="ij")
    return pd.DataFrame({"task": [task.format(i) for i in t.ravel()], "agent": np.asarray(list(agents))[a.ravel()],
                         "seed": r.ravel(), "score": scores.ravel()})


def runs_frame(runs):
    """The long frame of {(agent, task): scores}, each cell's runs as seeds 0, 1, ..."""
    import pandas as pd

    return pd.DataFrame([(agent, task, seed, score) for (agent, task), scores in runs.items()
                         for seed, score in enumerate(scores)], columns=["agent", "task", "seed", "score"])


def quietly(call, *args, **kwargs):
    """``call(*args, **kwargs)`` with warnings silenced: simulate()'s tasks have their own scales on purpose."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return call(*args, **kwargs)


def cli_run(*args):
    """(exit status, stdout, stderr) of the command line given ``args``, in this process (argparse's exit, which
    the refusal of a bad argument is, read as the status it exits with)."""
    import contextlib
    import io

    from rlstats.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main([str(a) for a in args], out=out)
        except SystemExit as exc:
            status = exc.code
    return status, out.getvalue(), err.getvalue()


def cli_shell(*args, cwd=None):
    """``rlstats ARGS`` as a shell sees it, run in this process by :func:`cli_run` (a ``python -m rlstats`` child
    costs a second of CPU to start): (returncode, stdout, stderr) as ``subprocess.run`` gives them, warnings shown
    as a fresh interpreter shows them (Python's default filters, not this suite's filterwarnings), ``cwd`` the
    current folder meanwhile. For tests of what a command prints; those of the process itself (its start-up, its
    exit at the interpreter's end, locks held by another process, CPU caps) start one."""
    import types
    import warnings

    here = os.getcwd()
    with warnings.catch_warnings():
        warnings.resetwarnings()  # then a fresh interpreter's filters, the last added first matched
        for category in (ResourceWarning, ImportWarning, PendingDeprecationWarning, DeprecationWarning):
            warnings.simplefilter("ignore", category)
        warnings.filterwarnings("default", category=DeprecationWarning, module="__main__")
        try:
            if cwd is not None:
                os.chdir(cwd)
            status, out, err = cli_run(*args)
        finally:
            os.chdir(here)
    return types.SimpleNamespace(returncode=0 if status is None else status, stdout=out, stderr=err)


def named_agents_runs(agents=("None", "PPO", "SAC")):
    """4 runs of each agent on tasks t1-t3, normal scores: names a file's reader may take for missing values."""
    import numpy as np
    import pandas as pd

    gen = np.random.default_rng(0)
    rows = [(a, t, r, gen.normal()) for a in agents for t in ("t1", "t2", "t3") for r in range(4)]
    return pd.DataFrame(rows, columns=["agent", "task", "run", "score"])


def levelled(df, ordered, levels=("easy", "medium", "hard")):
    """``df`` (tasks task_01-task_04) with a categorical ``level`` column: easy, medium, hard, hard by task, its
    categories ``levels`` (the subset= tests of ordered levels, audit s31 meta31 and bfix31)."""
    import pandas as pd

    level = df["task"].map({"task_01": "easy", "task_02": "medium", "task_03": "hard", "task_04": "hard"})
    return df.assign(level=pd.Categorical(level, categories=list(levels), ordered=ordered))


def tasks_kept(df, condition):
    """The tasks a task table of ``df`` reads under ``subset=condition``."""
    import rlstats

    return tuple(rlstats.compare(df, "score ~ agent | task", method="task_table", subset=condition).to_dict()["tasks"])


def separated_rejected(agents, n, K, n_resamples, seed):
    """Whether AdaStop rejects some comparison on perfectly separated data (agent i's runs near 100 i, labels 'a1',
    'a2', ...) with this seed: the check of the "rarely rejects" warning (audit s32 left32) and of the advice that
    works (audit s31 rfix31d)."""
    import warnings

    import numpy as np

    from rlstats.methods.adastop import AdaStop

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        seq = AdaStop(agents, n=n, K=K, n_resamples=n_resamples, rng=seed)
        rng = np.random.default_rng(seed)
        while not seq.done:
            seq.update({a: 100 * int(a[1:]) + rng.normal(0, 1, n) for a in seq.agents_to_run})
    return bool((seq.decisions["decision"] != "equal").any())


#: pandas >= 2.1 writes a frame's attrs (rlstats' notes) into Parquet files and pyarrow schemas; 2.0, the oldest
#: allowed, writes none: what a note read back says there is nothing, and a time summary's direction is refused
ATTRS_IN_PARQUET = tuple(int(p) for p in importlib.metadata.version("pandas").split(".")[:2]) >= (2, 1)
