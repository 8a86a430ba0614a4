"""gpu_tracker's Tracker, as a drop-in: `with Tracker() as tracker: ...; print(tracker);
tracker.to_json()`, its resource usage summarize's (`summarize --format gpu-tracker`).

    from runlog.gpu_tracker import Tracker      # was: from gpu_tracker import Tracker
    with Tracker(sleep_time=0.5, ram_unit="megabytes", n_expected_cores=4) as tracker:
        train()
    print(tracker)                               # the figures and their units
    usage = tracker.to_json()                    # max_ram, max_gpu_ram, cpu_utilization, ...
    tracker.resource_usage.max_gpu_ram.main      # the same as gpu_tracker's dataclasses

Every figure of gpu_tracker is there: RAM (total, private and shared RSS) and GPU RAM of the
main process, its descendants and both, each the peak over time of its sum at one sample; CPU
and GPU utilization; compute time. hwmon records what they need: the process tree with its
smaps (private memory, and shared memory counted once per mapped path as gpu_tracker's
memory_maps gives it: hwmon --shared-once), and GPU memory per process (hwmon --gpu-procs);
a Tracker always asks for both.

Where it differs from gpu_tracker, on purpose:
- hwmon samples, in a process of its own, attached to the tracked process (gpu_tracker starts a
  Python subprocess); the samples stay in a run directory (run_dir names it; a temporary one by
  default) that summarize, its HTML report and Prometheus read as any other run.
  resource_usage_file is gpu_tracker's pickle of resource_usage, written at stop() and kept.
- Without any GPU, the GPU figures are gpu_tracker's zeros and counts 0 (with a warning), so
  that its formatting works; with GPUs a figure that was not measured is None (null), never 0:
  private and shared RSS where PSS was not read, the descendants' figures with children=False
  (hwmon --no-children). The processes' GPU memory where no GPU entry was theirs is
  gpu_tracker's 0.0 (the sum of none), with a warning: summarize says null there when it
  cannot tell that from pids it does not see (a container's PID namespace).
- start() returns at once; hwmon asks nvidia-smi beside the process's first samples, and a
  thread checks gpu_uuids once the GPUs are known: a UUID of no GPU is left out with a warning
  (gpu_tracker documents a ValueError for invalid units only).
- gpu_uuids: hwmon records every GPU of the system (hwmon --gpus all), and summarize gives the
  utilization of the chosen GPUs alone (--tracked-gpus), while the system's GPU RAM and the
  processes' GPU RAM stay every GPU's, as gpu_tracker gives them.
- max_ram.system is psutil's "used" as gpu_tracker reads it (MemTotal - MemFree - Buffers -
  Cached - SReclaimable, from hwmon's rows), not MemTotal - MemAvailable. RSS is gpu_tracker's:
  private pages plus each mapped path's shared pages once (the most any one mapping of it
  holds), total_rss their sum at one sample; three forked workers sharing 300 MiB with their
  parent read about 300 MiB, not 1200. A run recorded without hwmon --shared-once (an older
  one) gives RSS and the processes' summed Shared_* instead.
- gpu_brand: "nvidia" (nvidia-smi) or "amd" (the kernel's amdgpu files, hwmon --gpu-source amd,
  the processes' GPU RAM from their DRM fdinfo); None: nvidia-smi when it is there, else AMD's
  cards; another brand warns and records no GPU.
"""

import dataclasses
import enum
import threading
import typing
import warnings

from .monitor import Monitor, summarize, temporary_run_dir

__all__ = ["Tracker", "ResourceUsage", "MaxRAM", "RSSValues", "MaxGPURAM",
           "ProcessingUnitPercentages", "CPUUtilization", "GPUUtilization", "ComputeTime"]

_UNITS = {"bytes": "B", "kilobytes": "KB", "megabytes": "MB", "gigabytes": "GB",
          "terabytes": "TB", "seconds": "s", "minutes": "min", "hours": "h", "days": "d"}

