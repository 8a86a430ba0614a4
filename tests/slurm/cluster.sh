#!/usr/bin/env bash
# A throwaway one-node SLURM (munged + slurmctld + slurmd on 127.0.0.1) for tests.
#   cluster.sh start DIR   DIR: a fresh empty directory; everything (key, sockets, state, logs)
#                          lives under it. Exits 0 once the node is idle (well under a second).
#   cluster.sh env DIR     prints the export the test needs: SLURM_CONF=DIR/slurm.conf
#                          (the slurm commands find this cluster only through it)
#   cluster.sh stop DIR    kills what the jobs run, stops the daemons; no process is left behind.
#                          (every process that slurm's job environment ties to this cluster).
# Needs root (SlurmUser=root) and Debian's munge, slurmctld, slurmd, slurm-client.
# HWRUN_SLURM_PROCTRACK=proctrack/linuxproc (or pgid) where cgroups cannot be written.
set -euo pipefail

cmd=${1:-} dir=${2:-}
if [ -z "$cmd" ] || [ -z "$dir" ]; then echo "usage: $0 start|stop|env DIR" >&2; exit 2; fi
dir=$(cd "$dir" && pwd)
conf=$dir/slurm.conf
# Daemons (and the slurmstepd they fork, which inherit their environment) carry this mark, so
# that stop finds them, and only them, even when a pid file is gone or a step outlived slurmd.
mark="HWRUN_SLURM_CLUSTER=$dir"

log_tails() {
  for f in "$dir"/munged.log "$dir"/slurmctld.log "$dir"/slurmd.log; do
    [ -f "$f" ] && { echo "== $f" >&2; grep -v pmix "$f" | tail -n 25 >&2; }
  done
  return 0
}
die() { echo "cluster.sh: $*" >&2; log_tails; exit 1; }
conf_value() { sed -n "s/^$1=\([^ ]*\).*/\1/p" "$conf" 2>/dev/null | head -n 1; }

# pids whose environment holds a line matching the extended regex $1; never this script nor
# its ancestors (the test that calls stop has SLURM_CONF too, and may run inside a job).
pids_with_env() {
  local p q skip=" $$ "
  q=$$
  while [ "$q" -gt 1 ]; do
    q=$(awk '/^PPid:/ {print $2}' "/proc/$q/status" 2>/dev/null) || break
    [ -n "$q" ] || break
    skip+="$q "
  done
  # -z: environ's entries end in NUL, so ^ and $ anchor one variable.
  # shellcheck disable=SC2013 # one /proc path a line, no spaces
  for p in $(grep -lzE "$1" /proc/[0-9]*/environ 2>/dev/null); do
    p=${p#/proc/} p=${p%/environ}
    case $skip in *" $p "*) ;; *) echo "$p" ;; esac
  done
  return 0
}
# A job's processes name the cluster in their environment: SLURM_WORKING_CLUSTER, which
# slurm sets in every job (batch script and steps), holds the controller's port. (Not
# SLURM_CONF: the test and whatever it runs beside the cluster have that one too.)
job_pids() {
  local port
  port=$(conf_value SlurmctldPort)
  [ -n "$port" ] || return 0
  pids_with_env "^SLURM_WORKING_CLUSTER=hwrun:127\.0\.0\.1:$port:"
}

# A TCP port nobody listens on (state 0A in /proc/net/tcp*), below the ephemeral range
# (32768-60999) and away from the default 6817/6818, which a real SLURM may hold.
free_port() {
  local p hex
  for _ in $(seq 50); do
    p=$((10000 + RANDOM % 22000))
    hex=$(printf ':%04X 0A' "$p")
    awk '{print $2, $4}' /proc/net/tcp /proc/net/tcp6 2>/dev/null | grep -q "$hex" || { echo "$p"; return; }
  done
  return 1
}

