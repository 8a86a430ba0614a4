"""torch.cuda's memory statistics, from STATE (set by the tests)."""

STATE = {"initialized": False, "device": 0, "allocated": 0, "max_allocated": 0,
         "max_reserved": 0, "resets": 0}


def is_initialized():
    return STATE["initialized"]


def current_device():
    return STATE["device"]


def max_memory_allocated(device=None):
    return STATE["max_allocated"]


def memory_allocated(device=None):
    return STATE["allocated"]


def max_memory_reserved(device=None):
    return STATE["max_reserved"]


def reset_peak_memory_stats(device=None):
    STATE["resets"] += 1
    STATE["max_allocated"] = STATE["allocated"]
