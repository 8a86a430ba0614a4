"""The workload of tests/gpu/check.py: phases of known GPU use, logged through the runlog
Python package (the path users take), so that the check can compare what hwmon recorded with
what the GPU was made to do.

Phases: idle (4 s), matmul (12 s of bf16 matrix products holding HOLD_GIB more GPU memory),
cool (4 s), short (0.5 s, an edge). Without PyTorch or a GPU it logs why and sleeps through
the same phases, so that the check can say which figures it could not test.
"""
import os
import sys
import time

HOLD_GIB = 16
# GPUCHECK_SCALE < 1 shortens every phase but the 0.5 s one (the test of the check itself)
SCALE = float(os.environ.get("GPUCHECK_SCALE", "1"))
IDLE_S, MATMUL_S = 4 * SCALE, 12 * SCALE

import runlog  # noqa: E402  (the check puts the bundle's package first on sys.path)

log = runlog.RunLog()  # $RUNLOG_FILE, set by hwmon
log.log_event("workload_start", {"pid": os.getpid()})  # before torch's import (seconds)
why = None
try:
    import torch
    if not torch.cuda.is_available():
        why = "torch sees no CUDA device"
except Exception as e:  # noqa: BLE001  (any import failure means: no load)
    torch, why = None, "cannot import torch: %s" % e
log.log_event("workload", {"pid": os.getpid(), "load": why is None, "why": why,
                           "hold_gib": HOLD_GIB if why is None else None})

with log.phase("idle"):
    time.sleep(IDLE_S)
with log.phase("matmul", hold_gib=HOLD_GIB):
    end = time.monotonic() + MATMUL_S
    if why is None:
        hold = torch.empty(HOLD_GIB << 30, dtype=torch.uint8, device="cuda")
        hold.fill_(1)
        a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
        n = 0
        while time.monotonic() < end:
            for _ in range(10):
                c = a @ a
            torch.cuda.synchronize()
            n += 10
        log.log_event("matmuls", {"count": n})
        del a, c, hold
        torch.cuda.empty_cache()
    else:
        time.sleep(MATMUL_S)
with log.phase("cool"):
    time.sleep(IDLE_S)
with log.phase("short"):
    time.sleep(0.5)
sys.exit(0)
