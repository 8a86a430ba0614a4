"""Where hwrun's programs are: $RUNLOG_HWMON / $RUNLOG_SUMMARIZE (paths), else the build tree or
installed prefix this package came with (_paths.py), else $PATH."""

import os
import shutil

_ENV = {"hwmon": "RUNLOG_HWMON", "summarize": "RUNLOG_SUMMARIZE"}


def tool(name):
    """The path of hwrun's program `name` ("hwmon" or "summarize"); FileNotFoundError when it
    cannot be found."""
    env = os.environ.get(_ENV[name])
    if env:
        return env
    try:
        from . import _paths  # written by CMake: the built or installed programs
        p = getattr(_paths, name.upper(), None)
        if p:
            if not os.path.isabs(p):
                p = os.path.normpath(os.path.join(os.path.dirname(__file__), p))
            if os.access(p, os.X_OK):
                return p
    except ImportError:
        pass
    found = shutil.which(name)
    if found:
        return found
    raise FileNotFoundError("runlog: %s not found: install hwrun (cmake --install), put it on "
                            "PATH, or set $%s" % (name, _ENV[name]))
