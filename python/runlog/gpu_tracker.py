"""gpu_tracker's Tracker, as a drop-in: `with Tracker() as tracker: ...; print(tracker);
tracker.to_json()`, its resource usage summarize's (`summarize --format gpu-tracker`).

    from runlog.gpu_tracker import Tracker      # was: from gpu_tracker import Tracker
    with Tracker(sleep_time=0.5, ram_unit="megabytes", n_expected_cores=4) as tracker:
        train()
    print(tracker)                               # the figures and their units
    usage = tracker.to_json()                    # max_ram, max_gpu_ram, cpu_utilization, ...

Where it differs from gpu_tracker, on purpose:
- hwmon samples, in a process of its own, attached to the tracked process (gpu_tracker starts a
  Python subprocess); the samples stay in a run directory (resource_usage_file names it) that
  summarize, its HTML report and Prometheus read as any other run.
- The main process's private and shared RSS, and GPU memory per process (main, descendants)
  are null: hwmon reads private/shared for the whole tree, and GPU memory per process only with
  --gpu-procs (then "combined" is the tree's). Null means not measured, never 0.
- gpu_brand: NVIDIA only (nvidia-smi); "amd" warns and records no GPU.
"""

import enum
import types
import warnings

from .monitor import Monitor, summarize, temporary_run_dir

__all__ = ["Tracker"]

_UNITS = {"bytes": "B", "kilobytes": "KB", "megabytes": "MB", "gigabytes": "GB",
          "terabytes": "TB", "seconds": "s", "minutes": "min", "hours": "h", "days": "d"}


def _ns(v):
    return types.SimpleNamespace(**{k: _ns(x) for k, x in v.items()}) if isinstance(v, dict) else v


class Tracker:
    """gpu_tracker's Tracker over hwmon and summarize (see the module's documentation)."""

    class State(enum.Enum):
        NEW = 0
        STARTED = 1
        STOPPED = 2

    def __init__(self, sleep_time=1.0, ram_unit="gigabytes", gpu_ram_unit="gigabytes",
                 time_unit="hours", n_expected_cores=None, gpu_uuids=None, disable_logs=False,
                 process_id=None, resource_usage_file=None, n_join_attempts=5, join_timeout=10.0,
                 gpu_brand=None, **monitor_options):
        for name, unit, allowed in (("ram_unit", ram_unit, ("bytes", "kilobytes", "megabytes",
                                                            "gigabytes", "terabytes")),
                                    ("gpu_ram_unit", gpu_ram_unit, ("bytes", "kilobytes",
                                                                    "megabytes", "gigabytes",
                                                                    "terabytes")),
                                    ("time_unit", time_unit, ("seconds", "minutes", "hours",
                                                              "days"))):
            if unit not in allowed:
                raise ValueError('"%s" is not a valid %s: one of %s'
                                 % (unit, name, ", ".join(allowed)))
        self._units = "mem=%s,gpumem=%s,time=%s" % (_UNITS[ram_unit], _UNITS[gpu_ram_unit],
                                                     _UNITS[time_unit])
        self.n_expected_cores = n_expected_cores
        self.disable_logs = disable_logs
        if resource_usage_file is None:
            resource_usage_file = temporary_run_dir(self, "runlog-tracker-")
        self.resource_usage_file = resource_usage_file
        if gpu_brand not in (None, "nvidia"):
            if not disable_logs:
                warnings.warn("runlog: gpu_brand %r: only NVIDIA GPUs are recorded" % gpu_brand,
                              RuntimeWarning, stacklevel=2)
            monitor_options["no_gpu"] = True
        if gpu_uuids is not None:
            monitor_options["gpus"] = ",".join(sorted(gpu_uuids))
        self._mon = Monitor(resource_usage_file, interval_sec=sleep_time, pid=process_id,
                            **monitor_options)
        self.state = Tracker.State.NEW
        self._usage = None

    def start(self):
        if self.state is not Tracker.State.NEW:
            raise RuntimeError("runlog: a Tracker starts once")
        with warnings.catch_warnings():
            if self.disable_logs:
                warnings.simplefilter("ignore")
            self._mon.start()
        self.state = Tracker.State.STARTED

    def stop(self):
        if self.state is not Tracker.State.STARTED:
            raise RuntimeError("runlog: the Tracker is not started")
        self._mon.stop()
        self.state = Tracker.State.STOPPED

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()
        return False

    def to_json(self):
        """{max_ram, max_gpu_ram, cpu_utilization, gpu_utilization, compute_time} in the units
        asked for, as summarize computes them."""
        if self._usage is None or self.state is not Tracker.State.STOPPED:
            usage = summarize(self.resource_usage_file, cores=self.n_expected_cores,
                              fmt="gpu-tracker", units=self._units).to_dict()
            if self.state is not Tracker.State.STOPPED:
                return usage
            self._usage = usage
        return self._usage

    @property
    def resource_usage(self):
        """to_json() with attribute access (tracker.resource_usage.max_ram.combined.total_rss)."""
        return _ns(self.to_json())

    def __str__(self):
        lines = []

        def put(d, indent):
            for k, v in d.items():
                label = k.replace("_", " ").capitalize()
                if isinstance(v, dict):
                    lines.append("%s%s:" % (indent, label))
                    put(v, indent + "   ")
                else:
                    lines.append("%s%s: %s" % (indent, label, "null" if v is None else
                                               ("%.3f" % v if isinstance(v, float) else v)))
        put(self.to_json(), "")
        return "Resource tracking:\n" + "\n".join("   " + l for l in lines)
