"""Power and sample size by simulation, reaching back ends through the registry (:mod:`rlstats.methods`)."""

from ._api import PILOT_FIRST_OPTIONS, PowerResult, options_called, options_taken, power, sample_size

__all__ = ["power", "sample_size", "PowerResult"]
