"""The registry of back ends: one line per folder; each folder declares its back ends itself.

Each back end lives in its own subpackage ``methods/<folder>/``: ``_api.py`` (options and the public function),
``_kernels.py`` (arrays in, arrays out), ``_result.py`` (the Result class), ``plots.py`` (drawing only), and
``_backend.py``, its declaration: public function, result, options, citations, what :func:`rlstats.power`
decides on (its ``_power.py``) or why it cannot, the replication each output needs (:class:`Need`, read by the one
rule in ``_replication.py``) or why none does, its ``rlstats demo`` call and its contract-test case
(:class:`Backend`, :class:`PowerRule`).  The folders are ``skillings_mack`` (the blocked rank tests),
``adastop`` (with the permutation test), ``bootstrap`` (with probability of improvement and performance
profiles), ``percentiles``, ``selection``, ``task_table``, ``curves``, ``mixed`` (the linear mixed model) and ``equivalence``
(TOST and non-inferiority).

:func:`rlstats.compare`, :func:`rlstats.power`, :func:`rlstats.cite`, the package face, the command line and the
contract tests read :data:`DECLARATIONS`; code that needs another back end reaches it through :func:`backend`,
so no back end imports another.  Adding a back end is its folder, its tests and one line in :data:`FOLDERS`.
Reading the declarations imports no back end's modules (each folder's package loads its names on first use),
so ``rlstats --help`` lists the methods without pandas or scipy.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from ..errors import OptionError, did_you_mean, other_value_said, shown
from ._declaration import Backend, Need, PowerRule, load

#: the back-end folders, one line each; ``<folder>/_backend.py`` declares what each offers
FOLDERS = (
    "skillings_mack",
    "adastop",
    "bootstrap",
    "percentiles",
    "selection",
    "task_table",
    "curves",
    "tuning",
    "mixed",
    "equivalence",
    "bayes",  # issue 41 item 1
)

_DECLARED = [importlib.import_module(f"{__name__}.{folder}._backend") for folder in FOLDERS]

#: method name -> its :class:`Backend` declaration, in the order of :data:`FOLDERS`
DECLARATIONS = {declared.name: declared for module in _DECLARED for declared in module.BACKENDS}

#: method name -> "module:function" of its public function, which takes
#: (data, formula, *, eval_env=None, **options) and returns a Result.
METHODS = {name: declared.function for name, declared in DECLARATIONS.items()}

#: other packages' names of a method (R's friedman.test, lme4's lmer), case-folded -> (the method, what the name is,
#: what goes with it), from the declarations' ``other_names``: compare(method=) refuses them naming the method
OTHER_NAMES = {other.casefold(): (name, what, more) for name, declared in DECLARATIONS.items()
               for other, what, more in declared.other_names}

#: the back end used when method=None, by whether the formula has blocks.
DEFAULTS = {declared.default_for == "with blocks": name for name, declared in DECLARATIONS.items()
            if declared.default_for}

#: operations that run at a back end's api layer and that others reach by name: name -> "module:function".
#: A result method that needs its api layer (inferential intervals) finds it here, so no ``_result`` module
#: imports an ``_api``; "<method>.outcomes" and "<method>.batch_pvalues" are the numbers-only paths of the
#: power rules (:class:`PowerRule`).
OPERATIONS: dict[str, str] = {
    **{name: path for declared in DECLARATIONS.values() for name, path in declared.operations},
    **{f"{name}.{part}": getattr(declared.power, part) for name, declared in DECLARATIONS.items()
       for part in ("outcomes", "batch_pvalues") if declared.power and getattr(declared.power, part)},
}

#: names the package face exports: the back ends' functions and results, and the folders' other public names
PUBLIC = {
    **{declared.function_name: declared.function for declared in DECLARATIONS.values()},
    **{declared.result_name: declared.result for declared in DECLARATIONS.values()},
    **{name: path for module in _DECLARED for name, path in getattr(module, "PUBLIC", {}).items()},
}

#: result class name -> the papers of its method (keys of ``rlstats.citations.ENTRIES``), before any
#: declared ``cite`` hook adapts them to one result
CITATIONS = {
    **{declared.result_name: declared.citations for declared in DECLARATIONS.values()},
    **{name: keys for module in _DECLARED for name, keys in getattr(module, "CITATIONS", {}).items()},
}

#: the tidy and glance columns only one folder reports, (column, attribute, label, description) each, in the order of
#: :data:`FOLDERS`; :mod:`rlstats.vocabulary` adds them to the shared ones
VOCABULARY = tuple(row for module in _DECLARED for row in getattr(module, "VOCABULARY", ()))

#: the methods power() can simulate (those with a power rule), in registry order
POWER_METHODS = tuple(name for name, declared in DECLARATIONS.items() if declared.power is not None)


def backend(name: str) -> Callable[..., Any]:
    """The public function of the back end called ``name``."""
    if not isinstance(name, str) or name not in METHODS:
        # R's method names get the rlstats way (friedman.test, lmer; audit s31 rfix31e)
        raise OptionError(f"method={shown(name)} is not one of the available methods: {', '.join(sorted(METHODS))}"
                          + (other_value_said("method", name, METHODS, OTHER_NAMES) or did_you_mean(name, METHODS)))
    return load(METHODS[name])


def operation(name: str) -> Callable[..., Any]:
    """The function registered in :data:`OPERATIONS` as ``name``."""
    return load(OPERATIONS[name])


def method_named(function_name: str | None) -> str | None:
    """The method name (``compare``'s ``method=``) of the back end whose public function is called
    ``function_name`` (``selection_check`` -> ``"selection"``), or None for a name no back end's function has."""
    found = [name for name, path in METHODS.items() if path.rsplit(":", 1)[-1] == function_name]
    return found[0] if found else None


def citations_of(result: object) -> list[str] | None:
    """Keys of ``rlstats.citations.ENTRIES`` for the method of ``result``, or None for a result no folder
    declares."""
    name = type(result).__name__
    if name not in CITATIONS:
        return None
    hooks = [d.cite for d in DECLARATIONS.values() if d.result_name == name and d.cite]
    return load(hooks[0])(result, CITATIONS[name]) if hooks else list(CITATIONS[name])


__all__ = ["Backend", "Need", "PowerRule", "FOLDERS", "DECLARATIONS", "METHODS", "DEFAULTS", "OPERATIONS", "PUBLIC",
           "CITATIONS", "VOCABULARY", "POWER_METHODS", "backend", "operation", "load", "citations_of", "method_named"]
