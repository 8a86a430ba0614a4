#!/usr/bin/env bash
# Issue 36's scenarios under a real one-node SLURM (cluster.sh), each one line `ok NAME` or
# `FAIL NAME: detail`; exit 1 if any failed.
#   scenarios.sh [HWMON SUMMARIZE FAKE_NVIDIA_SMI]
# (default: $HWRUN_HWMON_BIN, $HWRUN_SUMMARIZE_BIN, $HWRUN_FAKE_SMI, as CTest passes them).
#   a. cancel:   srun hwmon -- python3 job.py, scancel a few seconds in; the job's SIGTERM
#                handler takes 8 s to write its checkpoint (KillWait is 30 s): it runs once,
#                the checkpoint is complete, the run is killed by SIGTERM from the scheduler
#                (not SIGKILL) and counts no errors
#   b. steps:    a batch script with two srun steps and -o 'RUNS/{jobid}-{stepid}': two runs, ok
#   c. locks:    the jobs' GPU sampler lock files (/dev/shm/hwrun-gpu-<uid>-<job>-*.lock,
#                hwmon/nodelock.h) are there while a job runs and gone once it has ended
#   d. elsewhere: summarize in another UTS namespace (another host name) on job a's run while
#                it runs: running or unknown, never incomplete
#   e. limit:    a batch script `exec hwmon -o 'e/{jobid}.{stepid}' -- python3 sigjob.py` with
#                --time=1 --signal=B:USR1@45 (issue 51): USR1 reaches the job once from hwmon
#                (hwmon alive), then the time limit's SIGTERM once; the 2 s checkpoint completes;
#                the run's directory says batch; the outcome names the time limit (~2 minutes)
#   f. full:     the same batch layout, `scancel --signal=USR1 --full` (killpg of the batch
#                script's group, the job's with it): hwmon does not send it again (to_group),
#                then scancel: SIGTERM once, the checkpoint completes
#   cleanup:     cluster.sh stop leaves no process and no job cgroup of this cluster
# Exit 77 (skipped) only where SLURM's programs are not installed or this is not root, and
# not in CI (CI set: a failure).
# The cluster uses proctrack/cgroup, SLURM's usual plugin (HWRUN_SLURM_PROCTRACK: another one;
# with proctrack/linuxproc slurmstepd signals the job itself too, and hwmon, reading so in
# slurm.conf, does not send it again: the suite runs both, slurm.real and
# slurm.real_linuxproc).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)

hwmon=${1:-${HWRUN_HWMON_BIN:-}} summarize=${2:-${HWRUN_SUMMARIZE_BIN:-}}
smi=${3:-${HWRUN_FAKE_SMI:-}}
for b in "$hwmon" "$summarize" "$smi"; do
  [ -x "$b" ] || { echo "usage: $0 HWMON SUMMARIZE FAKE_NVIDIA_SMI (not executable: '$b')" >&2; exit 2; }
done
# the jobs run them from elsewhere
hwmon=$(realpath "$hwmon") summarize=$(realpath "$summarize") smi=$(realpath "$smi")

# Nothing may skip in CI (.ci/run sets CI): there a missing SLURM is a failure.
skip() {
  if [ -n "${CI:-}" ] && [ "$CI" != 0 ] && [ "$CI" != false ]; then echo "FAIL setup (CI set): $*"; exit 1; fi
  echo "SKIP: $*"; exit 77
}
[ "$(id -u)" = 0 ] || skip "needs root (cluster.sh runs SLURM with SlurmUser=root)"
for b in munged mungekey slurmctld slurmd sinfo srun sbatch scancel squeue scontrol; do
  command -v "$b" >/dev/null || skip "$b not installed (Debian's munge slurmctld slurmd slurm-client: .ci/install-deps)"
done
for b in python3 unshare; do
  command -v "$b" >/dev/null || { echo "FAIL setup: $b not installed"; exit 1; }
done

failed=0
ok() { echo "ok $1${2:+ ($2)}"; }
fail() { echo "FAIL $1: $2"; failed=1; }

# A run killed with SIGKILL (CTest's timeout) could not stop its cluster: stop those whose
# owner is gone (a directory without an owner yet is another run's, starting).
for d in "${TMPDIR:-/tmp}"/hwrun-slurm-scen.*; do
  [ -f "$d/owner" ] || continue
  p=$(cat "$d/owner")
  if ! tr '\0' ' ' 2>/dev/null < "/proc/$p/cmdline" | grep -q 'slurm/scenarios\.sh'; then
    echo "note: stopping the cluster of a run that was killed ($d)"
    "$here/cluster.sh" stop "$d" >&2 || true
    rm -rf "$d"
  fi
