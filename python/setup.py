# The package's version is hwrun's, defined once in include/runlog.h (RL_VERSION_*); the rest
# of the metadata is in pyproject.toml. Build from the repository: `pip install
# --no-build-isolation ./python`.
import os
import re

from setuptools import setup


def _version():
    header = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "include", "runlog.h")
    with open(header, encoding="utf-8") as f:
        text = f.read()
    parts = [re.search(r"^#define RL_VERSION_%s (\d+)$" % k, text, re.M).group(1)
             for k in ("MAJOR", "MINOR", "PATCH")]
    return ".".join(parts)


setup(version=_version())
