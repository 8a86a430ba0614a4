# The one change a user switching to hwrun makes, as a module of the seed's name: its imports.
from runlog.gpu_tracker import *  # noqa: F401,F403
