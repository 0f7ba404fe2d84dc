"""compare(): one entry point that picks a back end by name."""

from __future__ import annotations

import importlib
import inspect

import patsy

from . import formula as formula_module
from .errors import OptionError

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


def backend(name):
    """The public function of the back end called ``name``."""
    if name not in METHODS:
        raise OptionError(f"method={name!r} is not one of the available methods: {', '.join(sorted(METHODS))}")
    module, function = METHODS[name].split(":")
    return getattr(importlib.import_module(module), function)


def compare(data, formula, method=None, **options):
    """Compare agents with the statistical back end named by ``method``.

    Parameters
    ----------
    data : pandas.DataFrame or Design
        Long format, one row per run (never modified).
    formula : str or Formula
        ``"score ~ agent | task"``: response, the arms compared, the blocks.
    method : str, optional
        A registered back end (see ``rlstats.compare.METHODS``).  Default:
        the blocked rank test when the formula has blocks, the permutation
        test otherwise.
    **options
        Passed to the back end's own function (e.g. ``rng=``, ``pvalue=``).

    Returns
    -------
    Result
        The back end's result object.

    Examples
    --------
    >>> import rlstats
    >>> df = rlstats.datasets.simulate(agents=3, tasks=8, seeds=1, effect=1.0, rng=0)
    >>> res = rlstats.compare(df, "score ~ agent | task")
    >>> res.method
    'Skillings-Mack test for incomplete blocks'
    """
    parsed = formula if isinstance(formula, formula_module.Formula) else formula_module.parse(formula)
    if method is None:
        method = DEFAULTS[parsed.blocks is not None]
        if method not in METHODS:
            raise OptionError(
                f"no default method for '{parsed.text}' yet: the {method} back end is not available in this "
                f"version; add a blocking term ('| task') or pass method= one of: {', '.join(sorted(METHODS))}")
    function = backend(method)
    _check_option_names(method, function, options)
    options.setdefault("eval_env", patsy.EvalEnvironment.capture(1))
    return function(data, parsed, **options)


def _check_option_names(method, function, options):
    """An option the back end does not take is an OptionError that lists the ones it does."""
    accepted = [name for name, p in inspect.signature(function).parameters.items()
                if p.kind is inspect.Parameter.KEYWORD_ONLY and name != "eval_env"]
    unknown = [name for name in options if name not in accepted and name != "eval_env"]
    if unknown:
        raise OptionError(f"method={method!r} has no option {unknown[0]!r}; its options are: {', '.join(accepted)}")
