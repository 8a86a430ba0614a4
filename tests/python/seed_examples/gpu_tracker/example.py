"""gpu_tracker's Tracker, as its API page describes it: the context manager with its units, then
to_json() and resource_usage (the ResourceUsage dataclasses). Prints each result's repr."""
import time

import gpu_tracker as gt

with gt.Tracker(sleep_time=0.2, ram_unit="megabytes", gpu_ram_unit="megabytes",
                time_unit="seconds") as tracker:
    t0 = time.perf_counter()
    data = []
    while time.perf_counter() - t0 < 1.5:
        data.append(bytearray(1 << 16))

print(tracker.to_json())
print(tracker.resource_usage)
print("%.2f" % tracker.resource_usage.max_gpu_ram.combined)
