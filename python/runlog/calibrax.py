"""calibrax's ResourceMonitor, as a drop-in: `with ResourceMonitor(sample_interval_sec=0.1) as m:
... m.summary` gives calibrax's ResourceSummary, its figures summarize's.

    from runlog.calibrax import ResourceMonitor      # was: from calibrax.profiling.resources
    with ResourceMonitor(sample_interval_sec=0.1) as m:
        run_benchmark()
    print(m.summary.peak_rss_mb, m.summary.to_dict())

Where it differs from calibrax, on purpose:
- The sampling is hwmon's, in a process of its own (not a thread of the job), attached to this
  process: RSS and CPU are this process's tree (its DataLoader workers, its subprocesses count;
  the process alone is in m.run_summary().process["main_peak_rss_mib"]).
- GPU figures come from nvidia-smi through hwmon; gpu_profiler is accepted and not called.
- The block starts at once, hwmon beside it: its entry sample is hwmon's first reading of this
  process, at hwmon's start (a few milliseconds in; proc_metrics.csv's first row), and its exit
  sample hwmon's last, when the block ends. memory_growth_mb is the last minus the first, as
  calibrax's; memory allocated in the block's first milliseconds, before hwmon's first reading,
  is in peak_rss_mb, not in the growth.
- The samples are the run directory's files (m.output_dir: a temporary directory unless given,
  removed when the monitor is garbage-collected), not a list of ResourceSample objects.
"""

import dataclasses
import typing
import warnings

from .monitor import Monitor, SummarizeError, summarize, temporary_run_dir

__all__ = ["ResourceMonitor", "ResourceSummary", "ResourceSample", "GPUProfilerProtocol"]


@typing.runtime_checkable
class GPUProfilerProtocol(typing.Protocol):
    """calibrax's type of ResourceMonitor's gpu_profiler: importable for annotations and
    isinstance(); a profiler passed here is accepted and not called (GPU figures come from
    nvidia-smi through hwmon)."""


@dataclasses.dataclass(kw_only=True)
class ResourceSample:
    """calibrax's single measurement, its fields: timestamp (perf_counter), cpu_percent, rss_mb,
    gpu_util and gpu_mem_mb (None without a GPU), gpu_clock_mhz, gpu_power_w. The samples here
    are the run directory's CSV files; the class is for code that builds or annotates them."""
    timestamp: float
    cpu_percent: float
    rss_mb: float
    gpu_util: "float | None"
    gpu_mem_mb: "float | None"
    gpu_clock_mhz: "float | None" = None
    gpu_power_w: "float | None" = None


@dataclasses.dataclass
class ResourceSummary:
    """calibrax's ResourceSummary: the same fields, summarize's values (the summary's top-level
    keys of the same names; MiB where calibrax says MB)."""
    peak_rss_mb: float
    mean_rss_mb: float
    peak_gpu_mem_mb: "float | None"
    mean_gpu_util: "float | None"
    memory_growth_mb: float
    num_samples: int
    duration_sec: float
    mean_gpu_clock_mhz: "float | None" = None
    mean_gpu_power_w: "float | None" = None

    def to_dict(self):
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data):
        names = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})

    @classmethod
    def zero(cls):
        """calibrax's summary of no samples."""
        return cls(peak_rss_mb=0.0, mean_rss_mb=0.0, peak_gpu_mem_mb=None, mean_gpu_util=None,
                   memory_growth_mb=0.0, num_samples=0, duration_sec=0.0)


class ResourceMonitor:
    """calibrax's context manager: hwmon samples this process every sample_interval_sec
    (at least 0.05 s) while the block runs."""

    def __init__(self, sample_interval_sec=0.1, gpu_profiler=None, output_dir=None, **options):
        self.sample_interval_sec = sample_interval_sec
        self.gpu_profiler = gpu_profiler
        if output_dir is None:
            output_dir = temporary_run_dir(self, "runlog-monitor-")
        self.output_dir = output_dir
        self._mon = Monitor(output_dir, interval_sec=sample_interval_sec, **options)
        self._summary = None

    def __enter__(self):
        self._summary = None
        self._mon.start()
        return self

    def __exit__(self, exc_type, exc, tb):
        self._mon.stop(exc)  # the run's status: ok, or failed with the block's exception
        self.output_dir = self._mon.output_dir  # where hwmon wrote (output_dir-2 if taken)
        return False

    def run_summary(self):
        """The whole summary of the run directory (runlog.RunSummary)."""
        return summarize(self._mon.output_dir)

    @property
    def summary(self):
        """calibrax's ResourceSummary of the block; the zeroed one when nothing was sampled."""
        if self._summary is not None:
            return self._summary
        try:
            doc = self.run_summary().to_dict()
        except SummarizeError as e:  # no samples at all (the block was too short, or hwmon
            warnings.warn(str(e), RuntimeWarning, stacklevel=2)  # could not start): say so
            doc = None
        s = (ResourceSummary.from_dict(doc) if doc and doc.get("num_samples")
             else ResourceSummary.zero())
        if not self._mon.running:  # final once the block is over
            self._summary = s
        return s
