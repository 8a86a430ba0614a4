"""calibrax.profiling.resources, as its page describes it: `with ResourceMonitor(...) as m:` and
m.summary (a ResourceSummary: to_dict(), from_dict()), inside the block and after it. Prints
each result's repr."""
import time

from calibrax.profiling.resources import ResourceMonitor, ResourceSummary

with ResourceMonitor(sample_interval_sec=0.1) as monitor:
    t0 = time.perf_counter()
    data = []
    while time.perf_counter() - t0 < 1.5:
        data.append(bytearray(1 << 16))
    print(monitor.summary.to_dict())

summary = monitor.summary
print(summary.to_dict())
print(ResourceSummary.from_dict(summary.to_dict()))
