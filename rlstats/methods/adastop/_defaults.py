"""AdaStop's defaults that the command line shows in its help, in a module that imports nothing."""

#: the maximum number of interims of the incremental :class:`AdaStop` (and of ``rlstats adastop``) when
#: none is given; :func:`adastop` on collected runs uses every batch it finds instead
DEFAULT_K = 6
#: seconds an update of a saved state waits for another process's lock on it before it gives up
LOCK_TIMEOUT = 60.0
