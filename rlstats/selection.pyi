# rlstats.selection is rlstats.methods.selection under its public name (rlstats/__init__.py enters it in sys.modules;
# there is no rlstats/selection.py), so type checkers read its names here.

from .methods.selection import *
