"""Every registered back end's result shows in Jupyter as HTML tables, with the text escaped. That its figures show
inline (each one pyplot manages) is checked with the result contract, in test_contract.py's plot test."""

import html
import inspect
import re

import pytest

import rlstats
from conftest import contract_frame
from rlstats.methods import DECLARATIONS, METHODS


#: an agent name with every character HTML gives a meaning to
ODD = "a<b>&\"c'"


def _data(name):
    if DECLARATIONS[name].reads_curves:
        df = rlstats.datasets.simulate_curves(agents=3, tasks=4, seeds=3, steps=5, effect=0.5, rng=0)
    else:
        df = contract_frame(name, rlstats.datasets.simulate(agents=3, tasks=6, seeds=4, effect=1.0, rng=0))
    agents = df["agent"].astype(str)
    return df.assign(agent=agents.where(agents != "agent_2", ODD))  # agent_1 and agent_3: named by the cases


@pytest.fixture(scope="module", params=sorted(METHODS))
def result(request):
    formula, options = DECLARATIONS[request.param].contract
    if "rng" in inspect.signature(rlstats.methods.backend(request.param)).parameters:
        options = {**options, "rng": 1}
    return rlstats.compare(_data(request.param), formula, method=request.param, **options)


@pytest.fixture(scope="module")
def shown(result):
    """The result as Jupyter shows it, rendered once for the tests that read it (a result is frozen)."""
    return result._repr_html_()


def test_the_result_is_html_tables_with_its_text_escaped(result, shown):
    assert shown.startswith("<table>") and "<pre" not in shown
    # every table closes, and as many show as the summary has (plus the test block), task_table its own one
    assert shown.count("<table>") == shown.count("</table>") >= 1 + (type(result).__name__ != "TaskTableResult") * \
        len(result.summary().tables)
    if ODD in str(result.summary()) or ODD in str(result):  # the odd agent shows (selection names two others)
        assert html.escape(ODD) in shown
    assert ODD not in shown and "<b>&" not in shown
    # nothing but the tags the renderer writes
    assert set(re.findall(r"</?([a-z]+)", shown)) <= {"table", "thead", "tbody", "tr", "th", "td", "caption",
                                                     "p", "b", "ul", "li"}
    for note in result.notes:  # every note is shown
        assert html.escape(note) in shown


def test_the_test_block_is_a_table_with_the_method_as_caption(result, shown):
    if type(result).__name__ == "TaskTableResult":
        pytest.skip("task_table shows its own table (the paper table), tested in test_task_table.py")
    assert shown.startswith(f"<table><caption style=\"text-align:left\">{html.escape(result.method)}</caption>")
    assert f"<th style=\"text-align:left\">data</th><td style=\"text-align:left\">{html.escape(result.data_name)}" \
           in shown
