"""The performance percentiles' declaration (read by the registry, :mod:`rlstats.methods`)."""

from .._declaration import Backend

_HERE = "rlstats.methods.percentiles"

BACKENDS = (
    Backend(
        name="percentiles",
        function=f"{_HERE}._api:percentiles",
        result=f"{_HERE}._result:PercentilesResult",
        options=f"{_HERE}._api:PercentilesOptions",
        citations=("jordan2020",),
        contract=("score ~ agent | task", {"interval": "pbp_t"}),
        demo=("score ~ agent | task", {"interval": "bootstrap", "n_resamples": 2000, "na_action": "drop"}),
        no_power="its simultaneous intervals of the agents' percentiles are estimates, not a test: there is no "
                 "decision for power() to count",
    ),
)