done

dir=$(mktemp -d "${TMPDIR:-/tmp}/hwrun-slurm-scen.XXXXXX")
echo $$ > "$dir/owner"
stopped=0
# shellcheck disable=SC2317 # (a trap)
cleanup() {
  if [ "$stopped" = 0 ]; then "$here/cluster.sh" stop "$dir" >&2 || true; fi
  rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP   # (the EXIT trap still stops the cluster)

t0=$SECONDS
"$here/cluster.sh" start "$dir" || { echo "FAIL setup: the cluster did not start"; exit 1; }
export SLURM_CONF=$dir/slurm.conf
cgv=v2
grep -q '^[^ ]* /sys/fs/cgroup/freezer cgroup ' /proc/mounts && cgv="v1 (freezer)"
echo "note: $(sinfo -V 2>&1), ${HWRUN_SLURM_PROCTRACK:-proctrack/cgroup}, cgroup $cgv"
# The jobs must not take this test's own SLURM_* (ctest run inside a job, or CTest's empty
# SLURM_JOB_ID=): only SLURM_CONF names the cluster.
for v in $(compgen -e); do
  case $v in SLURM_CONF) ;; SLURM_*) unset "$v" ;; esac
done
# no real NVML in a test; the GPUs are the fake nvidia-smi's
export HWMON_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1
cd "$dir" || exit 1
mkdir a runs

# json FILE EXPR: a value of summarize's JSON (python3 expression over d), printed
json() { python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }
job_state() { scontrol show job -o "$1" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p'; }
# wait until job $1 has left the queue (finished and cleaned up), at most $2 s
wait_gone() {
  for _ in $(seq $(($2 * 5))); do
    [ -z "$(squeue -h -j "$1" -o %i 2>/dev/null)" ] && return 0
    sleep 0.2
  done
  return 1
}
locks_of() { ls /dev/shm/hwrun-gpu-"$(id -u)"-"$1"-*.lock 2>/dev/null; }

# --- the jobs: a and b run side by side (one CPU each) ---------------------------------------
cat > a/job.py <<'EOF'
# Counts its SIGTERMs, then takes 8 s to write a checkpoint (complete only at the end), exits 0.
import os, signal, sys, time
d = sys.argv[1]
def on_term(sig, frame):
    with open(os.path.join(d, "sigterms"), "a") as f:
        f.write("%d %.3f\n" % (sig, time.time()))
    with open(os.path.join(d, "checkpoint.tmp"), "w") as f:
        for i in range(8):
            f.write("part %d\n" % i)
            f.flush()
            time.sleep(1)
        f.write("complete\n")
    os.rename(os.path.join(d, "checkpoint.tmp"), os.path.join(d, "checkpoint"))
    sys.exit(0)
signal.signal(signal.SIGTERM, on_term)
open(os.path.join(d, "started"), "w").close()
while True:
    time.sleep(0.1)
EOF
hw=("$hwmon" -q -i 0.2 --nvidia-smi "$smi")
joba=$(sbatch --parsable -J scen-a -o a/job.out \
       --wrap "srun -n1 ${hw[*]} -o $dir/a/run -- python3 $dir/a/job.py $dir/a") ||
  { echo "FAIL setup: sbatch (a)"; exit 1; }
joba=${joba%%;*}
cat > steps.sh <<EOF
#!/bin/bash
srun -n1 ${hw[*]} -o '$dir/runs/{jobid}-{stepid}' -- python3 -c 'import time; time.sleep(0.5)'
srun -n1 ${hw[*]} -o '$dir/runs/{jobid}-{stepid}' -- python3 -c 'import time; time.sleep(0.5)'
EOF
jobb=$(sbatch --parsable -J scen-b -o steps.out steps.sh) || { echo "FAIL setup: sbatch (b)"; exit 1; }
jobb=${jobb%%;*}

# e and f: a job that logs each USR1 and SIGTERM it dequeues with its sender, and on SIGTERM
# takes 2 s to write its checkpoint; hwmon is the batch step's task (exec). They start when a
# and b have left their CPUs.
mkdir e f
cat > sigjob.py <<'EOF'
import os, signal, sys, time
d = sys.argv[1]
sigs = {signal.SIGUSR1, signal.SIGTERM}
signal.pthread_sigmask(signal.SIG_BLOCK, sigs)
open(os.path.join(d, "started"), "w").close()
while True:
    i = signal.sigtimedwait(sigs, 0.1)
    if not i:
        continue
    name = "usr1" if i.si_signo == signal.SIGUSR1 else "sigterms"
    with open(os.path.join(d, name), "a") as f:
        f.write("%d %.3f\n" % (i.si_pid, time.time()))
    if i.si_signo == signal.SIGTERM:
        with open(os.path.join(d, "checkpoint.tmp"), "w") as f:
            for k in range(2):
                f.write("part %d\n" % k)
                f.flush()
                time.sleep(1)
            f.write("complete\n")
        os.rename(os.path.join(d, "checkpoint.tmp"), os.path.join(d, "checkpoint"))
        sys.exit(0)
EOF
for x in e f; do
  { echo '#!/bin/bash'
    [ $x = e ] && echo '#SBATCH --time=1 --signal=B:USR1@45'
    echo "exec ${hw[*]} -o '$dir/$x/{jobid}.{stepid}' -- python3 $dir/sigjob.py $dir/$x"
  } > $x.sh
done
jobe=$(sbatch --parsable -J scen-e -o e.out e.sh) || { echo "FAIL setup: sbatch (e)"; exit 1; }
jobe=${jobe%%;*}
jobf=$(sbatch --parsable -J scen-f -o f.out f.sh) || { echo "FAIL setup: sbatch (f)"; exit 1; }
jobf=${jobf%%;*}

# --- a: wait for job.py, then d while it runs, then scancel ----------------------------------
for _ in $(seq 150); do   # 30 s; the scheduler's first pass is ~3 s after slurmctld starts
  st=$(job_state "$joba")
  [ -e a/started ] && [ "$st" = RUNNING ] && break
  case $st in PENDING|CONFIGURING|RUNNING|"") ;; *) break ;; esac
  sleep 0.2
