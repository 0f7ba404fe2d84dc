"""The selection check's declaration (read by the registry, :mod:`rlstats.methods`).

When to use
-----------
To check a claimed improvement reported on a subset of tasks: are the reported tasks representative of the others,
or picked where the new agent happened to win (Komiyama and Maehara)? It compares the treatment's effect on the
reported tasks with its effect on held-out tasks. Use it when reviewing a result, or before publishing one on a
few tasks; :func:`rlstats.selection.required_heldout` says how many held-out tasks an inspector needs.
"""

from typing import Any

from .._declaration import Backend, Need
from ...cost import Shape, Work

_HERE = "rlstats.methods.selection"


def demo_options(data):
    """The demo reports the four tasks where the last agent beats the first one most: exactly the
    selection the check is meant to catch."""
    agents = sorted(data["agent"].unique())
    means = data.groupby(["task", "agent"], observed=True)["score"].mean().unstack()
    gap = (means[agents[-1]] - means[agents[0]]).dropna().sort_values(ascending=False)
    return {"treatment": agents[-1], "baseline": agents[0], "reported": list(gap.index[:4]), "na_action": "drop"}


def citations(result: Any, keys: tuple[str, ...]) -> list[str]:
    """Hall (1992) after the method's paper when the reporter's test is the skew-corrected t (the default)."""
    skew_t = (getattr(result, "options", None) or {}).get("reporter") == "skew_t"
    return [*keys, "hall1992"] if skew_t else list(keys)


def cost(shape: Shape, options: Any) -> Work:
    """The inspector permutes the tasks' effects (2e-8 s a task and permutation, measured at 3 agents x 200-1,000
    tasks; 5e-8 before issue 43's session 6 overstated it 2.9x), after a pass over the runs (the Design and the
    tasks' effects, about 1e-6 s a run: 50 units). Where the reported subsets are few enough to enumerate, fewer
    than ``n_resamples``, the permutations cost less than this."""
    return Work(options.n_resamples * shape.tasks + 50 * shape.rows, "permuted values", 2e-8,
                f"{options.n_resamples:,} permutations x {shape.tasks:,} tasks + {shape.rows:,} runs read")


BACKENDS = (
    Backend(
        name="selection",
        cost=f"{_HERE}._backend:cost",
        function=f"{_HERE}._api:selection_check",
        result=f"{_HERE}._result:SelectionCheckResult",
        options=f"{_HERE}._api:SelectionOptions",
        citations=("komiyama2018",),
        cite=f"{_HERE}._backend:citations",
        # a standardised difference divides by the runs' pooled standard deviation; the other effects need one run
        replication=(Need("effects", 'effect="std_diff" effects', runs=2, per="cell", below="refuse",
                          when=(("effect", "std_diff"),), way_on='use effect="mean_diff" or "poi", or add runs'),),
        contract=("score ~ agent | task", {"treatment": "agent_3", "baseline": "agent_1",
                                           "reported": ["task_01", "task_02", "task_03"]}),
        demo=("score ~ agent | task", f"{_HERE}._backend:demo_options"),
        no_power="its power is planned by rlstats.selection.detection_probability and "
                 "rlstats.selection.required_heldout, which model the reported and held-out tasks",
    ),
)

#: the folder itself is public as ``rlstats.selection`` (its planning helpers)
PUBLIC = {"selection": "rlstats.methods:selection"}

#: the tidy, glance and summary-table columns only this folder's results report: (column, attribute, printed label,
#: description) rows, which rlstats.vocabulary reads through the registry
VOCABULARY = (
    ("verdict", "verdict", "verdict", "outcome of a selection check: survives, selection_bias, untestable or no_claim"),
    ("inspector", "inspector", "inspector", "test comparing reported with held-out tasks (fisher_pitman, t, welch, z)"),
    ("reporter", "reporter", "reporter", "the reporter's test of a positive mean effect on the reported tasks"),
    ("p_value_reporter", "pvalue_reporter", "reporter p-value",
     "the reporter's naive p-value: mean effect over the reported tasks > 0"),
    ("p_value_gap", "pvalue_gap", "gap p-value", "the reporter's p-value against a minimum improvement mu_gap"),
    ("p_value_conservative", "pvalue_conservative", "conservative p-value",
     "p-value assuming the best of n_candidates null tasks were reported"),
    ("mean_reported", "mean_reported", "mean (reported)", "mean per-task effect over the reported tasks"),
    ("mean_heldout", "mean_heldout", "mean (held-out)", "mean per-task effect over the held-out tasks"),
    ("n_reported", "n_reported", "reported tasks", "number of reported tasks"),
    ("n_heldout", "n_heldout", "held-out tasks", "number of held-out tasks"),
    ("n_candidates", "n_candidates", "candidate tasks", "number of tasks the reporter could have chosen from (N_A)"),
    ("mu_gap", "mu_gap", "minimum gap", "minimum improvement required by the reporter's gap test"),
    ("detection_probability", "detection_probability", "P(detect)",
     "probability that the inspector flags the report if the true mean effect were 0"),
    ("heldout_design", "heldout_design", "held-out design",
     "origin of the held-out tasks: complement, listed or fresh"),
    ("effect_measure", "effect_measure", "effect", "per-task effect of a selection check (mean_diff, std_diff, poi)"),
    # the summary's tables (what a LaTeX table heads with the label)
    ("set", None, "set", "which set a task is in: reported, heldout or dropped (no effect)"),
    ("n_treatment", None, "treatment runs", "runs of the treatment agent on the task"),
    ("n_baseline", None, "baseline runs", "runs of the baseline agent on the task"),
    ("interval", None, "interval", "how the set's interval is formed"),
)
