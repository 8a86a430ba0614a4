"""hwmon on a real NVIDIA GPU: one line per check, then a verdict (see check.sh, which sets
the bundle's PATH, RUNLOG_LIBRARY and PYTHONPATH, and README.md's "On a real GPU").

Each line is `ok|FAIL|skip  NAME: what was seen`. Exit 0 when nothing failed, 1 otherwise.
Everything it ran and read stays in the output folder (the first argument), so that a run on a
lent machine can be brought back and its captures turned into test data.
"""
import concurrent.futures
import datetime
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

OUT = os.path.abspath(sys.argv[1])
HERE = os.path.dirname(os.path.abspath(__file__))
RESULTS = []
SCALE = float(os.environ.get("GPUCHECK_SCALE", "1"))  # load.py's too
# the files a full run writes on a GPU with GPM and NVML; each must parse without a bad cell
RUN_FILES = ["hw_metrics.csv", "hw_dmon.csv", "hw_gpm.csv", "hw_health.csv", "hw_energy.csv",
             "hw_pmon.csv", "gpu_procs.csv", "cpu_metrics.csv", "proc_metrics.csv"]


def say(state, name, detail):
    RESULTS.append(state)
    # one line per check, whatever the detail holds (a process list, a tool's message)
    detail = " | ".join(x.strip() for x in str(detail).splitlines() if x.strip())
    print("%-4s  %s: %s" % (state, name, detail), flush=True)


def check(name, ok, detail):
    say("ok" if ok else "FAIL", name, detail)
    return ok


def run(argv, timeout=60, **kw):
    t = time.monotonic()
    try:
        p = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, **kw)
        return p.returncode, p.stdout, p.stderr, time.monotonic() - t
    except subprocess.TimeoutExpired as e:
        return None, e.stdout or "", "timed out after %g s" % timeout, time.monotonic() - t
    except OSError as e:
        return None, "", str(e), time.monotonic() - t


def save(name, text):
    with open(os.path.join(OUT, name), "w") as f:
        f.write(text)


def smi_checks():
    smi = shutil.which("nvidia-smi")
    if not check("nvidia-smi", smi is not None, smi or "not on PATH"):
        return None
    rc, out, err, dt = run([smi, "--version"])
    save("smi-version.txt", out + err)
    driver = re.search(r"DRIVER version\s*:\s*(\S+)", out)
    check("smi_version", rc == 0 and driver is not None,
          "driver %s, answered in %.2f s" % (driver.group(1) if driver else "?", dt))
    rc, out, err, dt = run([smi, "-L"])
    save("smi-L.txt", out + err)
    gpus = [l for l in out.splitlines() if l.startswith("GPU ")]
    check("smi_list", rc == 0 and gpus, "%d GPU(s) in %.2f s: %s" % (len(gpus), dt,
                                                                   gpus[0] if gpus else err))
    rc, out, err, _ = run([smi, "-q"])
    save("smi-q.txt", out + err)
    return smi


def field_checks(smi):
    """Every --query-gpu field the driver lists, asked alone: which it takes, and the values
    (kept in query-fields.tsv, the material for a faithful fake)."""
    rc, helptext, err, _ = run([smi, "--help-query-gpu"])
    save("help-query-gpu.txt", helptext + err)
    names = []
    for line in helptext.splitlines():
        m = re.match(r'^"([A-Za-z0-9_.]+)"', line)
        if m and m.group(1) not in names:
            names.append(m.group(1))
    if not check("query_fields_listed", rc == 0 and names, "%d fields in --help-query-gpu"
                 % len(names)):
        return set()

    def ask(f):
        return f, run([smi, "--query-gpu=" + f, "--format=csv,noheader,nounits"], timeout=30)

    t = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(ask, names))
    taken, rejected = set(), []
    rows = []
    for f, (rc, out, err, _) in answers:
        (taken.add(f) if rc == 0 else rejected.append(f))
        rows.append("%s\t%s\t%s" % (f, rc, (out if rc == 0 else err).strip().replace("\n", " | ")))
    save("query-fields.tsv", "\n".join(rows) + "\n")
    check("query_fields", taken, "%d of %d taken alone in %.1f s; rejected: %s"
          % (len(taken), len(names), time.monotonic() - t, ", ".join(rejected) or "none"))
    return taken


