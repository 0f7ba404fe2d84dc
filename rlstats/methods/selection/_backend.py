"""The selection check's declaration (read by the registry, :mod:`rlstats.methods`)."""

from .._declaration import Backend

_HERE = "rlstats.methods.selection"


def demo_options(data):
    """The demo reports the four tasks where the last agent beats the first one most: exactly the
    selection the check is meant to catch."""
    agents = sorted(data["agent"].unique())
    means = data.groupby(["task", "agent"], observed=True)["score"].mean().unstack()
    gap = (means[agents[-1]] - means[agents[0]]).dropna().sort_values(ascending=False)
    return {"treatment": agents[-1], "baseline": agents[0], "reported": list(gap.index[:4]), "na_action": "drop"}


BACKENDS = (
    Backend(
        name="selection",
        function=f"{_HERE}._api:selection_check",
        result=f"{_HERE}._result:SelectionCheckResult",
        options=f"{_HERE}._api:SelectionOptions",
        citations=("komiyama2018",),
        contract=("score ~ agent | task", {"treatment": "agent_3", "baseline": "agent_1",
                                           "reported": ["task_01", "task_02", "task_03"]}),
        demo=("score ~ agent | task", f"{_HERE}._backend:demo_options"),
        no_power="its power is planned by rlstats.selection.detection_probability and "
                 "rlstats.selection.required_heldout, which model the reported and held-out tasks",
    ),
)

#: the folder itself is public as ``rlstats.selection`` (its planning helpers)
PUBLIC = {"selection": "rlstats.methods:selection"}
