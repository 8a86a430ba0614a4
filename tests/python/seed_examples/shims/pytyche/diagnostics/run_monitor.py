# The one change a user switching to hwrun makes, as a module of the seed's name: its imports.
from runlog import (HWMonitor, ResourceSummary, RunLog, build_resource_summary,  # noqa: F401
                    probe_jax_peak_memory_mb)
