"""Audit s31 bounds31: sizes a small input can ask for are refused before they are allocated.

Probed under ``ulimit -v 2000000`` and ``timeout``: every count option of every public function, the command
line's -o values and the log readers' formats. What got through:

* bayes()'s signed-rank model keeps every posterior draw of every pair (the pair's three region masses and its
  mean, twice while the blocks are joined): its cost formula counted time only, so 10 agents x 3 tasks with
  n_samples=10**7 (an estimated minute) was admitted and asked for tens of GiB; measured 105 bytes a pair and
  draw (15 pairs: 1.70 GB peak RSS at 10**6 draws, 3.27 GB at 2 x 10**6).
* task_table(aggregate="bootstrap") keeps each agent's resampled aggregate like bootstrap() does, but its cost
  formula counted none of it: 10 agents with n_resamples=10**7 was admitted (about 20 s) and needs some 5 GiB
  (measured 56 bytes an agent and resample at 2 agents: 270 MB peak at 10**6, 383 MB at 2 x 10**6).
* a JSON number of more than Python's 4,300 digits is a ValueError of json.loads that is not a JSONDecodeError:
  a JSON-lines log, a monitor.csv header, a marl-eval file or an AdaStop state holding one ended in that raw
  ValueError, not an rlstats error naming the file.

Every refusal here happens before anything is computed: the computing step is replaced by one that fails the test.
"""

import json

import pytest

import rlstats
from rlstats.errors import DesignError, LogReadError, OptionError


class Started(Exception):
    """Raised where the call would start computing: a refusal must come before it."""


def _never(*args, **kwargs):
    raise Started("the call started computing instead of refusing")


def test_bayes_signed_rank_counts_its_kept_draws(monkeypatch):
    monkeypatch.setattr("rlstats.methods.bayes._api._run", _never)
    data = rlstats.datasets.simulate(agents=10, tasks=3, seeds=1, rng=0)  # 45 pairs
    with pytest.raises(OptionError) as info:
        rlstats.bayes(data, "score ~ agent | task", n_samples=10**7, progress=False)
    message = str(info.value)
    assert "bayes()" in message and "GiB" in message and "n_samples" in message
    assert "45 pairs" in message
    # the bound does not move with max_seconds=
    with pytest.raises(OptionError, match="GiB"):
        rlstats.bayes(data, "score ~ agent | task", n_samples=10**7, progress=False, max_seconds=float("inf"))
    # the default n_samples (50,000) on the same design is far below it: admitted
    with pytest.raises(Started):
        rlstats.bayes(data, "score ~ agent | task", progress=False)


def test_task_table_aggregate_counts_its_kept_resamples(monkeypatch):
    monkeypatch.setattr("rlstats.methods.task_table._api.seed_sequence", _never)
    data = rlstats.datasets.simulate(agents=10, tasks=3, seeds=3, rng=0)
    with pytest.raises(OptionError) as info:
        rlstats.task_table(data, "score ~ agent | task", aggregate="bootstrap", n_resamples=10**7, progress=False,
                           max_seconds=float("inf"))
    message = str(info.value)
    assert "task_table()" in message and "GiB" in message and "n_resamples" in message
    # without the aggregate row nothing is resampled and kept: admitted
    with pytest.raises(Started):
        rlstats.task_table(data, "score ~ agent | task", n_resamples=10**7, progress=False)


_DIGITS = "9" * 5000  # more than Python's 4,300-digit limit of int('...')


def _write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_a_json_lines_log_with_a_5000_digit_number_is_a_log_read_error(tmp_path):
    _write(tmp_path / "a" / "t" / "1" / "log.jsonl", '{"step": 1, "return": 1.0}\n{"step": 2, "return": '
           + _DIGITS + "}\n")
    with pytest.raises(LogReadError, match=r"line 2 is not JSON \(a number of 5,000 digits"):
        rlstats.read_logs(tmp_path, "{agent}/{task}/{seed}", progress=False)


def test_a_monitor_header_with_a_5000_digit_number_is_a_log_read_error(tmp_path):
    _write(tmp_path / "a" / "t" / "1" / "0.monitor.csv",
           '#{"t_start": ' + _DIGITS + ', "env_id": "x"}\nr,l,t\n1.0,10,0.5\n')
    with pytest.raises(LogReadError, match=r"header line is not JSON \(a number of 5,000 digits"):
        rlstats.read_logs(tmp_path, "{agent}/{task}/{seed}", progress=False)


def test_a_marl_eval_file_with_a_5000_digit_number_is_a_log_read_error(tmp_path):
    _write(tmp_path / "metrics.json", '{"env": {"task": {"algo": {"seed_0": {"step_0": {"step_count": '
           + _DIGITS + ', "return": [1.0]}}}}}}')
    with pytest.raises(LogReadError, match=r"not JSON \(a number of 5,000 digits"):
        rlstats.read_logs(tmp_path, format="marl_eval", progress=False)


def test_an_adastop_state_with_a_5000_digit_number_is_a_design_error(tmp_path):
    path = tmp_path / "state.json"
    path.write_text('{"version": ' + _DIGITS + "}")
    with pytest.raises(DesignError, match=r"cannot read the AdaStop state .*state.json: a number of 5,000 digits"):
        rlstats.AdaStop.load(path)


