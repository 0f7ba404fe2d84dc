"""The post-reporting selection check (Komiyama and Maehara, 2018) and its planning helpers.

This subpackage is public as ``rlstats.selection``; it also re-exports the option
vocabularies (``EFFECT_MEASURES``, ``INSPECTORS``, ``REPORTERS``, ``VERDICTS``) and
``CONSERVATIVE_RESAMPLES`` that the old ``rlstats.methods.selection`` module had.
"""

from typing import TYPE_CHECKING

from ..._lazy import lazy_names

# loaded on first use, so the registry reads this folder's declaration without pandas
__getattr__, __dir__ = lazy_names(__name__, {
    "._api": ("EFFECT_MEASURES", "INSPECTORS", "REPORTERS", "SelectionOptions", "selection_check"),
    "._planning": ("CONSERVATIVE_RESAMPLES", "SelectionSimulation", "conservative_pvalue", "detection_probability",
                   "required_heldout", "simulate", "top_mean_null"),
    "._result": ("VERDICTS", "SelectionCheckResult")})

if TYPE_CHECKING:  # what a type checker sees of the lazy names
    from ._api import EFFECT_MEASURES, INSPECTORS, REPORTERS, SelectionOptions, selection_check
    from ._planning import (CONSERVATIVE_RESAMPLES, SelectionSimulation, conservative_pvalue, detection_probability,
                            required_heldout, simulate, top_mean_null)
    from ._result import SelectionCheckResult, VERDICTS

__all__ = ["selection_check", "SelectionCheckResult", "simulate", "SelectionSimulation",
           "detection_probability", "required_heldout", "conservative_pvalue", "top_mean_null"]
