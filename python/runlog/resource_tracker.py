"""resource-tracker's Python API (`resource_tracker.tracker`) as a drop-in: PidTracker,
SystemTracker and the procfs helpers, with its CSV columns and units.

    from runlog.resource_tracker import PidTracker   # was: from resource_tracker import PidTracker
    from multiprocessing import Process
    tracker = Process(target=PidTracker, kwargs={"output_file": "tracker.csv"})
    tracker.start()                                  # this process (and its children), every 1 s
    train()
    tracker.terminate()

The trackers sample nothing themselves: hwmon does (C, a process of its own, attached to the pid
with -p, or the whole system for SystemTracker) into a run directory, and the tracker turns the
rows it writes (proc_metrics.csv or cpu_metrics.csv, and nvidia-smi's) into resource-tracker's
rows as they come. That is what makes a sample cheaper than resource-tracker's own procfs loop,
which reads every process's files in Python and spawns nvidia-smi at every sample
(tests/bench/bench_resource_tracker.py measures both).

The helpers (get_pid_stats, get_system_stats, get_pid_children, ...) read procfs once, as
resource-tracker's do, with its return shapes and units.

Where it differs from resource-tracker (docs/seed-tools.md has the whole list):
- The first row is written after the header, not replaced by it (resource-tracker's first
  cycle writes the header instead of its values). Rows follow hwmon's cadence; stdout is flushed
  after every row, so a reader of a pipe sees each row as it comes.
- CPU ticks of PidTracker come from hwmon's per-interval CPU percentages (one decimal) times the
  interval: within a tick of the kernel's. PSS and SystemTracker's memory come from hwmon's MiB
  with one decimal: kB to within 52 kB.
- PSS costs the kernel a walk of the whole address space (milliseconds per GiB): hwmon reads it
  as often as 1% of a core allows and pss repeats the latest value in between;
  pss_every_sample=True reads it at every sample, as resource-tracker does.
- PidTracker's gpu_usage, gpu_vram and gpu_utilized are the tree's processes' own, from
  nvidia-smi pmon as resource-tracker reads them (SM share over 100, frame-buffer MiB, the GPUs
  whose SMs they used), but from hwmon's one pmon child (hwmon --pmon) rather than an
  nvidia-smi started every sample. Without a GPU (or nvidia-smi) the three are 0, as
  resource-tracker writes them. On a real H100 a pmon child costs about 44 ms of CPU a second
  (testdata/gpu-check/h100-drv580/child_cost.txt).
- A pid that does not exist (or has exited) is tracked as resource-tracker does: get_pid_stats's
  zeros, status "exited", an empty output_file. When hwmon cannot start, the same, with a
  warning: a tracker never raises into the job for its environment.
- interval: any value, clamped to hwmon's 0.05 to 3600 s with a warning (runlog.monitor's
  clamp_interval(), the one rule of every drop-in).
- The trackers take keyword arguments of their own: nvidia_smi (its path), no_gpu, run_dir
  (keep hwmon's run directory there, for summarize and the HTML report; default: a temporary
  one, removed when the tracker stops), and PidTracker's pss_every_sample. stop() stops hwmon.
"""

import contextlib
import csv
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import warnings
import weakref
from contextlib import suppress
from datetime import datetime
from functools import cache
from glob import glob

from .monitor import RUNLOG_FILE, Monitor, clamp_interval

__all__ = ["PidTracker", "SystemTracker", "get_pid_stats", "get_system_stats",
           "get_pid_children", "get_pid_rss", "get_pid_pss_rollup", "get_pid_proc_times",
           "get_pid_proc_io", "is_partition", "PID_COLUMNS", "SYSTEM_COLUMNS"]

# resource-tracker's CSV columns, in its order (its PidTracker and SystemTracker docstrings):
# the one list the writer and the tests use.
PID_COLUMNS = ("timestamp", "pid", "children", "utime", "stime", "cpu_usage", "pss",
               "read_bytes", "write_bytes", "gpu_usage", "gpu_vram", "gpu_utilized")
SYSTEM_COLUMNS = ("timestamp", "processes", "utime", "stime", "cpu_usage", "memory_free",
                  "memory_used", "memory_buffers", "memory_cached", "memory_active_anon",
                  "memory_inactive_anon", "disk_read_bytes", "disk_write_bytes",
                  "disk_space_total_gb", "disk_space_used_gb", "disk_space_free_gb",
                  "net_recv_bytes", "net_sent_bytes", "gpu_usage", "gpu_vram", "gpu_utilized")

_HZ = os.sysconf("SC_CLK_TCK")
_SMI_TIMEOUT_S = 0.5  # resource-tracker's wait for its one-shot nvidia-smi
# The nvidia-smi fields the helpers ask for, and those of hwmon's gpu_procs.csv (FORMAT.md).
_GPU_QUERY = "index,uuid,utilization.gpu,memory.used"
_APPS_QUERY = "gpu_uuid,pid,used_gpu_memory"
_HWMON_APPS_FIELDS = "timestamp,gpu_uuid,pid,used_gpu_memory,process_name"
# hwmon's files (include/hwrun/rundir.h)
_PROC_FILE, _CPU_FILE, _TREE_FILE = "proc_metrics.csv", "cpu_metrics.csv", "tree_pids.csv"
_GPU_FILE, _APPS_FILE, _PMON_FILE = "hw_metrics.csv", "gpu_procs.csv", "hw_pmon.csv"


