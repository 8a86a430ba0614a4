#!/usr/bin/env bash
# A real one-node SLURM (cluster.sh) runs an srun, an sbatch --wait with two steps, and a job
# that scancel ends. Exit 77 (skipped) where SLURM is not installed or cannot start, unless CI
# is set: then that is a failure.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

skip() {
  if [ -n "${CI:-}" ]; then echo "FAIL (CI set): $*" >&2; exit 1; fi
  echo "SKIP: $*" >&2; exit 77
}
fail() { echo "FAIL: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || skip "needs root"
for b in munged slurmctld slurmd srun sbatch scancel; do
  command -v "$b" >/dev/null || skip "$b not installed (.ci/install-deps)"
done

dir=$(mktemp -d "${TMPDIR:-/tmp}/hwrun-slurm.XXXXXX")
cleanup() { "$here/cluster.sh" stop "$dir" || true; rm -rf "$dir"; }
trap cleanup EXIT
"$here/cluster.sh" start "$dir" || skip "the cluster did not start"
export SLURM_CONF=$dir/slurm.conf
# The job must not take this test's own SLURM_* (when ctest itself runs under srun).
unset SLURM_JOB_ID SLURM_JOBID SLURM_STEP_ID SLURM_NODELIST SLURM_NTASKS
cd "$dir"

# 1. srun
out=$(timeout 60 srun -N1 -n1 hostname) || fail "srun hostname"
[ "$out" = "$(hostname)" ] || fail "srun hostname printed '$out', not '$(hostname)'"
echo "ok srun: $out"

# 2. sbatch --wait, two steps, each naming its step id
cat > two_steps.sh <<'EOF'
#!/bin/bash
srun -n1 bash -c 'echo "step $SLURM_STEP_ID job $SLURM_JOB_ID"'
srun -n1 bash -c 'echo "step $SLURM_STEP_ID job $SLURM_JOB_ID"'
EOF
job=$(timeout 120 sbatch --parsable --wait -o two_steps.out two_steps.sh) ||
  fail "sbatch --wait: $(cat two_steps.out 2>/dev/null)"
job=${job%%;*}
[ "$(cat two_steps.out)" = "step 0 job $job
step 1 job $job" ] || fail "two_steps.out: $(cat two_steps.out)"
echo "ok sbatch --wait: job $job, steps 0 and 1"

# 3. scancel of a running job: it ends CANCELLED and its task is gone
job=$(sbatch --parsable -o /dev/null --wrap "srun bash -c 'echo \$\$ > $dir/task.pid; exec sleep 3171'") ||
  fail "sbatch"
state="" pid=""
for _ in $(seq 150); do   # 30 s; the scheduler's first pass comes ~3 s after slurmctld starts
  state=$(squeue -h -j "$job" -o %T 2>/dev/null || true)
  pid=$(cat task.pid 2>/dev/null || true)
  [ "$state" = RUNNING ] && [ -n "$pid" ] && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = sleep ] && break
  sleep 0.2
done
{ [ "$state" = RUNNING ] && [ -n "$pid" ]; } || fail "job $job not running after 30 s: '$state', task '$pid'"
scancel "$job" || fail "scancel"
for _ in $(seq 150); do
  state=$(scontrol show job -o "$job" | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p')
  [ "$state" = CANCELLED ] && [ ! -e "/proc/$pid" ] && break
  sleep 0.2
done
[ "$state" = CANCELLED ] || fail "job $job after scancel: $state"
[ -e "/proc/$pid" ] && fail "the task of job $job (pid $pid) survived scancel"
echo "ok scancel: job $job CANCELLED, task $pid gone after ${SECONDS}s"
