"""AdaStop's and the permutation test's declarations (read by the registry, :mod:`rlstats.methods`)."""

from .._declaration import Backend, PowerRule

_HERE = "rlstats.methods.adastop"
_FORMULA = "score ~ agent | task"

BACKENDS = (
    Backend(
        name="adastop",
        function=f"{_HERE}._api:adastop",
        result=f"{_HERE}._result:AdaStopResult",
        options=f"{_HERE}._api:AdaStopOptions",
        citations=("mathieu2023",),
        contract=(_FORMULA, {"n": 2, "n_resamples": 200, "alpha": 0.2}),
        demo=(_FORMULA, {"n": 5}),
        power=PowerRule(
            key=13, label="AdaStop", decide=f"{_HERE}._power:decide", sentence=f"{_HERE}._power:adastop_sentence",
            call=f"{_HERE}._power:adastop_call", outcomes=f"{_HERE}._api:adastop_outcomes",
            decide_outcomes=f"{_HERE}._power:decide_outcomes", check=f"{_HERE}._power:check",
            seed_unit=f"{_HERE}._power:seed_unit", per_task=True, called="AdaStop", reports_runs=True),
    ),
    Backend(
        name="permutation",
        function=f"{_HERE}._api:permutation",
        result=f"{_HERE}._result:PermutationResult",
        options=f"{_HERE}._api:AdaStopOptions",
        citations=("mathieu2023",),
        default_for="without blocks",
        contract=(_FORMULA, {"n_resamples": 200}),
        demo=(_FORMULA, {"n_resamples": 2000}),
        power=PowerRule(
            key=14, label="permutation test", decide=f"{_HERE}._power:decide",
            sentence=f"{_HERE}._power:permutation_sentence", outcomes=f"{_HERE}._api:permutation_outcomes",
            decide_outcomes=f"{_HERE}._power:decide_outcomes", per_task=True, called="the permutation test"),
    ),
)

#: the incremental AdaStop, public beside the back ends
PUBLIC = {"AdaStop": f"{_HERE}._incremental:AdaStop"}
