"""compare(): one entry point that picks a back end from the registry (:mod:`rlstats.methods`)."""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any

from . import formula as formula_module
from .design import data_and_formula, public_function, subset_rows
from .options import count_described, unknown_option_error
from .errors import OptionError
from .methods import DEFAULTS, METHODS, backend
from ._typing import Data, FormulaLike, Subset

if TYPE_CHECKING:
    from .results import Result


@public_function
def compare(data: Data, formula: FormulaLike, method: str | None = None, *, subset: Subset = None,
            **options: Any) -> Result:
    """Compare agents with the statistical back end named by ``method``.

    Parameters
    ----------
    data : pandas.DataFrame or Design
        Long format, one row per run (never modified).
    formula : str or Formula
        ``"score ~ agent | task"``: response, the arms compared, the blocks.
    method : str, optional
        A registered back end (see ``rlstats.methods.METHODS``).  Default:
        the blocked rank test when the formula has blocks, the permutation
        test otherwise.
    subset : array of bool or str, optional
        Rows to use, as R's ``subset=``: a mask, or a condition on the columns such as
        ``"task != 'Pong' & seed < 5"`` in the restricted grammar of :mod:`rlstats.conditions`
        (comparisons, ``in [...]``, ``&``/``and``, ``|``/``or``, ``~``/``not``, parentheses; never
        evaluated as code); the result says how many rows it kept.
    **options
        Passed to the back end's own function (e.g. ``rng=``, ``pvalue=``).  With the same ``rng=``, every
        back end gives the same result whatever the order of the rows, the frame type (pandas, polars,
        pyarrow) and the dtypes of its columns, and the exactly scaled result for the score in other units
        (``tests/test_metamorphic.py``).  Renaming agents or tasks may change the random streams: they are
        drawn in the order of the agents' and tasks' names sorted (a Categorical's category order changes none;
        it orders the result's rows and each pair's agents), and the bootstrap's (``bootstrap``,
        ``probability_of_improvement``, ``performance_profile``) are keyed by each agent's name, so the same
        ``rng`` gives other resamples (from the same distribution) after a renaming.

    Returns
    -------
    Result
        The back end's result object.  Type checkers see the class of each ``method=`` through the overloads in
        ``rlstats/__init__.pyi`` (this module reads the registry and names no back end); without ``method=``,
        the union of the two defaults' results, since the formula's text decides between them.

    See Also
    --------
    rlstats.skillings_mack : The blocked rank test, the default with blocks.
    rlstats.permutation : The permutation test, the default without blocks.
    rlstats.bootstrap : Aggregate metrics with stratified bootstrap intervals.
    rlstats.power : How many seeds a comparison needs.

    Examples
    --------
    >>> import rlstats
    >>> df = rlstats.datasets.simulate(agents=3, tasks=8, seeds=1, effect=1.0, rng=0)
    >>> res = rlstats.compare(df, "score ~ agent | task")
    >>> res.method
    'Friedman rank sum test'
    """
    data, formula = data_and_formula(data, formula)  # R's order, compare("score ~ agent | task", df), too
    parsed = formula_module.parse_against(formula, data)  # parsed here once; the back end's front door takes it as it is
    if method is None:
        method = DEFAULTS[parsed.blocks is not None]
        if method not in METHODS:
            raise OptionError(
                f"no default method for '{parsed.text}' yet: the {method} back end is not available in this "
                f"version; add a blocking term ('| task') or pass method= one of: {', '.join(sorted(METHODS))}")
    function = backend(method)
    _check_option_names(method, function, options)
    # the names of compare()'s caller (an int counts frames above it), captured before the back end adds a frame
    options["eval_env"] = formula_module.capture_environment(options.get("eval_env", 0), reference=1)
    return function(subset_rows(data, subset), parsed, **options)


def _check_option_names(method, function, options):
    """An option the back end does not take is an OptionError that lists the ones it does."""
    accepted = [name for name, p in inspect.signature(function).parameters.items()
                if p.kind is inspect.Parameter.KEYWORD_ONLY and name != "eval_env"]
    unknown = [name for name in options if name not in accepted and name != "eval_env"]
    if unknown:  # another function's or R's spelling named as the back end spells it, else the close names and its list
        raise unknown_option_error(f"method={method!r}", unknown[0], options[unknown[0]], accepted,
                                   count_described(function))
    required = [name for name, p in inspect.signature(function).parameters.items()
                if p.kind is inspect.Parameter.KEYWORD_ONLY and p.default is inspect.Parameter.empty
                and name not in options]
    if required:
        raise OptionError(f"method={method!r} needs the option {required[0]}= (e.g. {required[0]}={required[0]!r}, "
                          f"-o {required[0]}={required[0]} on the command line)")