def _num(s):
    """A cell as a float; None for a value not measured ("", "[N/A]", "-")."""
    try:
        return float(s)
    except ValueError:
        return None


# ---------------------------------------------------------------------------------------------
# resource-tracker's helpers: one read of procfs, its shapes and units


@cache
def is_partition(disk_name):
    """Whether a disk name (sda1, nvme0n1p1) is a partition of a disk in /sys/block."""
    if re.search(r"(sd[a-z]+|nvme\d+n\d+|mmcblk\d+)p?\d+$", disk_name):
        parents = [d.split("/")[-2] for d in glob("/sys/block/*/")]
        return any(disk_name.startswith(p) and disk_name != p for p in parents)
    return False


def get_pid_children(pid):
    """Every descendant's pid (a set), through the children files of every thread
    (resource-tracker reads the main thread's only, missing what other threads forked)."""
    try:
        tids = os.listdir("/proc/%d/task" % pid)
    except OSError:
        return set()
    children = set()
    for tid in tids:
        with suppress(OSError):
            with open("/proc/%d/task/%s/children" % (pid, tid)) as f:
                children.update(int(c) for c in f.read().split())
    descendants = set(children)
    for child in children:
        descendants |= get_pid_children(child)
    return descendants


def get_pid_rss(pid):
    """VmRSS of the process in kB (0 when it is gone or has none: a kernel thread)."""
    with suppress(OSError):
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmRSS"):
                    return int(line.split()[1])
    return 0


def get_pid_pss_rollup(pid):
    """The process's PSS in kB, from /proc/PID/smaps_rollup (0 when it is gone)."""
    with suppress(ProcessLookupError, FileNotFoundError):
        with open("/proc/%d/smaps_rollup" % pid) as f:
            for line in f:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    return 0