# gpu_tracker's result classes, its field names and defaults; a value summarize did not measure
# is None.
_Num = typing.Optional[float]


def _from(cls, data):
    """cls built from data (a dict of summarize's gpu-tracker JSON): nested dataclasses from
    nested dicts, keys that are not fields ignored."""
    kwargs = {}
    for f in dataclasses.fields(cls):
        if f.name not in data:
            continue
        v = data[f.name]
        sub = _NESTED.get((cls, f.name))
        kwargs[f.name] = _from(sub, v) if sub is not None and isinstance(v, dict) else v
    return cls(**kwargs)


class _Result:
    @classmethod
    def from_dict(cls, data):
        """From summarize's gpu-tracker JSON (Tracker.to_json() or its part)."""
        return _from(cls, data)

    def to_dict(self):
        """The dict to_json() gives, key for key."""
        return dataclasses.asdict(self)


@dataclasses.dataclass
class RSSValues(_Result):
    """Resident set size of a process or processes: total, private (one process's alone) and
    shared (with at least one other process)."""
    total_rss: _Num = 0.0
    private_rss: _Num = 0.0
    shared_rss: _Num = 0.0


@dataclasses.dataclass
class MaxRAM(_Result):
    """The most RAM used while tracking: the system's capacity and use, and the RSS of the main
    process, of its descendants and of both (each the peak of its sum at one sample)."""
    unit: str
    system_capacity: _Num
    system: _Num = 0.0
    main: RSSValues = dataclasses.field(default_factory=RSSValues)
    descendants: RSSValues = dataclasses.field(default_factory=RSSValues)
    combined: RSSValues = dataclasses.field(default_factory=RSSValues)


@dataclasses.dataclass
class MaxGPURAM(_Result):
    """The most GPU RAM used while tracking: every GPU's capacity and use together, and that of
    the main process, of its descendants and of both (each the peak of its sum at one sample)."""
    unit: str
    system_capacity: _Num
    system: _Num = 0.0
    main: _Num = 0.0
    descendants: _Num = 0.0
    combined: _Num = 0.0


@dataclasses.dataclass
class ProcessingUnitPercentages(_Result):
    """Utilization of one or more processing units (CPU cores, GPUs): the sum of their
    percentages and that over the units (hardware), max and mean over time."""
    max_sum_percent: _Num = 0.0
    max_hardware_percent: _Num = 0.0
    mean_sum_percent: _Num = 0.0
    mean_hardware_percent: _Num = 0.0


@dataclasses.dataclass
class CPUUtilization(_Result):
    """CPU use: core counts, the utilization of the system, the main process, its descendants
    and both, and the most threads of each."""
    system_core_count: _Num
    n_expected_cores: _Num
    system: ProcessingUnitPercentages = dataclasses.field(
        default_factory=ProcessingUnitPercentages)
    main: ProcessingUnitPercentages = dataclasses.field(default_factory=ProcessingUnitPercentages)
    descendants: ProcessingUnitPercentages = dataclasses.field(
        default_factory=ProcessingUnitPercentages)
    combined: ProcessingUnitPercentages = dataclasses.field(
        default_factory=ProcessingUnitPercentages)
    main_n_threads: _Num = 0
    descendants_n_threads: _Num = 0
    combined_n_threads: _Num = 0


@dataclasses.dataclass
class GPUUtilization(_Result):
    """GPU counts (the system's, the tracked ones) and the tracked GPUs' utilization."""
    system_gpu_count: _Num
    n_expected_gpus: _Num
    gpu_percentages: ProcessingUnitPercentages = dataclasses.field(
        default_factory=ProcessingUnitPercentages)


@dataclasses.dataclass
class ComputeTime(_Result):
    """The real time spent tracking."""
    unit: str
    time: _Num = 0.0


