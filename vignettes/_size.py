"""How large the vignettes' simulations are: the one place that reads the size switch.

Every vignette imports this module; it is not a vignette itself (``render.py`` and the
tests skip files whose name starts with ``_``).  Three sizes:

* ``fast`` (``RLSTATS_VIGNETTE_FAST=1``): a smoke run of a few seconds, as the test suite
  does; the numbers are rough.
* ``default`` (neither variable set): each vignette renders in under two minutes on two cores.
* ``full`` (``RLSTATS_VIGNETTE_FULL=1``, or ``python vignettes/render.py --full``): the
  simulation counts of the full-size tables and figures; a vignette may take half an hour.

``RLSTATS_VIGNETTE_FAST`` wins when both variables are set.
"""

import os

FULL_SWITCH = "RLSTATS_VIGNETTE_FULL=1 (or `python vignettes/render.py --full`)"


def _is_set(name):
    return os.environ.get(name, "") not in ("", "0")


SIZE = "fast" if _is_set("RLSTATS_VIGNETTE_FAST") else "full" if _is_set("RLSTATS_VIGNETTE_FULL") else "default"


def _show(value):
    return f"{value:,}" if isinstance(value, int) else str(value)


class Counts(dict):
    """The counts for the current size, from ``NAME=(fast, default, full)`` triples.

    ``Counts(N_SIM=(20, 100, 1_000))["N_SIM"]`` is 100 at the default size; ``str()`` says
    which size ran, the counts used and the full-size counts.
    """

    def __init__(self, **triples):
        super().__init__({name: dict(zip(("fast", "default", "full"), triple))[SIZE]
                          for name, triple in triples.items()})
        self.full = {name: triple[2] for name, triple in triples.items()}

    def __str__(self):
        used = ", ".join(f"{name} = {_show(value)}" for name, value in self.items())
        text = f"Size '{SIZE}': {used}."
        if SIZE != "full" and dict(self) != self.full:
            full = ", ".join(f"{name} = {_show(value)}" for name, value in self.full.items() if self[name] != value)
            text += f" The full size, {FULL_SWITCH}, uses {full}."
        elif SIZE != "full":
            text += " These are the full-size counts."
        return text
