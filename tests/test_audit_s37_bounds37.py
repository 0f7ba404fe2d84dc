"""Audit s37 bounds37: sizes a small input can ask for, counted before they are listed, converted or compared.

Probed under ``ulimit -v 4000000``: every count, grid and list option of the public functions. What got through:

* a range or list given where a grid or a list of names is taken was converted whole before it was counted:
  ``performance_profile(tau=range(10**8))``, ``tuning(budgets=range(1, 10**8))``, ``power(tasks=range(10**8))``,
  ``power(agents=range(10**8))``, ``power(effect=range(10**8))`` and ``simulate(agents=range(10**8))`` ended in
  MemoryError after 5-8 s, not an rlstats error;
* ``simulate(agents=10**7, tasks=10**7)`` made 2 x 10**7 names before the size (10**14 scores) was checked;
* ``simulate()`` found repeated names with ``names.count(name)`` for every name: quadratic, 10**5 names some 10**10
  comparisons;
* ``build()`` read which agents were left out through a set rebuilt for every agent: quadratic, 16 s at 10,000
  agents of 2 runs (20,000 rows), so that every back end's own size refusal came only after it.
"""

import time

import pytest

import rlstats


def test_simulate_finds_repeated_names_in_one_pass():
    names = [f"a{i}" for i in range(50_000)]
    start = time.process_time()  # CPU seconds: a loaded machine stretches wall time, not the work done
    data = rlstats.datasets.simulate(agents=names, tasks=1, seeds=1, rng=0)
    assert time.process_time() - start < 5  # names.count() a name: 2.5e9 comparisons
    assert len(data) == 50_000
    try:
        rlstats.datasets.simulate(agents=names + names[:12], tasks=1, seeds=1, rng=0)
    except rlstats.OptionError as error:
        assert str(error) == "agents names must be unique; repeated: a0, a1, a10, a11, a2, a3, a4, a5, a6, a7 and 2 more"
    else:
        raise AssertionError("repeated names were taken")


def test_build_of_many_agents_is_not_quadratic():
    data = rlstats.datasets.simulate(agents=10_000, tasks=1, seeds=2, rng=0)
    start = time.process_time()
    design = rlstats.build(data, "score ~ agent | task")
    assert time.process_time() - start < 5  # 16 s measured before (a set per agent)
    assert design.n_agents == 10_000 and design.left_out_agents == ()
    # the left-out agents are still named: one with no rows, one whose only task no other agent ran
    data = rlstats.datasets.simulate(agents=3, tasks=2, seeds=2, rng=0)
    data = data[~((data.agent == "agent_3") & (data.task == "task_01"))]
    data = data[~((data.agent != "agent_3") & (data.task == "task_02"))]
    data = data.astype({"agent": "category"})
    data["agent"] = data["agent"].cat.add_categories(["agent_4"])
    design = rlstats.build(data, "score ~ agent | task")
    assert dict(design.left_out_agents) == {
        "agent_4": "it has no rows in the data analysed",
        "agent_3": "its runs are all on tasks kept out, where no other agent has runs"}


class Started(Exception):
    """Raised where the call would list every pair: a refusal must come before it."""


def _never(*args, **kwargs):
    raise Started("the call listed every pair instead of refusing")


MANY = rlstats.build(rlstats.datasets.simulate(agents=10_000, tasks=1, seeds=2, rng=0), "score ~ agent | task")


def _refusal(call, **options):
    """The OptionError ``call(MANY, progress=False, **options)`` raises, asserted within 2 CPU seconds."""
    start = time.process_time()
    with pytest.raises(rlstats.OptionError) as refused:
        call(MANY, progress=False, **options)
    assert time.process_time() - start < 2
    return str(refused.value)


def test_task_table_counts_each_tasks_agent_pairs(monkeypatch):
    """10,000 agents of 2 runs (a 20,000-row frame) were estimated at 0.6 s, ran 95 s and ended in MemoryError."""
    monkeypatch.setattr("rlstats.methods.task_table._api.seed_sequence", _never)
    message = _refusal(rlstats.task_table, max_seconds=float("inf"))
    assert message.startswith("task_table() would keep about 23.3 GiB of pairs' entries (1 task x 10,000 x 10,000 "
                              "agents' pairs) in memory, more than the 4 GiB rlstats allocates; pass fewer agents")


def test_probability_of_improvement_counts_its_pairs_before_listing_them(monkeypatch):
    """10,000 agents: 50 million pairs listed (36 s), then estimated at 2 s and MemoryError after 118 s."""
    monkeypatch.setattr("rlstats.methods.bootstrap._api.check_pairs", _never)
    message = _refusal(rlstats.probability_of_improvement, max_seconds=float("inf"))
    assert message.startswith("probability_of_improvement() would keep about 55.9 GiB of pairs' results (49,995,000 "
                              "pairs (interval='score')) in memory"), message
    assert message.endswith("pass fewer pairs (pairs=, or fewer agents): every pair is compared on its own")


def test_equivalence_counts_its_pairs_tests_before_listing_them(monkeypatch):
    """10,000 agents: every pair listed for the aggregate's passes before the estimate, MemoryError after 58 s
    (3,000 agents: refused after 30 s). Their tests alone: 49,995,000 pairs x (0.6 ms + 33 us a task) on one task, 8.79
    hours (audit s39 eq39; 37.9 hours at s32's 2.7 ms + 30 us, before each pair's work was read in one pass)."""
    monkeypatch.setattr("rlstats.methods.equivalence._api._passes", _never)
    message = _refusal(rlstats.equivalence, margin=1.0)
    assert message.startswith("equivalence() would take about 8.79 hours"), message
    assert "49,995,000 pairs' tests" in message and "pass max_seconds=" in message


def test_a_long_command_line_list_is_read_in_one_pass():
    """-o tau=[0, 1, ..., 19999] ran minutes: ast.get_source_segment split the whole value again for every number."""
    from rlstats.cli._shared import parse_option

    text = "tau=" + str(list(range(50_000)))
    start = time.process_time()
    name, value = parse_option(text)
    assert time.process_time() - start < 5
    assert name == "tau" and value == list(range(50_000))
    # each number keeps its text as typed, on any line and after text that is not ASCII
    name, value = parse_option('x=[1e3, ("é", -3e-4), 0x10,\n 2.50]')
    assert [value[0].typed, value[1][1].typed, value[2].typed, value[3].typed] == ["1e3", "-3e-4", "0x10", "2.50"]
    assert value[1][0] == "é"