@dataclasses.dataclass
class ResourceUsage(_Result):
    """Everything a Tracker measured (Tracker.resource_usage)."""
    max_ram: MaxRAM
    max_gpu_ram: MaxGPURAM
    cpu_utilization: CPUUtilization
    gpu_utilization: GPUUtilization
    compute_time: ComputeTime


# which fields hold a dataclass of their own
_NESTED = {
    (MaxRAM, "main"): RSSValues, (MaxRAM, "descendants"): RSSValues,
    (MaxRAM, "combined"): RSSValues,
    (CPUUtilization, "system"): ProcessingUnitPercentages,
    (CPUUtilization, "main"): ProcessingUnitPercentages,
    (CPUUtilization, "descendants"): ProcessingUnitPercentages,
    (CPUUtilization, "combined"): ProcessingUnitPercentages,
    (GPUUtilization, "gpu_percentages"): ProcessingUnitPercentages,
    (ResourceUsage, "max_ram"): MaxRAM, (ResourceUsage, "max_gpu_ram"): MaxGPURAM,
    (ResourceUsage, "cpu_utilization"): CPUUtilization,
    (ResourceUsage, "gpu_utilization"): GPUUtilization,
    (ResourceUsage, "compute_time"): ComputeTime,
}


def _no_gpu_zeros(usage, warn=None):
    """usage (summarize's gpu-tracker JSON) with gpu_tracker's figures of a machine without a
    GPU: every GPU figure 0.0 and the counts 0, where summarize says null (not measured).
    Code written for gpu_tracker formats them ("%.2f" % max_gpu_ram.combined)."""
    util = usage.get("gpu_utilization") or {}
    if util.get("system_gpu_count") is not None:
        # GPUs were recorded. The processes' GPU RAM is gpu_tracker's sum of their entries in
        # nvidia-smi's process list: none found is 0.0 there (in a container, whose pids
        # nvidia-smi does not show, too). summarize says null when no entry was the tree's and
        # it cannot tell that from not seeing them (process.gpu_mem_unmeasured_reason); here
        # it is the seed's 0.0, with a warning, so that the seed's own formatting goes on.
        ram = usage.get("max_gpu_ram") or {}
        if ram.get("combined") is not None:
            return usage  # measured (descendants null: not tracked, children=False)
        # the descendants keep null where they were not tracked at all (children=False)
        tracked = ((usage.get("max_ram") or {}).get("descendants") or {}).get("total_rss")
        unmeasured = [k for k in ("main", "descendants", "combined")
                      if ram.get(k) is None and (k != "descendants" or tracked is not None)]
        for k in unmeasured:
            ram[k] = 0.0
        if unmeasured and warn is not None:
            warn("runlog: the processes' GPU RAM (%s) was not measured (see summarize's "
                 "process.gpu_mem_unmeasured_reason): 0.0, as gpu_tracker gives for processes "
                 "it does not find on a GPU" % ", ".join(unmeasured))
        return usage
    util["system_gpu_count"] = 0
    util["n_expected_gpus"] = 0
    util["gpu_percentages"] = {k: 0.0 if v is None else v
                               for k, v in (util.get("gpu_percentages") or {}).items()}
    ram = usage.get("max_gpu_ram") or {}
    for k in ("system_capacity", "system", "main", "descendants", "combined"):
        if ram.get(k) is None:
            ram[k] = 0.0
    return usage


