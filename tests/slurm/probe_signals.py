#!/usr/bin/python3
"""Logs, as JSON lines appended to LOG, every SIGTERM/SIGINT/SIGCONT/SIGUSR1/SIGHUP/SIGUSR2 this
process gets: when, si_code, the sender (pid, comm, cmdline), this process's pid/ppid/pgid/sid,
its parent's comm, and (first SIGTERM only) the JobState `scontrol show job` prints then.

    probe_signals.py LOG ROLE [--children] [--srun] [--env] [--on-term=ignore|exit0]

--children: also start, each running this probe: ROLE.child (same process group), which starts
ROLE.grandchild; ROLE.pgchild (setpgid: a process group of its own); ROLE.sidchild (setsid). --srun: also `srun -n1` this probe as ROLE.srunstep.
--env (implied by --children): log the SLURM_* environment at start.
Each probe logs "alive" every 0.2 s until it dies (the last one dates a SIGKILL);
--on-term=exit0 makes it exit 0 at its first SIGTERM. It runs until killed (at most an hour).
Not a test: tests/slurm/probe_run.sh uses it to measure what FINDINGS.md says.
"""
import json
import os
import signal
import subprocess
import sys
import threading
import time

SIGS = [signal.SIGTERM, signal.SIGINT, signal.SIGCONT, signal.SIGUSR1, signal.SIGHUP,
        signal.SIGUSR2]
# Block before anything else: a signal that comes while we start is queued, not lost.
signal.pthread_sigmask(signal.SIG_BLOCK, SIGS)

log_path, role = sys.argv[1], sys.argv[2]
opts = sys.argv[3:]
on_term = next((o.split("=", 1)[1] for o in opts if o.startswith("--on-term=")), "ignore")
CODES = {0: "SI_USER", 0x80: "SI_KERNEL", -1: "SI_QUEUE", -6: "SI_TKILL", -2: "SI_TIMER"}


def read(path):
    try:
        with open(path, "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return None


def log(**kv):
    me = os.getpid()
    ppid = os.getppid()
    rec = {"t": round(time.time(), 3), "role": role, "pid": me, "ppid": ppid,
           "pgid": os.getpgid(0), "sid": os.getsid(0), "parent_comm": read(f"/proc/{ppid}/comm")}
    rec.update(kv)
    fd = os.open(log_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    os.write(fd, (json.dumps(rec) + "\n").encode())   # one write: lines of probes never mix
    os.close(fd)


def start(sub, how):
    kw = {}
    if how == "pg":
        kw["process_group"] = 0
    elif how == "sid":
        kw["start_new_session"] = True
    # The child unblocks nothing: it blocks the same signals first thing and waits for them.
    args = [sys.executable, os.path.abspath(__file__), log_path, f"{role}.{sub}"]
    args += [o for o in opts if o.startswith("--on-term=")]
    if sub == "child":
        args.append("--grandchild")
    return subprocess.Popen(args, **kw)


env = {k: v for k, v in os.environ.items() if k.startswith(("SLURM", "SLURMD", "CUDA", "GPU"))}
log(event="start", env=env if {"--children", "--env"} & set(opts) else None)
kids = []
if "--children" in opts:
    kids = [start("child", "same"), start("pgchild", "pg"), start("sidchild", "sid")]
if "--srun" in opts:   # a step beside the batch script: srun started by it
    kids.append(subprocess.Popen(["srun", "-n1", sys.executable, os.path.abspath(__file__),
                                  log_path, f"{role}.srunstep", "--env"]
                                 + [o for o in opts if o.startswith("--on-term=")]))
if "--grandchild" in opts:
    kids = [subprocess.Popen([sys.executable, os.path.abspath(__file__), log_path,
                              role.rsplit(".", 1)[0] + ".grandchild"]
                             + [o for o in opts if o.startswith("--on-term=")])]
# Reap children quietly (their death is in their own log lines).
threading.Thread(target=lambda: [k.wait() for k in kids], daemon=True).start()

termed = False


def heartbeat():   # from start: the last "alive" dates the probe's death (SIGKILL)
    while True:
        time.sleep(0.2)
        log(event="alive")


threading.Thread(target=heartbeat, daemon=True).start()

deadline = time.time() + 3600
while time.time() < deadline:
    info = signal.sigtimedwait(SIGS, 1.0)
    if info is None:
        continue
    sender = info.si_pid
    rec = dict(event="signal", sig=signal.Signals(info.si_signo).name,
               si_code=CODES.get(info.si_code, info.si_code), si_pid=sender, si_uid=info.si_uid,
               sender_comm=read(f"/proc/{sender}/comm") if sender else None,
               sender_cmdline=read(f"/proc/{sender}/cmdline") if sender else None)
    if info.si_signo == signal.SIGTERM and not termed:
        termed = True
        job = os.environ.get("SLURM_JOB_ID")
        if job:
            try:
                out = subprocess.run(["scontrol", "show", "job", "-o", job], capture_output=True,
                                     text=True, timeout=5).stdout
                rec["job_state"] = next((w.split("=", 1)[1] for w in out.split()
                                         if w.startswith("JobState=")), out.strip()[:200])
                rec["job_reason"] = next((w.split("=", 1)[1] for w in out.split()
                                          if w.startswith("Reason=")), None)
            except Exception as e:   # noqa: BLE001 (a probe: record, do not die)
                rec["job_state"] = f"scontrol failed: {e}"
        log(**rec)
        if on_term == "exit0":
            log(event="exit0")
            sys.exit(0)
    else:
        log(**rec)
