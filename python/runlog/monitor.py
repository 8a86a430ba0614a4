"""Monitors started from inside a Python script, and summaries as Python objects.

A monitor is `hwmon` attached to the calling process (`hwmon -p <this pid>`), run as a process
of its own: the job's interpreter does no sampling, and hwmon never counts itself or its
nvidia-smi children in the job's tree. Every number of a summary comes from `summarize` (the
one owner of every figure); nothing is recomputed here.

    from runlog import HWMonitor, build_resource_summary    # pytyche's API
    mon = HWMonitor()
    mon.start(Path("runs/0042"), interval_sec=2)
    ...
    gpu_csv, cpu_csv, dmon_csv = mon.stop()
    print(build_resource_summary(gpu_csv, cpu_csv, dmon_csv).to_dict())

    with runlog.Monitor("runs/0043", interval_sec=0.5) as m:   # any run directory
        ...
    print(m.summary().energy_wh)

Monitoring never stops the job: when hwmon cannot be found or cannot start, start() warns
(RuntimeWarning) and the script goes on unmonitored, unless strict=True asks it to raise.
"""

import dataclasses
import json
import os
import signal
import subprocess
import threading
import time
import warnings
from pathlib import Path

from ._tools import tool

__all__ = ["HWMonitor", "Monitor", "ResourceSummary", "build_resource_summary", "RunSummary",
           "summarize", "SummarizeError"]

# File names of a run directory: include/hwrun/rundir.h (HW_GPU_FILE, HW_CPU_FILE, HW_DMON_FILE,
# HW_RUNLOG_FILE).
GPU_FILE, CPU_FILE, DMON_FILE, RUNLOG_FILE = ("hw_metrics.csv", "cpu_metrics.csv", "hw_dmon.csv",
                                              "run.jsonl")
_READY_TIMEOUT_S = 60.0   # hwmon probes nvidia-smi before it starts: seconds on a real node
_STOP_TIMEOUT_S = 60.0    # its own stop: children's grace (5 s) and the last rows
MIN_INTERVAL_S = 0.05     # hwmon's fastest sampling (hwmon -i); a faster request is clamped
MAX_INTERVAL_S = 3600.0   # and its slowest
_DIR_TRIES = 1000         # hwmon takes DIR-2 ... DIR-1000 when DIR holds a run (hwmon(1))
# The event the owner of a monitor logs as its block ends: include/hwrun/rundir.h
# HW_EV_MONITOR_END. summarize reads the run's status from it ("ok", or "failed" and why).
MONITOR_END = "monitor_end"


def clamp_interval(seconds, stacklevel=3):
    """The one rule of every monitor and drop-in for a sampling interval: hwmon's range
    (MIN_INTERVAL_S to MAX_INTERVAL_S); a value outside it, or not a number, is clamped (the
    default 1 s for NaN or a non-number) with a RuntimeWarning, never refused: the seeds take
    any interval, and monitoring never stops the job."""
    try:
        s = float(seconds)
    except (TypeError, ValueError):
        s = float("nan")
    if MIN_INTERVAL_S <= s <= MAX_INTERVAL_S:
        return s
    got = MIN_INTERVAL_S if s < MIN_INTERVAL_S else MAX_INTERVAL_S if s > MAX_INTERVAL_S else 1.0
    warnings.warn("runlog: hwmon samples every %g to %g s: interval %r is sampled at %g s"
                  % (MIN_INTERVAL_S, MAX_INTERVAL_S, seconds, got), RuntimeWarning,
                  stacklevel=stacklevel)
    return got


class SummarizeError(RuntimeError):
    """summarize found nothing usable, or could not read a file: its message says why."""