def load_jsonl(path):
    entries = []
    with open(path) as f:
        for line in f:
            try:
                entries.append(json.loads(line))
            except ValueError:
                entries.append(None)
    return entries


def event(entries, name):
    return [e for e in entries if e and e.get("type") == "event" and e.get("event") == name]


def live_words(line):
    return dict(w.split("=", 1) for w in line.split()[1:] if "=" in w)


def live_checks(text, rc, work):
    """summarize --live's lines on the real GPU: running while it ran, every GPU's utilization
    and power read, the matmul phase seen busy, and the final status."""
    lines = [live_words(l) for l in text.splitlines() if " status=" in l]
    running = [w for w in lines if w.get("status") == "running" and "gpu_util_pct" in w]
    numeric = [w for w in running if all(re.fullmatch(r"\d+", u) for u in
                                         w["gpu_util_pct"].split(",")) and
               all(re.fullmatch(r"[\d.]+", p) for p in w.get("gpu_power_w", "-").split(","))]
    check("live_running", rc == 0 and len(numeric) >= 3,
          "%d of %d lines running with every GPU's utilization and power; exit %s"
          % (len(numeric), len(lines), rc))
    busy = [max(int(u) for u in w["gpu_util_pct"].split(",")) for w in numeric
            if w.get("phase") == "matmul"]
    if not work or work.get("data", {}).get("why"):
        say("skip", "live_matmul", "no load ran: %s" % (work.get("data", {}).get("why")
                                                        if work else "no workload event"))
    elif busy:
        check("live_matmul", max(busy) >= 50, "during matmul the view showed up to %d %% "
              "utilization (%d lines)" % (max(busy), len(busy)))
    else:
        say("skip", "live_matmul", "no line in the matmul phase (no PyTorch, or too short)")
    check("live_final", lines and lines[-1].get("status") == "ok",
          "last line: status=%s" % (lines[-1].get("status") if lines else None))


class PromWatch:
    """Copies the live Prometheus textfile while the run goes on (hwmon removes it when it
    stops): the last copy, and the one with the most power, are kept for prom_checks."""

    def __init__(self, folder):
        import threading
        self.folder, self.last, self.busiest, self.best_w = folder, None, None, -1.0
        self.done = threading.Event()
        self.thread = threading.Thread(target=self.watch, daemon=True)
        self.thread.start()

    def watch(self):
        while not self.done.wait(0.5):
            for name in sorted(os.listdir(self.folder)) if os.path.isdir(self.folder) else []:
                if not name.endswith(".prom"):
                    continue
                try:
                    with open(os.path.join(self.folder, name)) as f:
                        text = f.read()
                except OSError:
                    continue
                self.last = text
                w = prom_values(text).get("hwrun_gpu_power_watts") or [-1.0]
                if max(w) > self.best_w:
                    self.best_w, self.busiest = max(w), text

    def stop(self):
        self.done.set()
        self.thread.join()


PROM_LINE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})? (\S+)$')


def prom_values(text):
    """{family: [values]} of a Prometheus text file; a line that is not a sample or a comment
    is kept under None."""
    got = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = PROM_LINE.match(line)
        try:
            got.setdefault(m.group(1), []).append(float(m.group(3)))
        except (AttributeError, ValueError):
            got.setdefault(None, []).append(line)
    return got