start() {
  [ "$(id -u)" = 0 ] || die "needs root (SlurmUser=root)"
  for b in munged mungekey slurmctld slurmd sinfo; do
    command -v "$b" >/dev/null || die "$b not installed"
  done
  # munged refuses a socket whose directories are not executable by everyone.
  chmod 755 "$dir"
  mkdir -p "$dir"/state "$dir"/spool
  mungekey -c -k "$dir/munge.key"
  env "$mark" munged --key-file="$dir/munge.key" --socket="$dir/munge.sock" \
      --pid-file="$dir/munged.pid" --log-file="$dir/munged.log" --seed-file="$dir/munged.seed" ||
    die "munged did not start"

  local host node name ctld_port d_port first_job
  host=$(hostname -s)
  # slurmd -C: the node as slurmd itself will see it; a config asking more would drain it.
  node=$(slurmd -C | head -n 1) || die "slurmd -C failed"
  case $node in NodeName=*) ;; *) die "slurmd -C printed: $node" ;; esac
  name=${node%% *} name=${name#NodeName=}
  ctld_port=$(free_port) || die "no free port"
  d_port=$(free_port) || die "no free port"
  [ "$ctld_port" != "$d_port" ] || d_port=$((ctld_port + 1))
  # Job cgroups are /sys/fs/cgroup/<ctrl>/slurm_<node>/uid_0/job_<id> for every cluster on this
  # host: job ids of their own keep two clusters (two checkouts testing at once) apart.
  first_job=$((1000 + (RANDOM % 30000) * 1000))
  : > "$dir/plugstack.conf"   # not /etc/slurm/plugstack.conf: no site SPANK plugins
  # proctrack/cgroup works here (cgroup v1 freezer, root). Note it signals only the tasks
  # (children of slurmstepd) with SIGTERM and everything in the cgroup with SIGKILL.
  local proctrack=${HWRUN_SLURM_PROCTRACK:-proctrack/cgroup}
  cat > "$conf" <<EOF
ClusterName=hwrun
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$d_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge.sock
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
PlugStackConfig=$dir/plugstack.conf
ProctrackType=$proctrack
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
KillWait=30
InactiveLimit=0
MinJobAge=300
FirstJobId=$first_job
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MailProg=/bin/true
$node NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=debug Nodes=$name Default=YES MaxTime=INFINITE State=UP
EOF
  # IgnoreSystemdOnFailure: on cgroup v2 without systemd (a container), slurmd makes its cgroup
  # tree itself instead of failing on dbus (cgroup v1, as here, ignores it; v2 is untested).
  cat > "$dir/cgroup.conf" <<EOF
CgroupPlugin=autodetect
CgroupMountpoint=/sys/fs/cgroup
IgnoreSystemdOnFailure=yes
EOF
  export SLURM_CONF=$conf
  # Both daemonize once they are listening; slurmd registers the node before it does.
  env "$mark" slurmctld -f "$conf" || die "slurmctld did not start"
  env "$mark" slurmd -f "$conf" || die "slurmd did not start"
  local state=""
  for _ in $(seq 150); do   # 30 s
    state=$(sinfo -h -o %T 2>/dev/null || true)
    [ "$state" = idle ] && return 0
    sleep 0.2
  done
  die "node not idle after 30 s (sinfo: '${state}')"
}

# This cluster's job cgroups (job ids from FirstJobId up), deepest first.
our_cgroups() {
  local name first d id
  name=$(conf_value NodeName) first=$(conf_value FirstJobId)
  [ -n "$name" ] && [ -n "$first" ] || return 0
  for d in /sys/fs/cgroup/*/"slurm_$name"/uid_*/job_*; do
    [ -d "$d" ] || continue
    id=${d##*/job_}
    if [ "$id" -ge "$first" ] && [ "$id" -lt $((first + 1000)) ]; then find "$d" -depth -type d; fi
  done
  return 0
}

wait_queue_empty() {   # at most $1 s
  for _ in $(seq $(($1 * 5))); do
    [ -z "$(timeout 5 squeue -h -o %i 2>/dev/null)" ] && return 0
    sleep 0.2
  done
  return 1
}

leftovers() { pids_with_env "^$mark\$"; job_pids; }
# kill SIGNAL, pids on stdin (none: nothing to do; gone already: no matter).
kill_all() { local p; mapfile -t p; [ ${#p[@]} -eq 0 ] || kill "-$1" "${p[@]}" 2>/dev/null || true; }

stop() {
  export SLURM_CONF=$conf
  local d left
  # A client asking a controller that is gone retries for ~40 s: ask only a live one.
  if [ -f "$conf" ] && kill -0 "$(cat "$dir/slurmctld.pid" 2>/dev/null)" 2>/dev/null; then
    # Cancel (SIGCONT + SIGTERM), give the jobs 2 s, then SIGKILL what is left ourselves:
    # SLURM would wait KillWait (30 s), and a slurmstepd we stopped would not kill at all.
    timeout 10 scancel --user=root 2>/dev/null || true
    wait_queue_empty 2 || true
    { job_pids; for d in $(our_cgroups); do cat "$d/cgroup.procs" 2>/dev/null; done; } |
      kill_all KILL
    wait_queue_empty 10 || true   # slurmstepd ends the steps and removes their cgroups
  fi
  pids_with_env "^$mark\$" | kill_all TERM
  for _ in $(seq 50); do      # 10 s, then SIGKILL
    left=$(leftovers)
    [ -z "$left" ] && break
    sleep 0.2
  done
  [ -z "$left" ] || { leftovers | kill_all KILL; sleep 0.5; }
  for d in $(our_cgroups); do rmdir "$d" 2>/dev/null || true; done
  left=$(leftovers)
  [ -z "$left" ] || { echo "cluster.sh: still running: $(echo "$left" | tr "\n" " ")" >&2; exit 1; }
}

case $cmd in
  start) start ;;
  stop) stop ;;
  env) echo "export SLURM_CONF=$conf" ;;
  *) echo "usage: $0 start|stop|env DIR" >&2; exit 2 ;;
esac
