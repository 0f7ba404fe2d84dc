"""Bayesian comparisons with a region of practical equivalence: the Bayesian signed-rank test and the hierarchical
model of per-task differences (issue 41)."""

from typing import TYPE_CHECKING

from ..._lazy import lazy_names

# loaded on first use, so the registry reads this folder's declaration without pandas or scipy
__getattr__, __dir__ = lazy_names(__name__, {"._api": ("BayesOptions", "bayes"), "._result": ("BayesResult",)})

if TYPE_CHECKING:  # what a type checker sees of the lazy names
    from ._api import BayesOptions, bayes
    from ._result import BayesResult

__all__ = ["bayes", "BayesResult", "BayesOptions"]
