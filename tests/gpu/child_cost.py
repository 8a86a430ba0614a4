"""What each of hwmon's nvidia-smi children costs on a real driver, measured alone: CPU time per
second of wall time, for the children a run's start event lists (usage: child_cost.py RUNDIR
[SECONDS]). With nvidia-ml-py importable, the same query-gpu fields read through NVML once a
second in this process, for comparison (what a sampler-thread source would cost instead).
"""
import json
import resource
import subprocess
import sys
import time


def cpu_of_children():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def child_cost(argv, seconds):
    before, t = cpu_of_children(), time.monotonic()
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(seconds)
    p.terminate()
    p.wait()
    return (cpu_of_children() - before) / (time.monotonic() - t)


def nvml_cost(seconds):
    import pynvml as n
    t0 = time.process_time()
    t = time.monotonic()
    n.nvmlInit()
    h = [n.nvmlDeviceGetHandleByIndex(i) for i in range(n.nvmlDeviceGetCount())]
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        for d in h:
            n.nvmlDeviceGetUtilizationRates(d)
            n.nvmlDeviceGetMemoryInfo(d)
            n.nvmlDeviceGetPowerUsage(d)
            n.nvmlDeviceGetTemperature(d, 0)
            n.nvmlDeviceGetClockInfo(d, 1)
            n.nvmlDeviceGetClockInfo(d, 2)
            n.nvmlDeviceGetTotalEnergyConsumption(d)
        time.sleep(1)
    n.nvmlShutdown()
    return (time.process_time() - t0) / (time.monotonic() - t)


def main():
    rundir, seconds = sys.argv[1], float(sys.argv[2]) if len(sys.argv) > 2 else 10
    with open(rundir + "/run.jsonl") as f:
        start = next(e for e in map(json.loads, f) if e.get("event") == "start")
    total = 0
    for c in start["data"].get("children", []):
        cost = child_cost(c["argv"], seconds)
        total += cost
        print("child %-7s %6.1f ms CPU per second  %s" % (c["name"], 1000 * cost,
                                                          " ".join(c["argv"][1:4])[:80]))
    print("children together %.1f ms CPU per second" % (1000 * total))
    try:
        print("NVML in-process, same figures each second: %.2f ms CPU per second"
              % (1000 * nvml_cost(seconds)))
    except Exception as e:  # noqa: BLE001
        print("NVML in-process: not measured (%s)" % e)


if __name__ == "__main__":
    main()
