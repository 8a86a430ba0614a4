#!/usr/bin/env bash
# Measures how SLURM signals a job's processes (FINDINGS.md): starts a cluster, runs
# probe_signals.py under srun and as the batch script, cancels, signals, lets a time limit
# expire, and prints each probe's signals relative to the scancel. Takes ~3 minutes.
#   probe_run.sh [OUTDIR]      (OUTDIR keeps the JSON logs; default a temp dir)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
probe=$here/probe_signals.py
out=${1:-$(mktemp -d)}
mkdir -p "$out"
dir=$(mktemp -d)
trap '"$here/cluster.sh" stop "$dir"; rm -rf "$dir"' EXIT
t0=$EPOCHREALTIME
"$here/cluster.sh" start "$dir"
t1=$EPOCHREALTIME
echo "$(grep ProctrackType "$dir/slurm.conf"); cluster.sh start: $(( (${t1/./} - ${t0/./}) / 1000 )) ms"
export SLURM_CONF=$dir/slurm.conf
cd "$out"

mark() { echo "{\"t\": $(date +%s.%N), \"event\": \"mark\", \"what\": \"$2\"}" >> "$1"; }
# Waits until LOG holds N "start" lines (every probe blocks its signals first thing).
started() {
  for _ in $(seq 150); do
    [ "$(grep -c '"event": "start"' "$1" 2>/dev/null || true)" -ge "${2}" ] 2>/dev/null && return 0
    sleep 0.2
  done
  echo "probes did not start in $1" >&2; return 1
}
gone() {   # waits until job $1 has left squeue (at most $2 s)
  for _ in $(seq $(($2 * 5))); do
    [ -z "$(squeue -h -j "$1" -o %i 2>/dev/null)" ] && return 0
    sleep 0.2
  done
  echo "job $1 still in squeue after $2 s" >&2; return 1
}
final() { scontrol show job -o "$1" | grep -o 'JobState=[A-Z_]* Reason=[^ ]* .*ExitCode=[0-9:]*' | sed 's/ Dependency.*ExitCode/ ExitCode/'; }

# c. A time limit of 1 minute (the least): starts first and runs beside the others.
cat > c.sh <<EOF
#!/bin/bash
exec $probe c.log C.batch --children --srun
EOF
jc=$(sbatch --parsable --time=1 -o c.out c.sh)

# a1. srun step, plain scancel, probes ignore SIGTERM (SIGKILL after KillWait)
printf '#!/bin/bash\nsrun %s a1.log A1.step --children\n' "$probe" > a1.sh
j=$(sbatch --parsable -o a1.out a1.sh); started a1.log 5; sleep 1
mark a1.log "scancel $j"; scancel "$j"; gone "$j" 60; echo "A1 job $j: $(final "$j")"

# a2. the same, but every probe exits 0 on SIGTERM
printf '#!/bin/bash\nsrun %s a2.log A2.step --children --on-term=exit0\necho "srun exit $?"\n' "$probe" > a2.sh
j=$(sbatch --parsable -o a2.out a2.sh); started a2.log 5; sleep 1
mark a2.log "scancel $j"; scancel "$j"; gone "$j" 60; echo "A2 job $j: $(final "$j")"

# b1. the batch script itself (with an srun step beside it), plain scancel
printf '#!/bin/bash\nexec %s b1.log B1.batch --children --srun\n' "$probe" > b1.sh
j=$(sbatch --parsable -o b1.out b1.sh); started b1.log 6; sleep 1
mark b1.log "scancel $j"; scancel "$j"; gone "$j" 60; echo "B1 job $j: $(final "$j")"

# b2. signals only: --signal=TERM, then with --batch, then with --full; then SIGKILL
printf '#!/bin/bash\nexec %s b2.log B2.batch --children --srun\n' "$probe" > b2.sh
j=$(sbatch --parsable -o b2.out b2.sh); started b2.log 6; sleep 1
mark b2.log "scancel --signal=TERM $j"; scancel --signal=TERM "$j"; sleep 3
mark b2.log "scancel --signal=TERM --batch $j"; scancel --signal=TERM --batch "$j"; sleep 3
mark b2.log "scancel --signal=TERM --full $j"; scancel --signal=TERM --full "$j"; sleep 3
mark b2.log "scancel --signal=USR1 --full $j"; scancel --signal=USR1 --full "$j"; sleep 2
echo "B2 job $j before KILL: $(final "$j")"
mark b2.log "scancel --signal=KILL --full $j"; scancel --signal=KILL --full "$j"; gone "$j" 60
echo "B2 job $j: $(final "$j")"

gone "$jc" 180; echo "C job $jc: $(final "$jc")"
python3 "$here/probe_report.py" a1.log a2.log b1.log b2.log c.log
echo "logs in $out"
