"""The package's exceptions and warnings.

Every input problem raises a subclass of :class:`RlstatsError`, which is a
``ValueError`` so that generic ``except ValueError`` handlers keep working.
"""


class RlstatsError(ValueError):
    """Base class of every error rlstats raises for bad input."""


class FormulaError(RlstatsError):
    """The formula text cannot be parsed or names something that is not there."""


class DesignError(RlstatsError):
    """The data do not fit the design the formula describes."""


class OptionError(RlstatsError):
    """A keyword option has a value outside its allowed set or range."""


class DataUnavailableError(RlstatsError):
    """A published dataset cannot be fetched or fails its checksum."""


class RlstatsWarning(UserWarning):
    """Warnings about the data or the method that do not stop the analysis."""