# mixed(): every pair's variance and df are quadratic forms of its contrast row (a coefficient per agent) in agents x
# agents matrices: agents^4 / 2 products and pairs x agents floats held, which its cost formula did not count (rows
# and Tukey's integrals only): adjust='holm' at 250 agents x 2 tasks x 2 seeds was estimated at 2 ms and took 11.5 s
# CPU; 600 agents held 1.9 GB still growing after 80 s; 3,000 agents were admitted (302 GiB of contrasts)


def test_mixed_counts_its_pairs_quadratic_forms_and_their_memory(monkeypatch):
    from rlstats.cost import Shape
    from rlstats.methods.mixed import MixedOptions
    from rlstats.methods.mixed._backend import cost

    holm = cost(Shape(rows=1000, agents=250, tasks=2, cells=500, most_runs=2), MixedOptions(adjust="holm"))
    assert 11.5 / 4 < holm.seconds < 11.5 * 4  # measured 11.5 s CPU (audit s31)
    monkeypatch.setattr("rlstats.methods.mixed._api._run", _never)
    data = rlstats.datasets.simulate(agents=800, tasks=2, seeds=1, rng=0)
    with pytest.raises(OptionError) as info:
        rlstats.mixed(data, "score ~ agent | task", adjust="holm", progress=False, max_seconds=float("inf"))
    message = str(info.value)
    assert "mixed() would keep about 5.71 GiB of pairwise contrasts (319,600 pairs x 800 agents)" in message
    assert "fewer agents" in message


# Result.plot(figsize=) took any positive size: figsize=(700, 700) drew a 70,000 x 70,000 pixel canvas (std::bad_alloc
# under a 2 GB cap, 19.6 GB without one) while laying the labels out
@pytest.mark.parametrize("figsize", [(700, 700), (5, 10**6)])
def test_a_figure_size_past_any_page_is_refused_before_drawing(figsize, monkeypatch):
    result = rlstats.bootstrap(rlstats.datasets.simulate(agents=2, tasks=3, seeds=3, rng=0), "score ~ agent | task",
                               n_resamples=200, rng=0, progress=False)
    with monkeypatch.context() as patched:
        patched.setattr("rlstats.plotting.resized", _never)  # where the figure takes its size and is laid out
        with pytest.raises(OptionError) as info:
            result.plot(figsize=figsize)
    assert f"figsize={figsize!r}" in str(info.value) and "100 inches" in str(info.value)
    from rlstats.plotting import check_figsize

    assert check_figsize((100, 3), None) == (100.0, 3.0)  # the bound itself is taken


# percentiles(interval="bootstrap") keeps every resample's aggregate of every agent (and a reordered copy, and the
# quantiles' copy) and its RNG blocks' generators, 32 resamples a block; its cost formula counted time only, so with
# max_seconds= lifted 20 agents at n_resamples=10**7 (some 5 GB) were admitted; measured 42 bytes a resample at
# 2 agents (198 and 240 MB peak RSS at 10**6 and 2 x 10**6)
def test_percentiles_bootstrap_counts_its_kept_aggregates(monkeypatch):
    monkeypatch.setattr("rlstats.methods.percentiles._kernels.bootstrap_aggregates", _never)
    data = rlstats.datasets.simulate(agents=20, tasks=1, seeds=2, rng=0)
    with pytest.raises(OptionError) as info:
        rlstats.percentiles(data, "score ~ agent | task", interval="bootstrap", n_resamples=10**7, progress=False,
                            max_seconds=float("inf"))
    message = str(info.value)
    assert "percentiles() would keep about 4.84 GiB of resamples (10,000,000 resamples x 20 agents)" in message
    assert "or interval='pbp' (the default, which does not resample)" in message


# The rank test's cost formula counted no Tukey tail of its post hoc pairs
# (posthoc_arrangements gives 0 for Tukey's single step, the default on balanced designs), which studentized_range_sf
# integrates pair by pair: skillings_mack() took 0.47, 5.8 and 19.7 s CPU at 100, 200 and 300 agents x 10 tasks x
# 3 seeds, estimated at 0.003 to 0.009 s; power("skillings_mack", agents=300, seeds=[3], n_sim=2) was estimated at
# 0.0024 s and still ran after 60 s
def test_rank_test_counts_its_tukey_post_hoc_pairs():
    from rlstats.cost import Shape
    from rlstats.methods.skillings_mack import SkillingsMackOptions
    from rlstats.methods.skillings_mack._backend import cost

    shape = Shape(rows=9000, agents=300, tasks=10, cells=3000, most_runs=3)
    assert 19.7 / 4 < cost(shape, SkillingsMackOptions()).seconds < 19.7 * 4  # measured 19.7 s CPU
    # two agents' one pair: a few microseconds, as before within the call's own cost
    small = Shape(rows=30, agents=2, tasks=5, cells=10, most_runs=3)
    assert cost(small, SkillingsMackOptions()).seconds < 0.02
