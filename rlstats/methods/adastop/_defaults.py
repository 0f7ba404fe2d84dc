"""AdaStop's defaults that the command line shows in its help, in a module that imports nothing."""

#: the maximum number of interims of the incremental :class:`AdaStop` (and of ``rlstats adastop``) when
#: none is given; :func:`adastop` on collected runs uses every batch it finds instead
DEFAULT_K = 6
#: seconds an update of a saved state waits for another process's lock on it before it gives up
LOCK_TIMEOUT = 60.0
#: the most runs per agent per batch (``n``) AdaStop takes (RL studies use n = 5 to 20; a path draws 2n, or n per
#: agent, slots); the command line reads it to refuse a first batch that would set n beyond it
MAX_N = 10_000