def prom_checks(watch, folder):
    """The live export on the real GPU: every line a sample, the GPU's families there with
    values in range (health ones from hw_health.csv included), and no file left at the end."""
    if not check("prom_live", watch.busiest is not None, "%s copy of the textfile during the run"
                 % ("a" if watch.busiest else "no")):
        return
    save("live.prom", watch.busiest)
    v = prom_values(watch.busiest)
    check("prom_lines", None not in v, "%d families, every line a sample%s" % (
        len(v) - (None in v), "" if None not in v else "; not: %r" % v[None][:3]))
    want = {  # family: the least a working H100/H200 shows under the check's load
        "hwrun_gpu_power_watts": 50, "hwrun_gpu_power_limit_watts": 100,
        "hwrun_gpu_memory_total_bytes": 8e9, "hwrun_gpu_sm_clock_hertz": 1e8,
        "hwrun_gpu_sm_clock_max_hertz": 5e8, "hwrun_gpu_temperature_celsius": 10,
        "hwrun_gpu_pcie_link_generation_max": 1, "hwrun_gpu_pcie_link_width_max": 1,
        "hwrun_gpu_energy_joules_total": 1}
    low = {k: v.get(k) for k, least in want.items() if not v.get(k) or min(v[k]) < least}
    check("prom_gpu", not low, "%d GPU families in range (power %s W, limit %s W)" % (
        len(want), v.get("hwrun_gpu_power_watts"), v.get("hwrun_gpu_power_limit_watts"))
        if not low else "missing or low: %s" % json.dumps(low))
    left = [n for n in os.listdir(folder) if n.endswith(".prom")] if os.path.isdir(folder) else []
    check("prom_removed", not left, "left after the run: %s" % left if left else
          "the textfile was removed when hwmon stopped")


def live_energy_check(s):
    """summarize --live's last line, on the finished run, says the summary's energy: the same
    rule (the energy counter where there is one) over the same rows."""
    try:
        with open(os.path.join(OUT, "live.txt")) as f:
            lines = [live_words(l) for l in f if " status=" in l]
    except OSError:
        lines = []
    last = lines[-1].get("gpu_energy_wh", "-").split(",") if lines else []
    want = [g.get("energy_wh") for g in s.get("gpus") or []]
    try:
        got = [float(x) for x in last]
    except ValueError:
        got = []
    check("live_energy", got and len(got) == len(want) and
          all(w is not None and abs(g - w) <= 1e-3 * w for g, w in zip(got, want)),
          "the live view's last line %s Wh, the summary's %s Wh (%s)" % (
              ",".join(last) or "-", ",".join("%.4g" % w for w in want if w is not None),
              ",".join(g.get("energy_source") or "-" for g in s.get("gpus") or [])))