def _run_summarize(args):
    proc = subprocess.run([tool("summarize")] + list(args), stdin=subprocess.DEVNULL,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if proc.returncode != 0:
        raise SummarizeError(proc.stderr.decode("utf-8", "replace").strip() or
                             "summarize exited with status %d" % proc.returncode)
    return proc.stdout.decode("utf-8", "surrogateescape")


# ---------------------------------------------------------------------------------------------
# pytyche's ResourceSummary and build_resource_summary


@dataclasses.dataclass
class ResourceSummary:
    """pytyche's summary of a run's three files: its fields, its to_dict(). The values are
    summarize's (`--format pytyche-fields`), computed as pytyche computes them."""
    peak_vram_mb: float = 0.0
    jax_peak_bytes_mb: float = 0.0
    gpu_util_mean_pct: float = 0.0
    gpu_util_max_pct: float = 0.0
    mem_util_mean_pct: float = 0.0
    mem_util_max_pct: float = 0.0
    power_watts_mean: float = 0.0
    power_watts_max: float = 0.0
    cpu_usr_mean_pct: float = 0.0
    cpu_idle_mean_pct: float = 0.0

    def to_dict(self):
        # pytyche's own method, key for key (summarize --format pytyche prints the same)
        d = {
            "peak_vram_mb": round(self.peak_vram_mb, 1),
            "gpu_util_mean_pct": round(self.gpu_util_mean_pct, 1),
            "gpu_util_max_pct": round(self.gpu_util_max_pct, 1),
            "power_watts_mean": round(self.power_watts_mean, 1),
            "power_watts_max": round(self.power_watts_max, 1),
            "cpu_usr_mean_pct": round(self.cpu_usr_mean_pct, 1),
            "cpu_idle_mean_pct": round(self.cpu_idle_mean_pct, 1),
        }
        if self.jax_peak_bytes_mb > 0:
            d["jax_peak_bytes_mb"] = round(self.jax_peak_bytes_mb, 1)
        if self.mem_util_mean_pct > 0:
            d["mem_util_mean_pct"] = round(self.mem_util_mean_pct, 1)
            d["mem_util_max_pct"] = round(self.mem_util_max_pct, 1)
        return d


def build_resource_summary(gpu_csv_path, cpu_csv_path, dmon_csv_path=None):
    """pytyche's build_resource_summary: the three files (None or missing: skipped) summarized
    by summarize exactly as pytyche reads them. A file that exists but cannot be read, or is not
    valid UTF-8 (pytyche raises UnicodeDecodeError there), raises SummarizeError."""
    args = ["-q", "--format", "pytyche-fields"]
    for opt, p in (("--gpu-csv", gpu_csv_path), ("--cpu-csv", cpu_csv_path),
                   ("--dmon-csv", dmon_csv_path)):
        if p is not None and os.path.exists(p):
            args += [opt, os.fspath(p)]
    if len(args) == 3:
        return ResourceSummary()
    fields = json.loads(_run_summarize(args))
    return ResourceSummary(**{f.name: fields[f.name] for f in dataclasses.fields(ResourceSummary)})


# ---------------------------------------------------------------------------------------------
# A run directory's summary


class RunSummary:
    """summarize's summary of a run directory (the summary.json document, see summarize(1)) as
    a Python object: keys as attributes (s.energy_wh, s.outcome["status"]), to_dict() for the
    document, from_dict() back."""

    def __init__(self, doc):
        object.__setattr__(self, "_doc", doc)

    @classmethod
    def from_dict(cls, data):
        return cls(json.loads(json.dumps(data)))

    def to_dict(self):
        return json.loads(json.dumps(self._doc))

    def __getattr__(self, key):
        try:
            return self._doc[key]
        except KeyError:
            raise AttributeError("RunSummary has no key %r" % key) from None

    def __getitem__(self, key):
        return self._doc[key]

    def __contains__(self, key):
        return key in self._doc

    def __eq__(self, other):
        return isinstance(other, RunSummary) and self._doc == other._doc

    def __setattr__(self, key, value):
        raise AttributeError("a RunSummary is read-only")

    def __repr__(self):
        return "<runlog.RunSummary %s status=%s>" % (self._doc.get("dir"), self._doc.get("status"))

    def text(self):
        """summarize's text report of the same directory."""
        return _run_summarize(["-q", "--format", "text", self._doc["dir"]])


def summarize(run_dir, cores=None, params=None, fmt="json", units=None, tracked_gpus=None):
    """The summary of a run directory (RunSummary), as `summarize -f json DIR` gives it.
    cores: the job's expected cores (--cores); params: the event holding the run's parameters
    (--params); fmt "gpu-tracker" and units ("mem=GB,time=h") for gpu_tracker's layout, and
    tracked_gpus (indexes or UUIDs: --tracked-gpus) for the GPUs whose utilization it gives.
    Raises SummarizeError when nothing in it can be summarized."""
    args = ["-q", "--format", fmt]
    if units:
        args += ["--units", units]
    if tracked_gpus is not None:
        args += ["--tracked-gpus", ",".join(map(str, tracked_gpus))]
    if cores is not None:
        args += ["--cores", str(cores)]
    if params is not None:
        args += ["--params", params]
    return RunSummary(json.loads(_run_summarize(args + [os.fspath(run_dir)])))


# ---------------------------------------------------------------------------------------------
# Monitors


def temporary_run_dir(owner, prefix):
    """A new run directory path in a temporary directory that goes when owner is collected
    (the monitors that keep their samples only as long as their summary is asked for)."""
    import shutil
    import tempfile
    import weakref
    tmp = tempfile.mkdtemp(prefix=prefix)
    weakref.finalize(owner, shutil.rmtree, tmp, True)
    return tmp + "/run"


def _start_event_offset(path):
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def _started_in(base, offset, pid):
    """(the run directory, its start event's data) where hwmon `pid` logged its start event:
    base, or the free name it took because base held a run (base-2, base-3, ...); (None, None)
    while it has not started."""
    ev = _start_event(base / RUNLOG_FILE, offset, pid)
    if ev is not None:
        return base, ev
    for k in range(2, _DIR_TRIES + 1):
        d = base.with_name("%s-%d" % (base.name, k))
        if not d.is_dir():
            break
        ev = _start_event(d / RUNLOG_FILE, 0, pid)
        if ev is not None:
            return d, ev
    return None, None


def _start_event(path, offset, pid):
    """The data of hwmon `pid`'s start event in path after offset; None while there is none."""
    try:
        with open(path, "rb") as f:
            f.seek(offset)
            data = f.read()
    except OSError:
        return None
    for line in data.splitlines():
        if b'"start"' not in line:
            continue
        try:
            e = json.loads(line)
        except ValueError:
            continue
        if (e.get("type") == "event" and e.get("event") == "start" and
                (e.get("data") or {}).get("hwmon_pid") == pid):
            return e["data"]
    return None


def _exit_with_parent(parent):
    """A preexec_fn: the child gets SIGTERM when its parent thread dies (PR_SET_PDEATHSIG,
    kept across exec), and goes at once when the parent died before that was set."""
    import ctypes
    prctl = ctypes.CDLL(None, use_errno=True).prctl  # looked up before the fork, not after

    def set_in_child():
        prctl(1, int(signal.SIGTERM))  # PR_SET_PDEATHSIG
        if os.getppid() != parent:
            os._exit(1)
    return set_in_child


class Monitor:
    """hwmon attached to this process, writing the run directory output_dir.

    interval_sec: hwmon's -i (MIN_INTERVAL_S to MAX_INTERVAL_S: clamp_interval());
    gpus: hwmon's --gpus (indexes or UUIDs; default
    CUDA_VISIBLE_DEVICES, else all); no_gpu: no nvidia-smi; nvidia_smi: its path; args: more
    hwmon options. strict: raise when hwmon cannot start (default: warn and go on unmonitored).
    children=False: this process alone, not its descendants. pid: another process to watch
    (default: this one). system=True: the whole system, no process (hwmon without -p).
    exit_with_parent=True: hwmon gets SIGTERM when the thread that started it dies, even by
    SIGKILL (a monitor started in a child process that gets killed: multiprocessing's
    terminate()). status: "new", "started", "stopped" (gpu_tracker's states).
    Usable as a context manager: started on entry, stopped on exit.

    While a monitor of this process runs, RUNLOG_FILE and HWMON_DIR name its run (as `hwmon --
    cmd` sets them for a command), so RunLog() and the runlog CLI in child processes log into it;
    they are restored at stop(). When output_dir holds a run already, hwmon writes to the next
    free name (output_dir-2, ...): output_dir is then that directory. At stop() the owner says how
    the block ended (a monitor_end event: "ok", or "failed" with the exception the context manager
    saw), which is the run's status; a monitor of another process (pid) ends "detached".
    """

    def __init__(self, output_dir, interval_sec=1.0, gpus=None, no_gpu=False, nvidia_smi=None,
                 args=(), strict=False, children=True, pid=None, system=False,
                 exit_with_parent=False):
        self.output_dir = Path(output_dir)
        self.interval_sec = clamp_interval(interval_sec)
        self.pid = None if system else os.getpid() if pid is None else int(pid)
        self.exit_with_parent = exit_with_parent
        self._owner = self.pid == os.getpid()  # this process watches itself: its block's outcome
        self._saved_env = None
        self._opts = []
        if not children:  # this process alone (resource-tracker's children=False)
            self._opts.append("--no-children")
        if gpus is not None:
            self._opts += ["--gpus", gpus if isinstance(gpus, str) else ",".join(map(str, gpus))]
        if no_gpu:
            self._opts.append("--no-gpu")
        if nvidia_smi is not None:
            self._opts += ["--nvidia-smi", os.fspath(nvidia_smi)]
        self._opts += list(args)
        self.strict = strict
        self._proc = None
        self.returncode = None
        self._start_event = None
        self._watch = None  # the thread that waits for hwmon's start event (start())

    @property
    def running(self):
        return self._proc is not None and self._proc.poll() is None

    @property
    def status(self):
        if self._proc is not None:
            return "started"
        return "new" if self.returncode is None else "stopped"

    @property
    def start_event(self):
        """The data of hwmon's start event (its GPUs, its settings); None until it started or
        when it could not. Waits for it when start() returned before it."""
        watch = self._watch
        if watch is not None:
            watch.join()
        return self._start_event

    def _fresh(self):
        """Whether output_dir holds no run (absent, or nothing but a run.jsonl of the user's):
        hwmon then takes it, not output_dir-2."""
        try:
            return set(os.listdir(self.output_dir)) <= {RUNLOG_FILE}
        except FileNotFoundError:
            return True
        except OSError:
            return False

    def start(self):
        """Start hwmon. It samples this process from its own start, nvidia-smi's start
        questions going on beside (hwmon(1): an attached process is sampled as a wrapped
        command is), so the block starts at once: start() waits for hwmon's start event only
        where it must (strict, another process or the system, a directory that holds a run,
        named GPUs, not "all"); a thread notes it, and start_event waits for it."""
        if self._proc is not None:
            raise RuntimeError("runlog: this monitor is already started")
        named = "--gpus" in self._opts and self._opts[self._opts.index("--gpus") + 1] != "all"
        at_once = not self.strict and self._owner and self._fresh() and not named
        try:
            self.output_dir.mkdir(parents=True, exist_ok=True)
            log = self.output_dir / RUNLOG_FILE
            offset = _start_event_offset(log)
            argv = [tool("hwmon"), "-q", "-o", str(self.output_dir), "-i",
                    repr(float(self.interval_sec))]
            if self.pid is not None:
                argv += ["-p", str(self.pid)]
            # a session of its own: a Ctrl-C at the terminal reaches the script, which decides;
            # hwmon ends with this process anyway (it watches its pid)
            proc = subprocess.Popen(argv + self._opts, stdin=subprocess.DEVNULL,
                                    stdout=subprocess.DEVNULL, start_new_session=True,
                                    preexec_fn=_exit_with_parent(os.getpid())
                                    if self.exit_with_parent else None)
        except (OSError, ValueError) as e:
            return self._failed(e)
        self._stopping = False
        if at_once:
            self._proc = proc
            self._set_env(self.output_dir)
            self._watch = threading.Thread(target=self._wait_started, args=(proc, offset),
                                           name="runlog-hwmon-start", daemon=True)
            self._watch.start()
            return self
        err = self._wait_started(proc, offset)
        if err is not None:
            return self._failed(err)
        self._proc = proc
        self._set_env(self.output_dir)
        return self

    def _wait_started(self, proc, offset):
        """Wait for hwmon's start event (output_dir: the directory it took); the error, or
        None. In start()'s thread, an error is a warning (the job goes on unmonitored)."""
        deadline = time.monotonic() + _READY_TIMEOUT_S
        err = None
        while True:
            found, event = _started_in(self.output_dir, offset, proc.pid)
            if found is not None:
                self._start_event = event
                if found != self.output_dir:  # another monitor took it meanwhile
                    self.output_dir = found
                    if self._saved_env is not None:
                        self._set_env(found)
                return None
            if proc.poll() is not None:
                if not self._stopping:  # stopped before it started: nothing wrong
                    err = RuntimeError(
                        "runlog: hwmon exited with status %d before it started sampling %s "
                        "(its message is above)" % (proc.returncode, self.output_dir))
                break
            if time.monotonic() > deadline:
                proc.kill()
                proc.wait()
                err = RuntimeError("runlog: hwmon did not start within %g s" % _READY_TIMEOUT_S)
                break
            time.sleep(0.01)
        if err is not None and threading.current_thread() is not threading.main_thread() \
                and self._watch is threading.current_thread():
            warnings.warn("%s; the job goes on unmonitored" % err, RuntimeWarning)
        return err

    def _set_env(self, run_dir):
        if self._owner:  # RunLog() and child processes log into this run until stop()
            if self._saved_env is None:
                self._saved_env = {k: os.environ.get(k) for k in ("RUNLOG_FILE", "HWMON_DIR")}
            os.environ["RUNLOG_FILE"] = str(run_dir.resolve() / RUNLOG_FILE)
            os.environ["HWMON_DIR"] = str(run_dir.resolve())

    def _failed(self, err):
        if self.strict:
            raise err
        warnings.warn("%s; the job goes on unmonitored" % err, RuntimeWarning, stacklevel=3)
        return self

    def stop(self, exc=None):
        """Stop hwmon (SIGTERM: it takes a last sample, stops its children and logs its stop
        event) and wait for it. Returns its exit status (None when it never started). A monitor
        of this process first logs how its block ended: "ok", or "failed" with exc (the
        exception that ended it, which the context manager passes)."""
        proc, self._proc = self._proc, None
        if proc is None:
            return self.returncode
        self._stopping = True
        self._restore_env()
        if self._watch is not None and self._start_event is None:
            # a block shorter than hwmon's own start: SIGTERM only once it handles it (it has
            # claimed the run directory, its signals set), so that it ends the run as ever,
            # with its last sample and its stop event
            deadline = time.monotonic() + _READY_TIMEOUT_S
            while (proc.poll() is None and not (self.output_dir / CPU_FILE).exists() and
                   time.monotonic() < deadline):
                time.sleep(0.002)
        if self._owner and proc.poll() is None:
            self._log_end(exc, proc.pid)
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=_STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        self.returncode = proc.returncode
        if self._watch is not None:
            self._watch.join()  # it sees hwmon gone, or has seen its start
        return self.returncode

    def _restore_env(self):
        saved, self._saved_env = self._saved_env, None
        for k, v in (saved or {}).items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v

    def _log_end(self, exc, hwmon_pid):
        from . import RunLog  # the package's RunLog: librunlog's lines
        data = {"status": "ok"} if exc is None else {
            "status": "failed", "exception": type(exc).__name__, "message": str(exc)[:500]}
        data["hwmon_pid"] = hwmon_pid  # its start event may follow (hwmon(1), FORMAT.md)
        try:
            with RunLog(self.output_dir / RUNLOG_FILE) as log:
                log.log_event(MONITOR_END, data)
        except OSError as e:  # the run's status is then hwmon's own ("detached"); say why
            warnings.warn("runlog: could not log how the monitored block ended: %s" % e,
                          RuntimeWarning, stacklevel=3)

    def summary(self, **kwargs):
        """summarize(output_dir) (RunSummary), after stop(); cores: the expected cores."""
        return summarize(self.output_dir, **kwargs)

    def to_json(self, **kwargs):
        """The summary as a dict (summarize's JSON document)."""
        return self.summary(**kwargs).to_dict()

    def __str__(self):
        try:
            return self.summary().text()
        except SummarizeError as e:
            return "<runlog.Monitor %s: %s>" % (self.output_dir, e)

    def __enter__(self):
        return self.start()

    def __exit__(self, exc_type, exc, tb):
        self.stop(exc)
        return False

    def __del__(self):
        try:
            self.stop()
        except Exception:
            pass


class HWMonitor:
    """pytyche's HWMonitor: start(output_dir, interval_sec=2) and stop(), which returns the
    paths of hw_metrics.csv, cpu_metrics.csv and hw_dmon.csv (None for what was not recorded).
    hwmon does the sampling (GPU, dmon, CPU, and this process's tree) into output_dir, which
    is then a full run directory (summarize, the HTML report)."""

    def __init__(self, **options):
        self._options = options  # Monitor's keyword arguments (gpus, nvidia_smi, strict, ...)
        self._mon = None
        self._dir = None

    def start(self, output_dir, interval_sec=2):
        if self._mon is not None and self._mon.running:
            raise RuntimeError("runlog: this HWMonitor is already started")
        self._dir = Path(output_dir)
        self._interval = interval_sec
        self._t0 = time.monotonic()
        self._mon = Monitor(self._dir, interval_sec=interval_sec, **self._options).start()

    def stop(self):
        mon, self._mon = self._mon, None
        if mon is None or mon.status == "new":  # never started: nothing of it is recorded
            return None, None, None
        mon.stop()

        d = mon.output_dir  # the directory hwmon took (self._dir, unless that held a run)

        def made(name):
            p = d / name
            return p if p.is_file() and p.stat().st_size > 0 else None
        # pytyche's CPU thread samples once an interval has passed: stopped before that, it
        # has no sample and returns None (hwmon's last partial interval is in the file all
        # the same, for summarize)
        cpu = made(CPU_FILE) if time.monotonic() - self._t0 >= self._interval else None
        return made(GPU_FILE), cpu, made(DMON_FILE)