class Tracker:
    """gpu_tracker's Tracker over hwmon and summarize (see the module's documentation)."""

    class State(enum.Enum):
        NEW = 0
        STARTED = 1
        STOPPED = 2

    def __init__(self, sleep_time=1.0, ram_unit="gigabytes", gpu_ram_unit="gigabytes",
                 time_unit="hours", n_expected_cores=None, gpu_uuids=None, disable_logs=False,
                 process_id=None, resource_usage_file=None, n_join_attempts=5, join_timeout=10.0,
                 gpu_brand=None, run_dir=None, **monitor_options):
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
        # gpu_tracker's file: a pickle of resource_usage, written at stop(); hwmon's samples
        # go to run_dir (a temporary run directory unless given)
        self.resource_usage_file = resource_usage_file
        if run_dir is None:
            run_dir = temporary_run_dir(self, "runlog-tracker-")
        self.run_dir = str(run_dir)
        if gpu_brand in ("nvidia", "amd"):
            monitor_options["args"] = list(monitor_options.get("args", ())) + [
                "--gpu-source", gpu_brand]
        elif gpu_brand is not None:
            if not disable_logs:
                warnings.warn("runlog: gpu_brand %r: NVIDIA and AMD GPUs are recorded"
                              % gpu_brand, RuntimeWarning, stacklevel=2)
            monitor_options["no_gpu"] = True
        if gpu_uuids is not None:
            gpu_uuids = set(gpu_uuids)
            if not gpu_uuids:
                raise ValueError("gpu_uuids is not None but the set is empty: give at least one "
                                 "GPU UUID")
        self.gpu_uuids = gpu_uuids
        if not monitor_options.get("no_gpu"):
            # every GPU (the system's GPU RAM is every GPU's; gpu_uuids chooses the utilization
            # at summarize time) and GPU memory per process (main, descendants, combined)
            monitor_options.setdefault("gpus", "all")
            monitor_options["args"] = list(monitor_options.get("args", ())) + ["--gpu-procs"]
        # RSS as gpu_tracker counts it: each mapped path's shared pages once (memory_maps)
        monitor_options["args"] = list(monitor_options.get("args", ())) + ["--shared-once"]
        self._mon = Monitor(run_dir, interval_sec=sleep_time, pid=process_id,
                            **monitor_options)
        self.state = Tracker.State.NEW
        self._usage = None
        self._warned = False
        self._checker = None

    def start(self):
        """Starts hwmon and returns at once: the GPUs are known when nvidia-smi has answered
        (hwmon's start event), and a thread checks gpu_uuids against them then."""
        if self.state is not Tracker.State.NEW:
            raise RuntimeError("runlog: a Tracker starts once")
        with warnings.catch_warnings():
            if self.disable_logs:
                warnings.simplefilter("ignore")
            self._mon.start()
        self.state = Tracker.State.STARTED
        self._checker = threading.Thread(target=self._check_gpus, name="runlog-tracker-gpus",
                                         daemon=True)
        self._checker.start()

    def _check_gpus(self):
        """Once hwmon's start event lists the GPUs: a UUID of gpu_uuids that is none of them is
        left out with a warning (gpu_tracker documents a ValueError for units only; a tracker
        never raises into the job for what the machine holds), every GPU tracked if none is
        left; no GPU at all: gpu_tracker's zeros (to_json()), with its warning."""
        event = self._mon.start_event  # waits for it; None when hwmon could not start
        if event is None:
            return
        listed = {g.get("uuid") for g in (event.get("gpus") or ())}
        if not listed:
            if not self.disable_logs:
                warnings.warn("runlog: no GPU is recorded (no nvidia-smi or AMD card, or "
                              "no_gpu): the GPU RAM and utilization are 0 and system_gpu_count "
                              "0, as gpu_tracker gives them", RuntimeWarning)
            return
        unknown = sorted(self.gpu_uuids - listed) if self.gpu_uuids else []
        if unknown:
            self.gpu_uuids = (self.gpu_uuids & listed) or None
            if not self.disable_logs:
                warnings.warn("runlog: GPU UUID %s is not valid. Available UUIDs are: %s; "
                              "tracking %s" % (", ".join(unknown), ", ".join(sorted(listed)),
                                               "the others" if self.gpu_uuids else "every GPU"),
                              RuntimeWarning)

    def _gpus_checked(self):
        checker = self._checker
        if checker is not None:
            checker.join()

    def stop(self, exc=None):
        if self.state is not Tracker.State.STARTED:
            raise RuntimeError("runlog: the Tracker is not started")
        self._mon.stop(exc)  # the run's status: ok, or failed with the block's exception
        self._gpus_checked()  # its warnings said before the tracker's results
        self.run_dir = str(self._mon.output_dir)  # its -2 when the name was taken
        self.state = Tracker.State.STOPPED
        if self.resource_usage_file is not None:
            self._write_usage_file()

    def _write_usage_file(self):
        """resource_usage pickled into resource_usage_file, as gpu_tracker writes it (replaced
        whole: a reader never sees half a pickle). A failure warns: the job goes on."""
        import os
        import pickle
        tmp = "%s.tmp-%d" % (self.resource_usage_file, os.getpid())
        try:
            usage = self.resource_usage
            with open(tmp, "wb") as f:
                pickle.dump(usage, f)
            os.replace(tmp, self.resource_usage_file)
        except Exception as e:  # a full disk, a directory in the way, nothing to summarize
            try:
                os.unlink(tmp)
            except OSError:
                pass
            warnings.warn("runlog: resource_usage_file %s not written: %s"
                          % (self.resource_usage_file, e), RuntimeWarning, stacklevel=3)

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, exc_type, exc, tb):
        self.stop(exc)
        return False

    def to_json(self):
        """{max_ram, max_gpu_ram, cpu_utilization, gpu_utilization, compute_time} in the units
        asked for, as summarize computes them."""
        if self._usage is None or self.state is not Tracker.State.STOPPED:
            self._gpus_checked()  # gpu_uuids as known
            usage = _no_gpu_zeros(summarize(
                self.run_dir, cores=self.n_expected_cores, fmt="gpu-tracker",
                units=self._units,
                tracked_gpus=sorted(self.gpu_uuids) if self.gpu_uuids else None).to_dict(),
                self._warn_once)
            if self.state is not Tracker.State.STOPPED:
                return usage
            self._usage = usage
        return self._usage

    def _warn_once(self, text):
        if not self._warned and not self.disable_logs:
            self._warned = True
            warnings.warn(text, RuntimeWarning, stacklevel=4)

    @property
    def resource_usage(self):
        """to_json() as gpu_tracker's dataclasses (ResourceUsage): attribute access,
        tracker.resource_usage.max_ram.combined.total_rss."""
        return ResourceUsage.from_dict(self.to_json())

    def __str__(self):
        """gpu_tracker's text: its keys in its order, labelled as it labels them ("Max RAM",
        "Total RSS", "Main number of threads"), floats to 3 decimals; figures of ours that it
        does not have follow its own in each block."""
        lines = []

        def put(d, cls, indent):
            names = [f.name for f in dataclasses.fields(cls)] if cls else []
            for k in names + [k for k in d if k not in names]:  # the seed's, then ours
                if k not in d:
                    continue
                v = d[k]
                sub = _NESTED.get((cls, k))
                if isinstance(v, dict):
                    lines.append("%s%s:" % (indent, _label(k)))
                    put(v, sub, indent + "   ")
                else:
                    lines.append("%s%s: %s" % (indent, _label(k), _value(v)))
        put(self.to_json(), ResourceUsage, "")
        return "\n".join(lines)


# gpu_tracker's labels: its key, "_" as " ", these words as it writes them, the first letter
# capital (the one rule every label of ours follows too)
_WORDS = {"ram": "RAM", "gpu": "GPU", "cpu": "CPU", "rss": "RSS", "gpus": "GPUs",
          "n": "number of"}


def _label(key):
    text = " ".join(_WORDS.get(w, w) for w in key.split("_"))
    return text[:1].upper() + text[1:]


def _value(v):
    # gpu_tracker rounds floats to 3 decimals and prints the JSON of each value
    import json
    return json.dumps(float("%.3f" % v) if isinstance(v, float) else v)