def get_pid_proc_times(pid, children=True):
    """{"utime", "stime"}: the process's CPU time in clock ticks, with its waited-for children's
    (cutime, cstime) when children is true; zeros when it is gone."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            # after the command's closing parenthesis (a name may hold spaces): state is [0]
            v = f.read().rsplit(")", 1)[1].split()
    except (ProcessLookupError, FileNotFoundError):
        return {"utime": 0, "stime": 0}
    return {"utime": int(v[11]) + (int(v[13]) if children else 0),
            "stime": int(v[12]) + (int(v[14]) if children else 0)}


def get_pid_proc_io(pid):
    """Every counter of /proc/PID/io (rchar, wchar, syscr, syscw, read_bytes, write_bytes,
    cancelled_write_bytes) in bytes or calls; {"read_bytes": 0, "write_bytes": 0} when it
    cannot be read (gone, or another user's process)."""
    try:
        with open("/proc/%d/io" % pid) as f:
            return {k: int(v) for k, v in (line.split(": ") for line in f)}
    except (ProcessLookupError, FileNotFoundError, PermissionError):
        return {"read_bytes": 0, "write_bytes": 0}


def _smi_start(nvidia_smi, query, fields):
    """nvidia-smi asked once, in the background (None when there is none)."""
    try:
        return subprocess.Popen([nvidia_smi, "--%s=%s" % (query, fields),
                                 "--format=csv,noheader,nounits"], stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    except OSError:
        return None


def _smi_rows(proc, fields):
    """Its rows as dicts of the fields; [] when it failed or took longer than resource-tracker
    waits."""
    if proc is None:
        return []
    try:
        out, _ = proc.communicate(timeout=_SMI_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        return []
    if proc.returncode != 0:
        return []
    names = fields.split(",")
    return [dict(zip(names, line.split(", ", len(names) - 1)))
            for line in out.decode("utf-8", "replace").splitlines()
            if line.count(", ") >= len(names) - 1]


def _gpu(row):
    """(index, uuid, utilization %, memory used MiB) of an nvidia-smi --query-gpu row."""
    index = row.get("index", "")
    return (int(index) if index.isdigit() else row.get("uuid"), row.get("uuid"),
            _num(row.get("utilization.gpu", "")), _num(row.get("memory.used", "")))


def _app(row):
    """(gpu uuid, pid, memory MiB) of an nvidia-smi --query-compute-apps row."""
    pid = row.get("pid", "").strip()
    return row.get("gpu_uuid"), int(pid) if pid.isdigit() else None, _num(
        row.get("used_gpu_memory", ""))


def _system_gpu(gpus):
    """resource-tracker's GPU columns of the system: the GPUs' utilization together (0 to the
    GPU count), their memory used (MiB), how many are busy. Without a GPU, 0 each."""
    out = {"gpu_usage": 0, "gpu_vram": 0, "gpu_utilized": 0}
    for _, _, util, mem in gpus:
        if util is not None:
            out["gpu_usage"] += util / 100
            out["gpu_utilized"] += util > 0
        if mem is not None:
            out["gpu_vram"] += mem
    return out


def _pid_gpu(gpus, apps, pids):
    """resource-tracker's GPU columns of a process tree: its processes' GPU memory (MiB), and
    the utilization of the GPUs they are on (the GPU's whole: nvidia-smi's per-process figures
    are memory only), with the indexes of the busy ones."""
    on = set()
    out = {"gpu_usage": 0, "gpu_vram": 0, "gpu_utilized": 0, "gpu_utilized_indexes": set()}
    for uuid, pid, mib in apps:
        if pid in pids:
            on.add(uuid)
            if mib is not None:
                out["gpu_vram"] += mib
    for index, uuid, util, _ in gpus:
        if uuid in on and util:
            out["gpu_usage"] += util / 100
            out["gpu_utilized_indexes"].add(index)
    out["gpu_utilized"] = len(out["gpu_utilized_indexes"])
    return out


def _pmon_gpu(rows, pids):
    """resource-tracker's GPU columns of a process tree from nvidia-smi pmon's rows (gpu, pid,
    sm %, fb MiB; None for "-"), as its get_pid_stats reads them: the tree's processes' SM
    shares (0 to the GPU count), their memory, and how many GPUs they used SMs of."""
    out = {"gpu_usage": 0, "gpu_vram": 0, "gpu_utilized": 0, "gpu_utilized_indexes": set()}
    for gpu, pid, sm, fb in rows:
        if pid not in pids:
            continue
        if sm is not None:
            out["gpu_usage"] += sm / 100
            out["gpu_utilized_indexes"].add(gpu)
        if fb is not None:
            out["gpu_vram"] += fb
    out["gpu_utilized"] = len(out["gpu_utilized_indexes"])
    return out


def _pmon_header(line):
    """The column names of an nvidia-smi pmon header line ("# gpu pid type sm mem ..." or,
    with -o DT, "#Date Time gpu pid ..."), None for another line (its units line). Drivers
    order the columns apart (fb and ccpm before sm on some): read by name."""
    names = line[1:].split()
    if names and names[0] in ("gpu", "Date"):
        return {n: i for i, n in enumerate(names)}
    return None


def _pmon_row(cells, cols):
    """(gpu, pid, sm %, fb MiB; None for "-") of a pmon row; None for a GPU without a process
    or a row that is not one."""
    if not {"gpu", "pid", "sm"} <= cols.keys() or len(cells) < len(cols) - 1:
        return None
    try:
        if cells[cols["pid"]] == "-":
            return None
        fb = cells[cols["fb"]] if "fb" in cols else "-"
        sm = cells[cols["sm"]]
        return (int(cells[cols["gpu"]]), int(cells[cols["pid"]]),
                None if sm == "-" else float(sm), None if fb == "-" else float(fb))
    except (ValueError, IndexError):
        return None


def _pmon_once(proc):
    """The rows of a one-shot `nvidia-smi pmon -c 1 -s um`; [] when it failed or took longer
    than resource-tracker waits."""
    if proc is None:
        return []
    try:
        out, _ = proc.communicate(timeout=_SMI_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        return []
    if proc.returncode != 0:
        return []
    rows, cols = [], None
    for line in out.decode("utf-8", "replace").splitlines():
        if line.startswith("#"):
            cols = _pmon_header(line) or cols
        elif cols is not None:
            row = _pmon_row(line.split(), cols)
            if row is not None:
                rows.append(row)
    return rows


def get_pid_stats(pid, children=True):
    """The process's stats now, resource-tracker's keys: timestamp (epoch s), pid, children
    (the descendants' count, None when not asked), utime, stime (clock ticks, cumulative), pss
    (kB), read_bytes, write_bytes (cumulative), gpu_usage, gpu_vram (MiB), gpu_utilized,
    gpu_utilized_indexes. Zeros for a pid that does not exist, as resource-tracker gives. The
    GPU figures are the processes' own, from one `nvidia-smi pmon -c 1 -s um` as
    resource-tracker's (and as PidTracker's rows: one definition): a process whose sm is "-"
    adds 0."""
    now = time.time()
    try:
        pmon = subprocess.Popen(["nvidia-smi", "pmon", "-c", "1", "-s", "um", "-d", "1"],
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL)
    except OSError:
        pmon = None
    kids = get_pid_children(pid)
    tree = [pid] + (sorted(kids) if children else [])
    pss = sum(get_pid_pss_rollup(p) for p in tree)
    times = get_pid_proc_times(pid, children)
    io = get_pid_proc_io(pid)
    for p in tree[1:]:
        t = get_pid_proc_times(p, True)
        times["utime"] += t["utime"]
        times["stime"] += t["stime"]
        child_io = get_pid_proc_io(p)
        for k in set(io) & set(child_io):
            io[k] += child_io[k]
    gpu = _pmon_gpu(_pmon_once(pmon), set(tree))
    return {"timestamp": now, "pid": pid, "children": len(kids) if children else None,
            "utime": times["utime"], "stime": times["stime"], "pss": pss,
            "read_bytes": io["read_bytes"], "write_bytes": io["write_bytes"], **gpu}


def _proc_stat():
    """(forks since boot, user+nice ticks, system ticks) of /proc/stat: resource-tracker's
    processes, utime and stime of the system."""
    processes = utime = stime = 0
    with suppress(OSError):
        with open("/proc/stat", "rb") as f:
            for line in f:
                if line.startswith(b"cpu "):
                    v = line.split()
                    utime, stime = int(v[1]) + int(v[2]), int(v[3])
                elif line.startswith(b"processes"):
                    processes = int(line.split()[1])
                    break  # the cpu lines come first
    return processes, utime, stime


def _mount_points():
    """resource-tracker's file systems: mount points of /proc/mounts outside /proc, /sys, /dev
    and /run, and whether ZFS is mounted (its pools are counted by zpool instead)."""
    points, zfs = [], False
    with suppress(OSError):
        with open("/proc/mounts") as f:
            for line in f:
                parts = line.split()
                if len(parts) < 3 or parts[1].startswith(("/proc", "/sys", "/dev", "/run")):
                    continue
                if parts[2] == "zfs":
                    zfs = True
                else:
                    points.append(parts[1])
    return points, zfs


def _disk_spaces(points):
    """{mount: {total, used, free}} in bytes (free: what an unprivileged writer may use)."""
    spaces = {}
    for point in points:
        try:
            st = os.statvfs(point)
        except OSError:
            continue
        if st.f_blocks == 0:  # a pseudo file system
            continue
        total, free = st.f_blocks * st.f_frsize, st.f_bavail * st.f_frsize
        spaces[point] = {"total": total, "used": total - free, "free": free}
    return spaces


def _zfs_spaces(spaces):
    """ZFS pools' space added as zfs:POOL, from one `zpool list` (resource-tracker's way)."""
    try:
        proc = subprocess.Popen(["zpool", "list", "-Hp", "-o", "name,size,allocated,free"],
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL)
        out, _ = proc.communicate(timeout=0.25)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        return
    except OSError:
        return
    for line in out.decode("utf-8", "replace").splitlines():
        parts = line.split("\t")
        if len(parts) >= 4 and all(p.isdigit() for p in parts[1:4]):
            spaces["zfs:" + parts[0]] = {"total": int(parts[1]), "used": int(parts[2]),
                                         "free": int(parts[3])}


def get_system_stats():
    """The system's stats now, resource-tracker's keys: timestamp, processes (forks since boot,
    as resource-tracker reads them), utime (user+nice), stime (clock ticks, cumulative),
    memory_used, memory_buffers, memory_cached, memory_active_anon, memory_inactive_anon,
    memory_free (kB), disk_stats ({disk: {read_sectors, write_sectors}}, whole disks),
    disk_spaces ({mount: {total, used, free}} bytes), net_recv_bytes, net_sent_bytes
    (cumulative, all interfaces but lo), gpu_usage, gpu_vram (MiB), gpu_utilized."""
    stats = {"timestamp": time.time(), "processes": 0, "utime": 0, "stime": 0,
             "memory_used": 0, "memory_buffers": 0, "memory_cached": 0,
             "memory_active_anon": 0, "memory_inactive_anon": 0, "disk_stats": {},
             "disk_spaces": {}, "net_recv_bytes": 0, "net_sent_bytes": 0}
    gpus_q = _smi_start("nvidia-smi", "query-gpu", _GPU_QUERY)
    stats["processes"], stats["utime"], stats["stime"] = _proc_stat()
    mem = {}
    with suppress(OSError):
        with open("/proc/meminfo") as f:
            for line in f:
                key, _, rest = line.partition(":")
                with suppress(ValueError, IndexError):
                    mem[key] = int(rest.split()[0])
    stats["memory_free"] = mem.get("MemFree", 0)
    stats["memory_buffers"] = mem.get("Buffers", 0)
    stats["memory_cached"] = mem.get("Cached", 0)
    stats["memory_used"] = (mem.get("MemTotal", 0) - stats["memory_free"] -
                            stats["memory_buffers"] - stats["memory_cached"])
    stats["memory_active_anon"] = mem.get("Active(anon)", 0)
    stats["memory_inactive_anon"] = mem.get("Inactive(anon)", 0)
    with suppress(OSError):
        with open("/proc/diskstats") as f:
            for line in f:
                parts = line.split()
                if len(parts) >= 14 and not is_partition(parts[2]):
                    stats["disk_stats"][parts[2]] = {"read_sectors": int(parts[5]),
                                                     "write_sectors": int(parts[9])}
    with suppress(OSError):
        with open("/proc/net/dev") as f:
            for line in f.readlines()[2:]:
                name, sep, values = line.partition(":")
                if sep and name.strip() != "lo":
                    v = values.split()
                    stats["net_recv_bytes"] += int(v[0])
                    stats["net_sent_bytes"] += int(v[8])
    points, zfs = _mount_points()
    stats["disk_spaces"] = _disk_spaces(points)
    if zfs:
        _zfs_spaces(stats["disk_spaces"])
    stats.update(_system_gpu([_gpu(r) for r in _smi_rows(gpus_q, _GPU_QUERY)]))
    return stats


# ---------------------------------------------------------------------------------------------
# The trackers: hwmon's rows as resource-tracker's


def _sector_sizes():
    """resource-tracker's SystemTracker.sector_sizes: each whole disk's hw_sector_size (512
    where unreadable). Its own disk bytes multiply by it; ours count 512-byte sectors, which
    is what /proc/diskstats counts (docs/seed-tools.md), and the attribute is kept for code
    that reads it."""
    sizes = {}
    for disk_path in glob("/sys/block/*/"):
        disk = disk_path.split("/")[-2]
        if is_partition(disk):
            continue
        try:
            with open(disk_path + "queue/hw_sector_size") as f:
                sizes[disk] = int(f.read().strip())
        except (OSError, ValueError):
            sizes[disk] = 512
    return sizes


def _alive(pid):
    """Whether pid is a process that has not exited (a zombie has)."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except (OSError, IndexError):
        return False


def _iso_time(s):
    """hwmon's timestamp (2026-11-21T15:27:49.697+00:00) as epoch seconds."""
    return datetime.fromisoformat(s).timestamp()


def _smi_time(s):
    """nvidia-smi's timestamp (2026/11/21 15:27:49.697, UTC under hwmon) as epoch seconds."""
    return datetime.fromisoformat(s.replace("/", "-") + "+00:00").timestamp()


class _Lines:
    """The whole lines appended to a file since the last look (none while it does not exist)."""

    def __init__(self, path):
        self.path, self.fd, self.rest = path, None, b""

    def lines(self):
        if self.fd is None:
            try:
                self.fd = os.open(self.path, os.O_RDONLY | os.O_CLOEXEC)
            except FileNotFoundError:
                return []
        chunks = [self.rest]
        while True:  # one read a sample, more when the reader fell behind
            chunks.append(os.read(self.fd, 1 << 16))
            if len(chunks[-1]) < 1 << 16:
                break
        data = b"".join(chunks)
        cut = data.rfind(b"\n") + 1
        self.rest = data[cut:]
        return data[:cut].decode("utf-8", "replace").splitlines()

    def close(self):
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


class _Table(_Lines):
    """hwmon's CSV with a header: rows as lists, cols maps names to positions."""

    def __init__(self, path):
        super().__init__(path)
        self.cols = None

    def rows(self):
        out = []
        for line in self.lines():
            cells = line.split(",")
            if self.cols is None:
                self.cols = {name: i for i, name in enumerate(cells)}
            elif len(cells) == len(self.cols):
                out.append(cells)
        return out


class _GpuRows:
    """The run's nvidia-smi rows, as they come: each GPU's latest utilization and memory
    (hw_metrics.csv) and the compute processes of the latest interval (gpu_procs.csv)."""

    def __init__(self, hw, query_fields, stale_s, pmon=False):
        self.fields = query_fields.split(",")
        self.metrics = hw.open(_GPU_FILE, _Lines)
        self.apps_lines = hw.open(_APPS_FILE, _Lines)
        # nvidia-smi pmon's rows (hwmon --pmon): each process's own SM share, as
        # resource-tracker reads them; its header names the columns (drivers order them apart)
        self.pmon_lines = hw.open(_PMON_FILE, _Lines) if pmon else None
        self.pmon_cols, self.pmon_stamp, self.pmon_time, self.pmon = None, None, 0.0, []
        self.stale_s = stale_s  # older rows are of a GPU or a process that is gone
        self.gpus = {}          # index -> (time, (index, uuid, util, mem))
        self.apps_stamp, self.apps_time, self.apps = None, 0.0, []

    def _update(self):
        n = len(self.fields)
        for line in self.metrics.lines():
            cells = line.split(", ")
            if len(cells) == n:
                row = dict(zip(self.fields, cells))
                with suppress(ValueError):  # a row torn by a restarted nvidia-smi
                    gpu = _gpu(row)
                    self.gpus[gpu[0]] = (_smi_time(row["timestamp"]), gpu)
        names = _HWMON_APPS_FIELDS.split(",")
        for line in self.apps_lines.lines():
            cells = line.split(", ", len(names) - 1)
            if len(cells) < len(names):
                continue
            row = dict(zip(names, cells))
            with suppress(ValueError):
                if row["timestamp"] != self.apps_stamp:  # an interval's rows share its time
                    self.apps_stamp, self.apps_time, self.apps = (
                        row["timestamp"], _smi_time(row["timestamp"]), [])
                self.apps.append(_app(row))
        for line in self.pmon_lines.lines() if self.pmon_lines is not None else ():
            cells = line.split()
            if line.startswith("#"):  # "#Date Time gpu pid type sm mem ..." (hwmon: -o DT)
                self.pmon_cols = _pmon_header(line) or self.pmon_cols
                continue
            c = self.pmon_cols
            if not c or "Date" not in c or "Time" not in c:
                continue
            with suppress(ValueError, IndexError):
                stamp = cells[c["Date"]] + " " + cells[c["Time"]]
                if stamp != self.pmon_stamp:  # an interval's rows share its second
                    self.pmon_stamp, self.pmon = stamp, []
                    self.pmon_time = datetime.strptime(stamp + "+0000",
                                                       "%Y%m%d %H:%M:%S%z").timestamp()
                row = _pmon_row(cells, c)
                if row is not None:
                    self.pmon.append(row)

    def _current(self, now):
        return [g for t, g in self.gpus.values() if t >= now - self.stale_s]

    def system(self, now):
        self._update()
        return _system_gpu(self._current(now))

    def tree(self, now, pids):
        self._update()
        if self.pmon_lines is not None:  # whole seconds: one more of slack
            return _pmon_gpu(self.pmon if self.pmon_time >= now - self.stale_s - 1 else [],
                             pids)
        apps = self.apps if self.apps_time >= now - self.stale_s else []
        return _pid_gpu(self._current(now), apps, pids)


class _NoGpu:
    def system(self, now):
        return _system_gpu([])

    def tree(self, now, pids):
        return _pid_gpu([], [], pids)


def _stop(mon, tmp):
    mon.stop()
    if tmp is not None:
        shutil.rmtree(tmp, ignore_errors=True)


class _Hwmon:
    """hwmon sampling into a run directory (a temporary one unless run_dir is given, removed on
    close()), and the waiting for its rows."""

    def __init__(self, interval, pid, children, no_gpu, nvidia_smi, run_dir, pss_every_sample):
        self.interval = interval = clamp_interval(interval, stacklevel=4)
        tmp = None
        if run_dir is None:
            tmp = tempfile.mkdtemp(prefix="runlog-resource-tracker-")
            run_dir = os.path.join(tmp, "run")
        self.dir = os.fspath(run_dir)
        # only what resource-tracker's columns need: PSS, the processes' GPU memory; no GPM,
        # health or NVML children
        args = ["--no-gpm", "--no-health", "--no-nvml"]
        if pid is not None:  # each process's GPU memory and SM share, as resource-tracker's
            args += ["--gpu-procs", "--pmon"]
        if pss_every_sample:
            args.append("--pss")
        self.mon = Monitor(self.dir, interval_sec=interval, no_gpu=no_gpu,
                           nvidia_smi=nvidia_smi, args=args, strict=True, children=children,
                           pid=pid, system=pid is None, exit_with_parent=True)
        self._finalizer = weakref.finalize(self, _stop, self.mon, tmp)
        self.files = []
        try:
            self.mon.start()
            self.proc = self.mon._proc  # ours to poll, also while another thread stops it
            self.gpu = self._gpu_rows()
        except BaseException:
            self.close()
            raise

    def _gpu_rows(self):
        with open(os.path.join(self.dir, RUNLOG_FILE)) as f:
            for line in f:
                e = json.loads(line)
                if e.get("event") == "start":
                    start = e.get("data") or {}
        if start.get("no_gpu") or not start.get("children"):
            return _NoGpu()  # no nvidia-smi: resource-tracker's zeros
        return _GpuRows(self, start["gpu_query_fields"], 2 * self.interval + 1,
                        pmon=bool(start.get("pmon")))

    def open(self, name, kind=_Table):
        """A reader of the run directory's file name, closed with the run."""
        f = kind(os.path.join(self.dir, name))
        self.files.append(f)
        return f

    def wait_rows(self, table, last_time):
        """table's new rows; when there are none, waits for the next (due one interval after
        last_time; None: the first row, which hwmon samples as it starts: looked for at once);
        [] once hwmon has ended and left none."""
        rows = table.rows()
        step = 0.002
        while not rows:
            if self.proc.poll() is not None:
                return table.rows()  # what it wrote before it ended
            due = 0 if last_time is None else last_time + self.interval + 0.003 - time.time()
            if due > 0:
                time.sleep(due)
            else:  # late: look again soon, less often the later it gets
                time.sleep(step)
                step = min(step * 2, self.interval / 4, 0.1)
            rows = table.rows()
        return rows

    def close(self):
        self._finalizer()
        for f in self.files:
            f.close()


class _Terminated(BaseException):
    pass


def _raise_terminated(signum, frame):
    raise _Terminated()


@contextlib.contextmanager
def _sigterm_stops(tracker):
    """SIGTERM (multiprocessing's terminate()) stops hwmon and removes its directory before the
    process dies of it, as it would have without us; only where SIGTERM is left to its default."""
    own = (threading.current_thread() is threading.main_thread() and
           signal.getsignal(signal.SIGTERM) == signal.SIG_DFL)
    if own:
        signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        yield
    except _Terminated:
        if not own:
            raise
        tracker.stop()
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTERM)
    finally:
        if own:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _track(tracker, columns, output_file, print_header):
    """resource-tracker's start_tracking: a CSV row per interval until the tracked process
    exits, to output_file (replaced) or stdout."""
    f = None
    try:
        f = open(output_file, "w") if output_file else sys.stdout
        if tracker._hw is None:  # nothing to track (a process that is gone): an empty file,
            tracker.status = "exited"  # as resource-tracker's first row of zeros ends it
            return
        with _sigterm_stops(tracker):
            writer = csv.writer(f, quoting=csv.QUOTE_NONNUMERIC)
            if print_header:
                writer.writerow(columns)
                f.flush()
            while True:
                row = tracker.diff_stats()
                if tracker.status == "exited":
                    break
                writer.writerow([row[k] for k in columns])
                f.flush()
    finally:
        if output_file and f is not None:
            f.close()
        tracker.stop()


class _Tracker:
    """What resource-tracker's two trackers share: hwmon behind them (self._hw), rows of
    self._columns."""

    def __call__(self):
        """resource-tracker's dummy method: the class is callable."""

    @property
    def run_dir(self):
        """hwmon's run directory (temporary unless run_dir was given)."""
        return self._hw.dir

    def start_tracking(self, output_file=None, print_header=True):
        """A CSV row every interval, to output_file or stdout: a PidTracker's until the process
        exits (then hwmon is stopped, as by stop()), a SystemTracker's until it is stopped."""
        _track(self, self._columns, output_file, print_header)

    def stop(self):
        """Stop hwmon and remove its temporary run directory (again: nothing)."""
        if self._hw is not None:
            self._hw.close()


class PidTracker(_Tracker):
    """resource-tracker's PidTracker: a process (and its descendants unless children=False)
    every interval seconds, as CSV rows of PID_COLUMNS to stdout or output_file, until it exits.

    pid defaults to the process that imported this module (as in resource-tracker: a
    multiprocessing child started by fork tracks its parent). Keyword arguments of our own:
    nvidia_smi (path), no_gpu, run_dir (keep hwmon's run directory there), and
    pss_every_sample: read PSS at every sample, whatever it costs (the kernel walks the whole
    address space: milliseconds per GiB). By default hwmon reads it as often as 1% of a core
    allows, and pss is the latest value read.
    """

    _columns = PID_COLUMNS

    def __init__(self, pid=os.getpid(), interval=1, children=True, autostart=True,
                 output_file=None, *, nvidia_smi=None, no_gpu=False, run_dir=None,
                 pss_every_sample=False):
        self.pid = int(pid)
        self.status = "running"
        self.interval = interval
        self.cycle = 0
        self.children = children
        self.start_time = time.time()
        self._hw = None
        with _sigterm_stops(self) if autostart else contextlib.nullcontext():
            try:
                self._hw = _Hwmon(interval, self.pid, children, no_gpu, nvidia_smi, run_dir,
                                  pss_every_sample) if _alive(self.pid) else None
            except Exception as e:
                if _alive(self.pid):  # hwmon could not start: the job goes on, unmonitored
                    warnings.warn("runlog: PidTracker of %d: %s; nothing is tracked"
                                  % (self.pid, e), RuntimeWarning, stacklevel=2)
                self._hw = None
            if self._hw is None:
                # resource-tracker's tracker of a process that is gone (or that cannot be
                # tracked): get_pid_stats's zeros, and start_tracking writes nothing and ends
                self.stats = self._gone_stats()
                if autostart:
                    self.start_tracking(output_file)
                return
            self._proc = self._hw.open(_PROC_FILE)
            self._tree = self._hw.open(_TREE_FILE)
            self._pids = {self.pid}
            self._time, self._ticks = None, [0.0, 0.0]  # no row yet; ticks since the first
            self._pss = None  # kB, the latest hwmon read
            self.stats = self._next_stats()
            if self.stats is None:  # it exited before its first sample: nothing to write
                self.status = "exited"
                self.stats = self._gone_stats()
                self.stop()
            elif autostart:
                self.start_tracking(output_file)

    def _gone_stats(self):
        # what resource-tracker's get_pid_stats gives for a process that is gone
        return {"timestamp": time.time(), "pid": self.pid,
                "children": 0 if self.children else None, "utime": 0, "stime": 0, "pss": 0,
                "read_bytes": 0, "write_bytes": 0, **_pid_gpu([], [], ())}

    def _next_stats(self):
        """get_pid_stats's figures at hwmon's next row (its latest, when several are waiting),
        CPU ticks summed from the start; None once hwmon has ended."""
        last = None
        while last is None:
            rows = self._hw.wait_rows(self._proc, self._time)
            if not rows:
                return None
            c = self._proc.cols
            for r in rows:
                if r[c["edge"]] == "1":
                    continue  # a phase's edge sample: the cadence row after it covers it too
                t = _iso_time(r[c["timestamp"]])
                pss = _num(r[c["pss_mib"]])  # empty where hwmon did not read it
                if pss is not None:
                    self._pss = round(pss * 1024)
                if self._time is not None:
                    # percent of one core over the interval, back to ticks
                    dt = (t - self._time) * _HZ / 100
                    self._ticks[0] += (_num(r[c["usr_cpu_pct"]]) or 0) * dt
                    self._ticks[1] += (_num(r[c["sys_cpu_pct"]]) or 0) * dt
                self._time, last = t, r
        if self.children:
            for r in self._tree.rows():
                tc = self._tree.cols
                pid = int(r[tc["pid"]])
                if r[tc["in_tree"]] == "1":
                    self._pids.add(pid)
                else:
                    self._pids.discard(pid)
        # empty in the row read after the job exited: none left, as _gone_stats says
        procs = _num(last[c["procs"]]) or 1
        return {"timestamp": self._time, "pid": self.pid,
                "children": int(procs) - 1 if self.children else None,
                "utime": round(self._ticks[0]), "stime": round(self._ticks[1]),
                "pss": self._pss,
                "read_bytes": int(last[c["read_bytes"]] or 0),
                "write_bytes": int(last[c["write_bytes"]] or 0),
                **self._hw.gpu.tree(self._time, self._pids)}

    def diff_stats(self):
        """The row since the last call (resource-tracker's): waits for hwmon's next sample."""
        last_stats = self.stats
        stats = self._next_stats() if self.status == "running" and self._hw else None
        if stats is None:
            self.status = "exited"
            stats = self._gone_stats()
        self.stats = stats
        self.cycle += 1
        dt = stats["timestamp"] - last_stats["timestamp"]
        return {
            "timestamp": stats["timestamp"],
            "pid": self.pid,
            "children": stats["children"],
            "utime": max(0, stats["utime"] - last_stats["utime"]),
            "stime": max(0, stats["stime"] - last_stats["stime"]),
            "cpu_usage": round(max(0, (stats["utime"] + stats["stime"] - last_stats["utime"] -
                                       last_stats["stime"]) / dt / _HZ), 4) if dt > 0 else 0,
            "pss": stats["pss"],
            "read_bytes": max(0, stats["read_bytes"] - last_stats["read_bytes"]),
            "write_bytes": max(0, stats["write_bytes"] - last_stats["write_bytes"]),
            "gpu_usage": stats["gpu_usage"],
            "gpu_vram": stats["gpu_vram"],
            "gpu_utilized": stats["gpu_utilized"],
        }



class SystemTracker(_Tracker):
    """resource-tracker's SystemTracker: the whole system every interval seconds, as CSV rows
    of SYSTEM_COLUMNS to stdout or output_file, until stopped (a signal, stop() from another
    thread). Keyword arguments of our own: nvidia_smi (path), no_gpu, run_dir.
    """

    _columns = SYSTEM_COLUMNS

    def __init__(self, interval=1, autostart=True, output_file=None, *, nvidia_smi=None,
                 no_gpu=False, run_dir=None):
        self.status = "running"
        self.interval = interval
        self.cycle = 0
        self.start_time = time.time()
        self._hw = None
        self.sector_sizes = _sector_sizes()
        with _sigterm_stops(self) if autostart else contextlib.nullcontext():
            try:
                self._hw = _Hwmon(interval, None, True, no_gpu, nvidia_smi, run_dir, False)
            except Exception as e:  # the job goes on, untracked: a tracker never raises into it
                warnings.warn("runlog: SystemTracker: %s; nothing is tracked" % e,
                              RuntimeWarning, stacklevel=2)
                self.status, self.stats = "exited", None
                if autostart:
                    self.start_tracking(output_file)
                return
            self._cpu = self._hw.open(_CPU_FILE)
            self._mounts = _mount_points()[0]  # once: reading /proc/mounts is not free
            self._time, self._rows = self.start_time, False
            self._sums = dict.fromkeys(("disk_read_bytes", "disk_write_bytes",
                                        "net_rx_bytes", "net_tx_bytes"), 0)
            self.stats = self._next_stats()
            if self.stats is None:
                warnings.warn("runlog: SystemTracker: hwmon ended before its first sample; "
                              "nothing is tracked", RuntimeWarning, stacklevel=2)
                self.status = "exited"
                self.stop()
                return
            if autostart:
                self.start_tracking(output_file)

    def _next_stats(self):
        """The system's figures at hwmon's next row (counters summed from the start); None
        once hwmon has ended."""
        last = None
        while last is None:
            rows = self._hw.wait_rows(self._cpu, self._time if self._rows else None)
            if not rows:
                return None
            c = self._cpu.cols
            for r in rows:
                if r[c["edge"]] == "1":
                    continue
                self._time, last = _iso_time(r[c["timestamp"]]), r
                self._rows = True
                for k in self._sums:  # bytes since hwmon's previous row
                    self._sums[k] += int(r[c[k]] or 0)
        self._stat_time = time.monotonic()  # /proc/stat's ticks are read now
        processes, utime, stime = _proc_stat()

        def kb(*names):
            v = [_num(last[c[n]]) for n in names]
            return None if None in v else round((v[0] - sum(v[1:])) * 1024)
        spaces = _disk_spaces(self._mounts)
        return {"timestamp": self._time, "processes": processes, "utime": utime,
                "stime": stime, "memory_free": kb("mem_free_mib"),
                "memory_used": kb("mem_total_mib", "mem_free_mib", "mem_buffers_mib",
                                  "mem_cached_mib"),
                "memory_buffers": kb("mem_buffers_mib"), "memory_cached": kb("mem_cached_mib"),
                "memory_active_anon": kb("mem_active_anon_mib"),
                "memory_inactive_anon": kb("mem_inactive_anon_mib"),
                "disk_read_bytes": self._sums["disk_read_bytes"],
                "disk_write_bytes": self._sums["disk_write_bytes"],
                "disk_spaces": spaces,
                "net_recv_bytes": self._sums["net_rx_bytes"],
                "net_sent_bytes": self._sums["net_tx_bytes"],
                **self._hw.gpu.system(self._time)}

    def diff_stats(self):
        """The row since the last call (resource-tracker's): waits for hwmon's next sample.
        None once stopped."""
        if self.status != "running":
            return None
        last_stats, last_stat_time = self.stats, self._stat_time
        stats = self._next_stats()
        if stats is None:  # hwmon was stopped: nothing more to give
            self.status = "exited"
            return None
        self.stats = stats
        self.cycle += 1
        dt = self._stat_time - last_stat_time
        spaces = stats["disk_spaces"].values()
        return {
            "timestamp": stats["timestamp"],
            "processes": stats["processes"],
            "utime": max(0, stats["utime"] - last_stats["utime"]),
            "stime": max(0, stats["stime"] - last_stats["stime"]),
            "cpu_usage": round(max(0, (stats["utime"] + stats["stime"] - last_stats["utime"] -
                                       last_stats["stime"]) / dt / _HZ), 4) if dt > 0 else 0,
            "memory_free": stats["memory_free"],
            "memory_used": stats["memory_used"],
            "memory_buffers": stats["memory_buffers"],
            "memory_cached": stats["memory_cached"],
            "memory_active_anon": stats["memory_active_anon"],
            "memory_inactive_anon": stats["memory_inactive_anon"],
            "disk_read_bytes": stats["disk_read_bytes"] - last_stats["disk_read_bytes"],
            "disk_write_bytes": stats["disk_write_bytes"] - last_stats["disk_write_bytes"],
            "disk_space_total_gb": round(sum(s["total"] for s in spaces) / 1024 ** 3, 2),
            "disk_space_used_gb": round(sum(s["used"] for s in spaces) / 1024 ** 3, 2),
            "disk_space_free_gb": round(sum(s["free"] for s in spaces) / 1024 ** 3, 2),
            "net_recv_bytes": stats["net_recv_bytes"] - last_stats["net_recv_bytes"],
            "net_sent_bytes": stats["net_sent_bytes"] - last_stats["net_sent_bytes"],
            "gpu_usage": stats["gpu_usage"],
            "gpu_vram": stats["gpu_vram"],
            "gpu_utilized": stats["gpu_utilized"],
        }