done
if [ ! -e a/started ]; then
  echo "FAIL cancel: job $joba never started its command (state $(job_state "$joba")): $(cat a/job.out 2>/dev/null)"
  exit 1
fi
sleep 2   # a few seconds in: samples written, the run's files growing
locks_during=$(locks_of "$joba")

# d: another host name (UTS namespace) on a run still in progress
"$summarize" -q -f json a/run > d_here.json 2> d_here.err
here_status=$(json d_here.json 'd["status"]' 2>/dev/null)
unshare -u sh -c 'hostname hwrun-elsewhere && exec "$@"' sh "$summarize" -q -f json a/run \
  > d.json 2> d.err
d_status=$(json d.json 'd["status"]' 2>/dev/null)
d_reason=$(json d.json 'd["outcome"]["reason"]' 2>/dev/null)
case $d_status in
  running|unknown) ok elsewhere "$d_status: $d_reason; on its own host: $here_status" ;;
  *) fail elsewhere "summarize from host hwrun-elsewhere on a live run says '$d_status' ($d_reason; $(head -c 300 d.err))" ;;
esac
[ "$here_status" = running ] || fail elsewhere "on its own host the live run is '$here_status', not running"

t_cancel=$(date +%s.%N)
scancel "$joba" || fail cancel "scancel $joba"
wait_gone "$joba" 45 || fail cancel "job $joba still in the queue 45 s after scancel ($(job_state "$joba"))"
t_gone=$(date +%s.%N)
wait_gone "$jobb" 60 || fail steps "job $jobb still in the queue after 60 s ($(job_state "$jobb"))"

# --- a's checks ------------------------------------------------------------------------------
n_term=$(wc -l < a/sigterms 2>/dev/null || echo 0)
"$summarize" -q -f json a/run > a.json 2> a.err
a_status=$(json a.json 'd["status"]' 2>/dev/null)
a_sig=$(json a.json 'd["outcome"]["stop_signal"]' 2>/dev/null)
a_from=$(json a.json 'd["outcome"]["stop_signal_from"]' 2>/dev/null)
a_killsig=$(json a.json 'd["outcome"]["signal"]' 2>/dev/null)
a_errors=$(json a.json 'd["events"]["errors_total"]' 2>/dev/null)
a_reason=$(json a.json 'd["outcome"]["reason"]' 2>/dev/null)
a_took=$(python3 -c "print('%.1f' % ($t_gone - $t_cancel))")
problems=()
[ "$n_term" = 1 ] || problems+=("the job's SIGTERM handler ran $n_term times ($(tr '\n' ' ' < a/sigterms 2>/dev/null))")
[ "$(tail -n 1 a/checkpoint 2>/dev/null)" = complete ] ||
  problems+=("checkpoint incomplete ($(tr '\n' ' ' < a/checkpoint.tmp 2>/dev/null))")