def monitored_run(taken):
    rundir = os.path.join(OUT, "run")
    promdir = os.path.join(OUT, "prom")
    os.makedirs(promdir, exist_ok=True)
    argv = ["hwmon", "-q", "-i", "0.5", "--pmon", "--gpu-procs", "--prom-textfile", promdir,
            "--prom-interval", "1", "-o", rundir, "--",
            sys.executable, os.path.join(HERE, "load.py")]
    launched = time.time()
    watch = PromWatch(promdir)
    # summarize --live beside it, as a user watching over SSH would (piped: one line a second,
    # ending by itself once the run has ended); it starts before the run directory exists
    live = subprocess.Popen(["summarize", "--live", "--refresh", "1", rundir],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    rc, out, err, dt = run(argv, timeout=120)
    watch.stop()
    try:
        live_out = live.communicate(timeout=30)[0]
    except subprocess.TimeoutExpired:
        live.kill()
        live_out = live.communicate()[0] + "\n(still running 30 s after the run)"
    save("live.txt", live_out)
    save("hwmon-stderr.txt", err)
    check("hwmon_run", rc == 0, "exit %s after %.1f s%s" % (rc, dt, ("; " + err.strip()[-300:])
                                                              if rc != 0 and err else ""))
    prom_checks(watch, promdir)
    if not os.path.exists(os.path.join(rundir, "run.jsonl")):
        return None
    entries = load_jsonl(os.path.join(rundir, "run.jsonl"))
    check("run_jsonl", None not in entries, "%d whole JSON lines" % len(entries))
    start = (event(entries, "start") or [{}])[0].get("data", {})
    work = (event(entries, "workload") or [{}])[0]
    live_checks(live_out, live.returncode, work)
    first = (event(entries, "workload_start") or [{}])[0]
    if first and entries[0]:
        def at(e):
            return datetime.datetime.fromisoformat(e["ts"]).timestamp()
        probes, job = at(entries[0]) - launched, at(first) - at(entries[0])
        check("start_delay", probes < 2 and job < 2, "hwmon's start event %.2f s after its"
              " launch (nvidia-smi's probes), the job's first line %.2f s after that"
              % (probes, job))
    check("gpu_source", start.get("gpu_source") == "nvidia-smi", "the start event's gpu_source:"
          " %s (found by itself)" % start.get("gpu_source"))
    wanted = [f for k in ("gpu_query_fields", "health_fields") for f in
              (start.get(k) or "").split(",") if f]
    missing = [f for f in wanted if f not in taken]
    check("hwmon_fields", wanted and not missing, "%d fields asked for, all taken by the driver"
          % len(wanted) if not missing else "not taken: " + ", ".join(missing))
    for name in ("gpu_unavailable", "gpu_fields_fallback"):
        got = event(entries, name)
        check("no_" + name, not got, json.dumps([e.get("data") for e in got])[:300] if got
              else "none")
    gpm = event(entries, "gpm_unavailable")
    if gpm:
        say("skip", "gpm", "this GPU reports no GPM metrics, as hwmon found: %s"
            % json.dumps(gpm[0].get("data"))[:200])
    return rundir, entries, start, work


def phase_cover_check(s, entries):
    # each phase's GPU energy spans all of it (energy_covered_sec), but for what passed before
    # the GPUs were first read (the start event: nvidia-smi's probes, beside the job) and the
    # cadence's last interval (1.25 intervals of 0.5 s)
    def at(ts):
        return datetime.datetime.fromisoformat(ts).timestamp()
    st = event(entries, "start")
    first_read = at(st[0]["ts"]) if st else None
    bad, said = [], []
    for p in s.get("phases") or []:
        cov, secs = p.get("energy_covered_sec"), p.get("seconds")
        before = max(0.0, first_read - at(p["start"])) if first_read and p.get("start") else 0
        said.append("%s %s/%s s" % (p.get("name"), cov, secs))
        if cov is None or secs is None or cov > secs + 0.001 or \
           secs - cov > min(secs, before) + 1.25 * 0.5 + 0.05:
            bad.append(p.get("name"))
    check("phase_cover", said and not bad, "GPU energy over the phases' seconds: %s%s"
          % (", ".join(said), "; short: " + ", ".join(map(str, bad)) if bad else ""))


def summary_checks(rundir, entries, start, work):
    rc, out, err, dt = run(["summarize", "-f", "json", rundir], timeout=120)
    save("summary.json", out)
    save("summarize-stderr.txt", err)
    if not check("summarize", rc == 0, "exit %s in %.2f s" % (rc, dt)):
        return
    s = json.loads(out)
    rc, text, err, _ = run(["summarize", "-f", "text", rundir])
    save("summary.txt", text + err)
    check("status", s["status"] == "ok", "%s (%s)" % (s["status"], s["outcome"].get("reason")))
    check("events", s["events"]["errors_total"] == 0, "%d error-like events: %s" % (
        s["events"]["errors_total"], json.dumps(s["events"]["errors"])[:300]))
    files = s["quality"]["files"]
    gpm_off = any(e and e.get("event") == "gpm_unavailable" for e in entries)
    for name in RUN_FILES:
        if name == "hw_gpm.csv" and gpm_off and not (files.get(name) or {}).get("present"):
            say("skip", "file " + name, "no GPM on this GPU")
            continue
        q = files.get(name) or {}
        if name == "gpu_procs.csv" and not q.get("parsed") and not work.get("data", {}).get("load"):
            say("skip", "file " + name, "no process used the GPU (no load)")
            continue
        bad = {k: q.get(k) for k in ("bad_cells", "torn_lines", "skipped_total") if q.get(k)}
        check("file " + name, q.get("present") and q.get("parsed") and not bad,
              "%s rows, placeholders %s%s" % (q.get("parsed"), json.dumps(q.get("placeholders")),
                                              ", " + json.dumps(bad) if bad else "")
              if q.get("present") else "absent")
    gpus = s.get("gpus") or []
    if not check("gpus", gpus, "%d GPU(s) summarized" % len(gpus)):
        return
    g = gpus[0]
    c, i = g.get("energy_counter_wh"), g.get("energy_integrated_wh")
    if c is None or i is None:
        check("energy_counter", False, "counter %s Wh, integrated %s Wh" % (c, i))
    else:
        check("energy_counter", i > 0 and 0.85 < c / i < 1.15,
              "NVML counter %.4f Wh, power integrated %.4f Wh (ratio %s)"
              % (c, i, "%.3f" % (c / i) if i else "none"))
    live_energy_check(s)
    phases = {p["name"]: p for p in s.get("phases") or []}
    sh = phases.get("short")
    check("short_phase", sh and abs(sh["seconds"] - 0.5) < 0.2,
          "the 0.5 s phase: %s s" % (sh and sh["seconds"]))
    phase_cover_check(s, entries)
    if not work.get("data", {}).get("load"):
        say("skip", "load_figures", work.get("data", {}).get("why") or "no workload event")
        return

    def pg(name, key):
        p = phases.get(name) or {}
        for x in p.get("gpus") or []:
            if x.get("index") == g["index"]:
                v = x.get(key)
                return v.get("mean") if isinstance(v, dict) else v
        return None
    u, p_mm, p_idle = pg("matmul", "util_pct"), pg("matmul", "power_w"), pg("idle", "power_w")
    check("matmul_util", u is not None and u >= 50, "GPU utilization in matmul: %s %%" % u)
    check("matmul_power", None not in (p_mm, p_idle) and p_mm > p_idle + 50,
          "power: idle %s W, matmul %s W" % (p_idle, p_mm))
    hold = work["data"]["hold_gib"] * 1024
    peak = s.get("peak_vram_mib")
    check("peak_vram", peak is not None and peak >= hold, "peak %s MiB, held %d MiB" % (peak, hold))
    gpm = (g.get("gpm") or {}).get("tensor_active_pct") or {}
    if gpm_off:
        say("skip", "gpm_tensor", "no GPM on this GPU")
    else:
        check("gpm_tensor", (gpm.get("max") or 0) > 10,
              "tensor-core activity max %s %%" % gpm.get("max"))
    pid = str(work["data"]["pid"])
    seen = []
    for name, col in (("gpu_procs.csv", 2), ("hw_pmon.csv", None)):
        path = os.path.join(rundir, name)
        if os.path.exists(path):
            with open(path, newline="") as f:
                text = f.read()
            seen.append("%s: %s" % (name, "yes" if re.search(r"(^|[ ,])%s([ ,]|$)" % pid, text,
                                                              re.M) else "no"))
    check("job_on_gpu", seen and all(x.endswith("yes") for x in seen),
          "the workload's pid %s in %s" % (pid, "; ".join(seen)))


def tagged_processes(tag):
    """The live processes whose environment holds tag ("NAME=value"), as "pid command" lines."""
    found, want = [], b"\0" + tag.encode() + b"\0"
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/environ" % pid, "rb") as f:
                if want not in b"\0" + f.read() + b"\0":
                    continue
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace").strip()
        except OSError:  # gone meanwhile, or not ours to read
            continue
        if cmd:  # a zombie has no command line and holds nothing
            found.append("%s %s" % (pid, cmd))
    return "; ".join(found)


def stop_check():
    """SIGTERM mid-phase: the run says killed, and no nvidia-smi child outlives hwmon."""
    rundir = os.path.join(OUT, "stopped")
    # hwmon's children carry this in their environment: a leftover is one of them, not another
    # user's nvidia-smi (a node's DCGM, another test running beside this one)
    tag = "GPUCHECK_STOP_TAG=%d.%d" % (os.getpid(), time.monotonic_ns())
    p = subprocess.Popen(["hwmon", "-q", "-i", "0.5", "--pmon", "-o", rundir, "--",
                          sys.executable, os.path.join(HERE, "load.py")],
                         env=dict(os.environ, **dict([tag.split("=", 1)])),
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    time.sleep(8 * SCALE)
    p.send_signal(signal.SIGTERM)
    try:
        _, err = p.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        p.kill()
        _, err = p.communicate()
    left = tagged_processes(tag)
    check("stop_no_leftovers", not left, "hwmon's processes left: %s" % left if left else
          "hwmon exited %s; none of its processes left" % p.returncode)
    rc, out, err2, _ = run(["summarize", "-f", "json", rundir])
    save("stopped-summary.json", out)
    s = json.loads(out) if rc == 0 else {}
    check("stop_status", s.get("status") == "killed", "%s (%s)" % (
        s.get("status"), (s.get("outcome") or {}).get("reason")))


ROTATE_JOB = '''import os, time, runlog
log = runlog.RunLog()
with log.phase("before"):
    time.sleep(1)
os.rename(os.environ["RUNLOG_FILE"], os.environ["RUNLOG_FILE"] + ".1")
with log.phase("after"):
    time.sleep(1)
'''


def rotation_check():
    """run.jsonl renamed by the job mid-run, as logrotate would (this machine's file system may
    lack O_TMPFILE): the Python RunLog makes it again, its first line naming the part, hwmon
    says log_rotated, and summarize reads both parts as one run."""
    rundir = os.path.join(OUT, "rotated")
    rc, _, err, _ = run(["hwmon", "-q", "--no-gpu", "-i", "0.5", "-o", rundir, "--",
                         sys.executable, "-c", ROTATE_JOB], timeout=60)
    first = (load_jsonl(os.path.join(rundir, "run.jsonl")) or [None])[0] or {}
    rc2, out, _, _ = run(["summarize", "-f", "json", rundir])
    s = json.loads(out) if rc2 == 0 else {}
    names = [p.get("name") for p in s.get("phases", [])]
    parts = (((s.get("quality") or {}).get("files") or {}).get("run.jsonl") or {}).get("parts")
    rotated = ((s.get("events") or {}).get("counts") or {}).get("log_rotated")
    check("log_rotation", rc == 0 and first.get("event") == "log_continued" and
          (first.get("data") or {}).get("previous") == "run.jsonl.1" and
          names == ["before", "after"] and parts == 1 and rotated == 1 and s.get("status") == "ok",
          "hwmon exit %s; first line %s; phases %s, parts %s, log_rotated %s, status %s%s"
          % (rc, first.get("event"), names, parts, rotated, s.get("status"),
             "" if rc == 0 else "; " + err.strip()[-200:]))


def amd_absent_check():
    """--gpu-source amd on this NVIDIA machine: the run goes on and says why it has no GPU."""
    rundir = os.path.join(OUT, "amd-absent")
    rc, _, err, _ = run(["hwmon", "-q", "--gpu-source", "amd", "-d", "1", "-o", rundir])
    got = event(load_jsonl(os.path.join(rundir, "run.jsonl")), "gpu_unavailable") \
        if os.path.exists(os.path.join(rundir, "run.jsonl")) else []
    check("amd_absent", rc == 0 and got and not os.path.exists(os.path.join(rundir,
                                                                           "hw_metrics.csv")),
          "hwmon exit %s; gpu_unavailable: %s" % (rc, json.dumps(got[0].get("data"))[:200]
                                                  if got else "none; " + err.strip()[-200:]))


def cost_check(seconds=15):
    """What hwmon and its nvidia-smi children cost on this driver with every default on: CPU
    time of the whole tree (hwmon reaps its children) over a system-mode run of `seconds`."""
    import resource
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    rc, _, err, dt = run(["hwmon", "-q", "-d", str(seconds), "-o", os.path.join(OUT, "cost")],
                         timeout=seconds + 60)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    check("cost", rc == 0 and cpu / dt < 0.05, "hwmon and its nvidia-smi children at 1 s: "
          "%.1f ms CPU per second (%.2f%% of a core) over %.1f s%s"
          % (1000 * cpu / dt, 100 * cpu / dt, dt, "" if rc == 0 else "; exit %s %s" % (rc, err)))


def main():
    os.makedirs(OUT, exist_ok=True)
    smi = smi_checks()
    if smi:
        taken = field_checks(smi)
        r = monitored_run(taken)
        if r:
            summary_checks(*r)
        stop_check()
        rotation_check()
        amd_absent_check()
        cost_check(max(2, round(15 * SCALE)))
    failed = RESULTS.count("FAIL")
    print("verdict: %s (%d ok, %d failed, %d skipped); files in %s" % (
        "PASS" if not failed else "FAIL", RESULTS.count("ok"), failed, RESULTS.count("skip"),
        OUT))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
