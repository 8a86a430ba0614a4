#!/usr/bin/env bash
# summarize --live as a person sees it, in a real terminal (tmux, on a server of its own): on a
# job hwmon wraps with the fake nvidia-smi, the pane shows RUNNING, the open phase and GPU 0's
# utilization of a sample hwmon wrote; when the job ends, the final status and the latest
# sample's utilization; q and Ctrl-C leave the terminal as it was (same stty, the shell's screen
# back). Piped, it prints one line per refresh and stops by itself when the run has ended.
#   live_tmux.sh BUILD_DIR        exit 77 (skipped) when tmux is not installed
set -euo pipefail
build=$(cd "$1" && pwd)
command -v tmux >/dev/null || { echo "SKIP: tmux is not installed"; exit 77; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/live-tmux-XXXXXX")
sock=$tmp/tmux.sock
hw_pid=
cleanup() {
  tmux -S "$sock" kill-server 2>/dev/null || true
  [ -n "$hw_pid" ] && kill "$hw_pid" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; echo "--- pane:"; tmux -S "$sock" capture-pane -p -t live 2>/dev/null || true; exit 1; }

# the fake by its own name (--nvidia-smi): a test that looks for leftover nvidia-smi processes
# on the machine must not find ours
smi=$build/tests/fake/fake_nvidia_smi
export PATH="$build/hwmon:$build/summarize:$build/runlog:$PATH"
run=$tmp/run

# a job with a phase that lasts until the test says so
FAKE_SMI_GPUS=2 hwmon -q --nvidia-smi "$smi" -i 0.2 -o "$run" -- sh -c \
  "runlog time warmup -- sleep 0.5; runlog time train_epoch -- sh -c 'until [ -e $tmp/go ]; do sleep 0.1; done'" &
hw_pid=$!

pane() { tmux -S "$sock" capture-pane -p -t live; }
# wait_for TEXT SECONDS: until the pane shows TEXT
wait_for() {
  local i
  for ((i = 0; i < $2 * 10; i++)); do
    pane | grep -qF -- "$1" && return 0
    sleep 0.1
  done
  fail "the pane never showed '$1'"
}

# a shell in the pane, its terminal settings recorded before and after each view (the markers
# echoed are computed, so that the typed command line never matches them)
tmux -S "$sock" new-session -d -s live -x 120 -y 40 "env PS1='$ ' sh"
tmux -S "$sock" send-keys -t live "stty -a > $tmp/stty.0; clear; echo SHELL-\$((0))-BEFORE" Enter
wait_for SHELL-0-BEFORE 10
tmux -S "$sock" send-keys -t live "summarize --live --refresh 0.3 $run; stty -a > $tmp/stty.1; echo VIEW-LEFT-\$((0+1))" Enter

wait_for RUNNING 20
wait_for "phase train_epoch" 20
wait_for "GPU UTIL" 20
# GPU 0's utilization on the screen is one hwmon wrote for GPU 0 (the fake's values move)
shown=$(pane | awk '$1 == "0" && $2 ~ /%$/ { sub(/%/, "", $2); print $2; exit }')
[ -n "$shown" ] || fail "no GPU 0 row"
awk -F', *' -v u="$shown" '$10 == 0 && $2 == u { found = 1 } END { exit !found }' "$run/hw_metrics.csv" ||
  fail "GPU 0 util $shown% is not in hw_metrics.csv"

# the job ends: the final status, and the latest sample's utilization, exactly
touch "$tmp/go"
wait "$hw_pid"
hw_pid=
wait_for "OK " 20
wait_for "the command exited 0" 10
sleep 0.5 # one more refresh after the last byte
last=$(awk -F', *' '$10 == 0 { u = $2 } END { print u }' "$run/hw_metrics.csv")
shown=$(pane | awk '$1 == "0" && $2 ~ /%$/ { sub(/%/, "", $2); print $2; exit }')
[ "$shown" = "$last" ] || fail "GPU 0 shows $shown%, its last sample says $last%"

# q: the shell's screen back, its settings unchanged
tmux -S "$sock" send-keys -t live q
wait_for VIEW-LEFT-1 10
pane | grep -qF "GPU UTIL" && fail "the view's screen stayed after q"
pane | grep -qF SHELL-0-BEFORE || fail "the shell's screen did not come back after q"
cmp -s "$tmp/stty.0" "$tmp/stty.1" || fail "q left the terminal changed: $(diff "$tmp/stty.0" "$tmp/stty.1")"

# Ctrl-C: the same
tmux -S "$sock" send-keys -t live "summarize --live $run; stty -a > $tmp/stty.2; echo VIEW-LEFT-\$((0+2))" Enter
wait_for "GPU UTIL" 10
tmux -S "$sock" send-keys -t live C-c
wait_for VIEW-LEFT-2 10
cmp -s "$tmp/stty.0" "$tmp/stty.2" || fail "Ctrl-C left the terminal changed: $(diff "$tmp/stty.0" "$tmp/stty.2")"

# a narrow terminal: the view draws in it (the widths themselves: test_summarize.live)
tmux -S "$sock" resize-window -t live -x 50 -y 15 2>/dev/null || tmux -S "$sock" resize-pane -t live -x 50 -y 15
tmux -S "$sock" send-keys -t live "clear; summarize --live $run" Enter
wait_for "OK " 10
tmux -S "$sock" send-keys -t live q

# piped: one line per refresh while it runs, and it stops by itself once the run has ended. The
# job runs until three running lines were written (an event, not a clock: hwmon under a
# sanitizer on a loaded machine takes its time to start)
FAKE_SMI_GPUS=1 hwmon -q --nvidia-smi "$smi" -i 0.2 -o "$tmp/run2" -- \
  sh -c "while [ ! -e '$tmp/go2' ]; do sleep 0.05; done" &
hw_pid=$!
timeout 60 summarize --live --refresh 0.4 "$tmp/run2" > "$tmp/lines" &
live_pid=$!
for ((i = 0; i < 600; i++)); do
  [ "$(grep -c ' status=running ' "$tmp/lines" || true)" -ge 3 ] && break
  sleep 0.1
done
touch "$tmp/go2"
wait "$live_pid" || fail "piped --live did not stop by itself"
wait "$hw_pid"
hw_pid=
n=$(grep -c ' status=running ' "$tmp/lines" || true)
[ "$n" -ge 3 ] || fail "piped: $n running lines at 0.4 s in 60 s ($(cat "$tmp/lines"))"
tail -n 1 "$tmp/lines" | grep -q ' status=ok ' || fail "piped: the last line is not the final status"

# several runs: one row each on the screen; a job directory: one line per node, piped
tmux -S "$sock" resize-window -t live -x 120 -y 20 2>/dev/null || true
tmux -S "$sock" send-keys -t live "clear; summarize --live $run $tmp/run2" Enter
wait_for "RUN " 10
wait_for "run2 " 10
[ "$(pane | grep -c ' ok ')" = 2 ] || fail "the sweep view does not show both runs ok"
tmux -S "$sock" send-keys -t live q
mkdir "$tmp/job"
cp -r "$run" "$tmp/job/node-a"
cp -r "$tmp/run2" "$tmp/job/node-b"
timeout 10 summarize --live "$tmp/job" > "$tmp/job.lines" || fail "piped --live on a finished job did not end"
grep -q ' run=job/node-a status=ok ' "$tmp/job.lines" && grep -q ' run=job/node-b status=ok ' "$tmp/job.lines" ||
  fail "a job directory's nodes: $(cat "$tmp/job.lines")"
# the terminal hangs up with SIGHUP ignored (nohup; the view keeps it ignored): the view sees the
# hang-up on the terminal itself and ends, it does not spin on a dead terminal
tmux -S "$sock" new-session -d -s hup -x 80 -y 24 "trap '' HUP; exec summarize --live --refresh 0.7 $run"
pid=
for ((i = 0; i < 50; i++)); do
  pid=$(pgrep -f "summarize --live --refresh 0.7 $run" | head -n 1)
  [ -n "$pid" ] && break
  sleep 0.1
done
[ -n "$pid" ] || fail "no view to hang up on"
tmux -S "$sock" kill-session -t hup
# a view that spins on a dead terminal never ends; a TSan build under load takes seconds to
# reach its next refresh (5 s were not always enough in CI)
for ((i = 0; i < 300; i++)); do
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.1
done
if kill -0 "$pid" 2>/dev/null; then
  kill "$pid"
  fail "summarize --live still runs 30 s after its terminal hung up"
fi
echo "ok: live view in tmux ($n lines piped)"