[ "$a_status" = killed ] || problems+=("status '$a_status', not killed")
[ "$a_sig" = 15 ] || problems+=("stop_signal '$a_sig', not 15 (SIGTERM)")
[ "$a_from" = scheduler ] || problems+=("stop_signal_from '$a_from', not scheduler")
[ "$a_killsig" = None ] || problems+=("the command was killed by signal $a_killsig")
case $a_reason in *"signal 9"*|*KILL*) problems+=("reason names SIGKILL") ;; esac
[ "$a_errors" = 0 ] || problems+=("errors_total '$a_errors' ($(json a.json 'd["events"]["errors"]' 2>/dev/null | head -c 300))")
if [ ${#problems[@]} -eq 0 ]; then
  ok cancel "job $joba: $a_reason; gone ${a_took}s after scancel"
else
  fail cancel "job $joba: $(IFS=';'; echo "${problems[*]}") [reason: $a_reason; $(head -c 300 a.err)]"
fi

# --- b's checks ------------------------------------------------------------------------------
b_state=$(job_state "$jobb")
problems=()
[ "$b_state" = COMPLETED ] || problems+=("job $jobb ended $b_state: $(head -c 400 steps.out)")
for s in 0 1; do
  r=runs/$jobb-$s
  if [ ! -f "$r/run.jsonl" ]; then problems+=("no run in $r"); continue; fi
  "$summarize" -q -f json "$r" > "b$s.json" 2> "b$s.err"
  st=$(json "b$s.json" 'd["status"]' 2>/dev/null)
  [ "$st" = ok ] || problems+=("$r: status '$st' ($(json "b$s.json" 'd["outcome"]["reason"]' 2>/dev/null); $(head -c 200 "b$s.err"))")
done
extra=""
for r in runs/*; do
  case $r in "runs/$jobb-0"|"runs/$jobb-1") ;; *) extra+="$r " ;; esac
done
[ -z "$extra" ] || problems+=("other run directories: $extra")
if [ ${#problems[@]} -eq 0 ]; then ok steps "job $jobb: runs/$jobb-0 and runs/$jobb-1 ok"
else fail steps "$(IFS=';'; echo "${problems[*]}")"; fi

# --- f: scancel --signal=USR1 --full, then scancel ---------------------------------------------
# lines FILE: how many lines (0 when absent)
lines() { if [ -f "$1" ]; then wc -l < "$1"; else echo 0; fi; }
for _ in $(seq 300); do [ -e f/started ] && break; sleep 0.2; done
problems=()
if [ ! -e f/started ]; then
  problems+=("job $jobf never started its command ($(job_state "$jobf"): $(head -c 300 f.out 2>/dev/null))")
else
  sleep 1   # the run's files written
  scancel --signal=USR1 --full "$jobf" || problems+=("scancel --signal=USR1 --full")
  for _ in $(seq 100); do [ "$(lines f/usr1)" -ge 1 ] && break; sleep 0.2; done
  sleep 1   # a second USR1, if any, would come within milliseconds
  scancel "$jobf" || problems+=("scancel")
  wait_gone "$jobf" 60 || problems+=("job $jobf still in the queue 60 s after scancel")
fi
frun=$(ls -d f/"$jobf".* 2>/dev/null | head -n 1)
[ "$(lines f/usr1)" = 1 ] || problems+=("USR1 reached the job $(lines f/usr1) times ($(tr '\n' ' ' < f/usr1 2>/dev/null))")
[ "$(lines f/sigterms)" = 1 ] || problems+=("SIGTERM reached the job $(lines f/sigterms) times")
[ "$(tail -n 1 f/checkpoint 2>/dev/null)" = complete ] || problems+=("checkpoint incomplete")
f_ev=$(python3 - "$frun/run.jsonl" <<'EOF'
import json, sys
for l in open(sys.argv[1]):
    e = json.loads(l)
    d = e.get("data") or {}
    if e.get("event") == "signal" and d.get("signal") == 10:
        print("forwarded=%s to_group=%s from=%s" % (d.get("forwarded"), d.get("to_group"), d.get("from")))
        break
EOF
)
case $f_ev in "forwarded=False to_group=True"*) ;; *) problems+=("hwmon's USR1 event: '$f_ev'") ;; esac
if [ ${#problems[@]} -eq 0 ]; then ok full "job $jobf: USR1 once (the group's; hwmon: $f_ev), SIGTERM once, checkpoint complete"
else fail full "$(IFS=';'; echo "${problems[*]}") [$(head -c 300 f.out 2>/dev/null)]"; fi

# --- e: --signal=B:USR1@45 and the time limit ------------------------------------------------
wait_gone "$jobe" 200 || fail limit "job $jobe still in the queue after 200 s ($(job_state "$jobe"))"
erun=$(ls -d e/"$jobe".* 2>/dev/null | head -n 1)
problems=()
[ "$erun" = "e/$jobe.batch" ] || problems+=("run directory '$erun', not e/$jobe.batch")
[ "$(lines e/usr1)" = 1 ] || problems+=("USR1 reached the job $(lines e/usr1) times ($(tr '\n' ' ' < e/usr1 2>/dev/null))")
[ "$(lines e/sigterms)" = 1 ] || problems+=("SIGTERM reached the job $(lines e/sigterms) times")
[ "$(tail -n 1 e/checkpoint 2>/dev/null)" = complete ] || problems+=("checkpoint incomplete ($(tr '\n' ' ' < e/checkpoint.tmp 2>/dev/null))")
"$summarize" -q -f json "$erun" > e.json 2> e.err
e_reason=$(json e.json 'd["outcome"]["reason"]' 2>/dev/null)
e_cause=$(json e.json 'd["outcome"]["stop_cause"]' 2>/dev/null)
e_status=$(json e.json 'd["status"]' 2>/dev/null)
[ "$e_cause" = time_limit ] || problems+=("stop_cause '$e_cause', not time_limit")
[ "$e_status" = killed ] || problems+=("status '$e_status', not killed")
case $e_reason in *"at the job's time limit"*) ;; *) problems+=("reason does not name the time limit") ;; esac
if [ ${#problems[@]} -eq 0 ]; then ok limit "job $jobe: USR1 once, then $e_reason"
else fail limit "$(IFS=';'; echo "${problems[*]}") [reason: $e_reason; $(head -c 300 e.out 2>/dev/null); $(head -c 200 e.err)]"; fi

# --- c: lock files ---------------------------------------------------------------------------
left=$(locks_of "$joba"; locks_of "$jobb"; locks_of "$jobe"; locks_of "$jobf")
if [ -z "$locks_during" ]; then
  fail locks "no lock file of job $joba in /dev/shm while it ran (hwrun-gpu-$(id -u)-$joba-*.lock): the check would see nothing"
elif [ -n "$left" ]; then
  fail locks "left in /dev/shm: $(echo "$left" | tr '\n' ' ')"
else
  ok locks "$(basename "$locks_during") while job $joba ran; none of jobs $joba, $jobb, $jobe, $jobf after"
fi

# --- cleanup: nothing of the cluster is left -------------------------------------------------
node=$(sed -n 's/^NodeName=\([^ ]*\).*/\1/p' slurm.conf | head -n 1)
port=$(sed -n 's/^SlurmctldPort=\([0-9]*\).*/\1/p' slurm.conf | head -n 1)
stopped=1
if ! "$here/cluster.sh" stop "$dir"; then
  fail cleanup "cluster.sh stop left processes"
else
  cg=""
  for d in /sys/fs/cgroup/*/"slurm_$node"/uid_*/job_{"$joba","$jobb","$jobe","$jobf"}; do
    [ -d "$d" ] && cg+="$d "
  done
  # the daemons' mark and the jobs' cluster (as cluster.sh finds them; not SLURM_CONF: this
  # script has that one)
  procs=$(grep -lzE "^(HWRUN_SLURM_CLUSTER=$dir|SLURM_WORKING_CLUSTER=hwrun:127\.0\.0\.1:$port:.*)\$" \
            /proc/[0-9]*/environ 2>/dev/null | sed 's,/proc/\([0-9]*\)/environ,\1,' | tr '\n' ' ')
  if [ -n "$cg" ]; then fail cleanup "job cgroups left: $cg"
  elif [ -n "$procs" ]; then fail cleanup "processes of this cluster left: $procs"
  else ok cleanup "no process, job or cgroup left; $((SECONDS - t0)) s in all"; fi
fi
exit $failed
