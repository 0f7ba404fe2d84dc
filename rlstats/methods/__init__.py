"""The registry of back ends: method name -> public function, and the defaults.

Each back end lives in its own subpackage, named after its public function:
``skillings_mack`` (the blocked rank tests), ``adastop`` (with the permutation
test), ``bootstrap``, ``percentiles``, ``selection``.  Each has the same layers: ``_api.py`` (options and
the public function), ``_kernels.py`` (arrays in, arrays out), ``_result.py``
(the Result class) and ``plots.py`` (drawing only).  Code that needs another
back end -- :func:`rlstats.compare`, :func:`rlstats.power`, a cross-method
feature such as inferential intervals -- reaches it through :func:`backend`, so
no back end imports another.
"""

from __future__ import annotations

import importlib

from ..errors import OptionError

#: method name -> "module:function" of its public function, which takes
#: (data, formula, *, eval_env=None, **options) and returns a Result.
METHODS = {
    "skillings_mack": "rlstats.methods.skillings_mack:skillings_mack",
    "adastop": "rlstats.methods.adastop:adastop",
    "permutation": "rlstats.methods.adastop:permutation",
    "bootstrap": "rlstats.methods.bootstrap:bootstrap",
    "probability_of_improvement": "rlstats.methods.bootstrap:probability_of_improvement",
    "performance_profile": "rlstats.methods.bootstrap:performance_profile",
    "percentiles": "rlstats.methods.percentiles:percentiles",
    "selection": "rlstats.methods.selection:selection_check",
    "curves": "rlstats.methods.curves:curves",
}

#: the back end used when method=None, by whether the formula has blocks.
DEFAULTS = {True: "skillings_mack", False: "permutation"}

#: operations that run at a back end's api layer and that others reach by name: name -> "module:function".
#: A result method that needs another back end (inferential intervals) and power()'s vectorised paths find
#: them here, so no ``_result`` module imports an ``_api`` and nothing imports another back end's modules.
OPERATIONS = {
    "inferential_intervals": "rlstats.methods.bootstrap._api:inferential_intervals",
    # "<method>.batch_pvalues": (design, responses, **options) -> p-values of the method on each row of
    # responses, or None where no vectorised path applies; power() uses it when present.
    "skillings_mack.batch_pvalues": "rlstats.methods.skillings_mack._api:batch_pvalues",
    # "<method>.outcomes": (design, *, rng, **options) -> what power() decides on, computed as the public
    # function does but without its tables and Result: the p-value of the rank test; per task, whether a
    # sequential test decided some comparison and the mean runs it used per agent.
    "skillings_mack.outcomes": "rlstats.methods.skillings_mack._api:pvalue_only",
    "adastop.outcomes": "rlstats.methods.adastop._api:adastop_outcomes",
    "permutation.outcomes": "rlstats.methods.adastop._api:permutation_outcomes",
}


def backend(name):
    """The public function of the back end called ``name``."""
    if name not in METHODS:
        raise OptionError(f"method={name!r} is not one of the available methods: {', '.join(sorted(METHODS))}")
    module, function = METHODS[name].split(":")
    return getattr(importlib.import_module(module), function)


def operation(name):
    """The function registered in :data:`OPERATIONS` as ``name``."""
    module, function = OPERATIONS[name].split(":")
    return getattr(importlib.import_module(module), function)
