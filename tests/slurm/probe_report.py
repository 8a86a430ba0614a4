#!/usr/bin/python3
"""Prints what probe_signals.py logged: per probe, each signal (seconds after the last
driver mark before it, sender, si_code, JobState seen) and when it was last alive."""
import json
import sys

for path in sys.argv[1:]:
    recs = [json.loads(line) for line in open(path)]
    marks = [r for r in recs if r["event"] == "mark"]
    t0 = marks[0]["t"] if marks else recs[0]["t"]
    print(f"== {path}: " + "; ".join(f"+{m['t'] - t0:.2f}s {m['what']}" for m in marks))
    roles = []
    for r in recs:
        if "role" in r and r["role"] not in roles:
            roles.append(r["role"])
    for role in roles:
        rs = [r for r in recs if r.get("role") == role]
        st = next(r for r in rs if r["event"] == "start")
        print(f"  {role}: pid {st['pid']} ppid {st['ppid']} ({st['parent_comm']}) "
              f"pgid {st['pgid']} sid {st['sid']}")
        for r in rs:
            if r["event"] == "signal":
                extra = f" JobState={r['job_state']} Reason={r.get('job_reason')}" \
                    if "job_state" in r else ""
                print(f"    +{r['t'] - t0:7.3f}s {r['sig']:8} {r['si_code']:8} from "
                      f"{r['si_pid']} {r['sender_comm']!s:12} '{r['sender_cmdline']}'{extra}")
            elif r["event"] == "exit0":
                print(f"    +{r['t'] - t0:7.3f}s exit 0")
        alive = [r for r in rs if r["event"] == "alive"]
        if alive:
            print(f"    last alive +{alive[-1]['t'] - t0:.2f}s")
    envs = [r for r in recs if r.get("env")]
    for r in envs[:2]:
        print(f"  env of {r['role']}: " + " ".join(f"{k}={v}" for k, v in sorted(r["env"].items())))
