#!/usr/bin/env bash
# Runs the Slurm example of docs/cluster.md for real, on a one-node Slurm cluster set up here.
#
# As root on Debian or Ubuntu: installs slurmctld, slurmd, slurm-client and munge if missing, starts
# munged, slurmctld and slurmd without systemd (configuration, state, logs and PID files in a work
# folder of its own, free ports), waits for the node to be idle, then runs the guide's shards.sbatch
# and submit.sh, copied from docs/cluster.md so that the two cannot drift:
#   1. a clean run, whose merged database and report must equal an unsharded run's byte for byte
#      (the runs table's timing columns aside), and which submit.sh must then refuse to run again;
#   2. a run in which one shard task is killed while it runs, recovered as the guide says (submit.sh
#      again), which must merge into the same report and keep the log of both attempts.
# Every daemon it started is stopped by its PID on exit; every wait has a deadline.
#
# Usage: scripts/slurm-example.sh
# Environment: REMINDERSIM   a static remindersim to use (default: built with scripts/build-static.sh)
#              SHARDS        the number of shards (default 4)
#              WAIT_SECONDS  the deadline of each wait (default 120)
#              KEEP=1        keep the work folder (its path is printed)
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
shards=${SHARDS:-4}
wait_seconds=${WAIT_SECONDS:-120}
started_at=$SECONDS

say() { echo "slurm-example [$((SECONDS - started_at))s]: $*" >&2; }
fail() {
    say "FAILED: $*"
    exit 1
}

[ "$(id -u)" -eq 0 ] || fail "must run as root (it installs packages and starts the Slurm daemons)"

# wait_for DESCRIPTION COMMAND...: runs COMMAND until it succeeds, for at most WAIT_SECONDS.
wait_for() {
    local what=$1 deadline=$((SECONDS + wait_seconds))
    shift
    until "$@" >/dev/null 2>&1; do
        [ "$SECONDS" -lt "$deadline" ] || fail "gave up after ${wait_seconds}s waiting for $what"
        sleep 0.5
    done
}

# --- packages -------------------------------------------------------------------------------------
missing=()
for need in slurmctld:slurmctld slurmd:slurmd sbatch:slurm-client munged:munge sqlite3:sqlite3; do
    command -v "${need%%:*}" >/dev/null 2>&1 || missing+=("${need#*:}")
done
if [ ${#missing[@]} -gt 0 ]; then
    say "installing ${missing[*]}"
    timeout 300 apt-get update -qq || fail "apt-get update failed or took over 300s"
    DEBIAN_FRONTEND=noninteractive timeout 600 apt-get install -y -qq --no-install-recommends "${missing[@]}" \
        >/dev/null || fail "apt-get install ${missing[*]} failed or took over 600s"
fi
say "$(slurmd -V), munge $(munged -V 2>&1 | awk '{print $1; exit}')"

# --- work folder and clean-up ---------------------------------------------------------------------
work=$(mktemp -d "${TMPDIR:-/tmp}/remindersim-slurm.XXXXXX")
chmod 755 "$work" # munged wants every folder above its socket searchable by all
mkdir -p "$work/etc" "$work/pids" "$work/log" "$work/state" "$work/spool" "$work/munge" "$work/bin"
export SLURM_CONF=$work/etc/slurm.conf

# The PID file of every daemon started, in the order they must be stopped.
daemons=()

stop_daemons() {
    local i pidfile pid deadline
    if [ -f "$SLURM_CONF" ] && [ ${#daemons[@]} -gt 0 ]; then
        timeout 10 scancel --full --signal=KILL --user=root >/dev/null 2>&1 || true
    fi
    for ((i = ${#daemons[@]} - 1; i >= 0; i--)); do
        pidfile=${daemons[i]}
        pid=$(cat "$pidfile" 2>/dev/null) || continue
        [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || continue
        kill -TERM "$pid" 2>/dev/null || true
        deadline=$((SECONDS + 15))
        while kill -0 "$pid" 2>/dev/null && [ "$SECONDS" -lt "$deadline" ]; do sleep 0.2; done
        kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null || true
    done
}

cleanup() {
    local status=$?
    trap - EXIT
    if [ "$status" -ne 0 ]; then
        for log in "$work"/log/*.log "$work"/munge/munged.log; do
            [ -f "$log" ] || continue
            echo "--- last lines of $log" >&2
            tail -n 15 "$log" >&2
        done
    fi
    stop_daemons
    if [ "${KEEP:-0}" = 1 ]; then
        say "work folder kept: $work"
    else
        rm -rf "$work"
    fi
    exit "$status"
}
trap cleanup EXIT
trap 'exit 143' TERM INT HUP

# --- the binary -----------------------------------------------------------------------------------
if [ -n "${REMINDERSIM:-}" ]; then
    [ -x "$REMINDERSIM" ] || fail "REMINDERSIM=$REMINDERSIM is not an executable file"
    cp "$REMINDERSIM" "$work/bin/remindersim"
else
    say "building the static binary"
    scripts/build-static.sh "$work/bin/remindersim" 2>"$work/log/build.txt" \
        || { tail -n 20 "$work/log/build.txt" >&2; fail "scripts/build-static.sh failed"; }
fi
real_binary=$work/bin/remindersim

# --- munge ----------------------------------------------------------------------------------------
dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$work/munge/munge.key"
socket=$work/munge/munge.socket
daemons+=("$work/pids/munged.pid")
munged --key-file="$work/munge/munge.key" --socket="$socket" --pid-file="$work/pids/munged.pid" \
    --log-file="$work/munge/munged.log" --seed-file="$work/munge/munged.seed" </dev/null \
    || fail "munged did not start"
wait_for "munged's socket" test -S "$socket"
munge -S "$socket" -n | unmunge -S "$socket" >/dev/null || fail "munge cannot encode and decode a credential"

# --- slurm.conf -----------------------------------------------------------------------------------
port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
port=6817
while port_in_use "$port" || port_in_use $((port + 1)); do
    port=$((port + 2))
    [ "$port" -lt 6917 ] || fail "no two free ports between 6817 and 6917"
done
node_line=$(slurmd -C | grep '^NodeName=') || fail "slurmd -C describes no node"
node=$(sed -E 's/^NodeName=([^ ]+).*/\1/' <<<"$node_line")
cpus=$(sed -E 's/.* CPUs=([0-9]+).*/\1/' <<<"$node_line")
cat >"$SLURM_CONF" <<EOF
# A one-node cluster for scripts/slurm-example.sh; everything it writes is under $work.
ClusterName=remindersim
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$socket
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/pids/slurmctld.pid
SlurmdPidFile=$work/pids/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MpiDefault=none
MailProg=/bin/true
ReturnToService=2
$node_line NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=main Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF

# --- slurmctld and slurmd -------------------------------------------------------------------------
daemons+=("$work/pids/slurmctld.pid")
slurmctld -f "$SLURM_CONF" </dev/null >>"$work/log/slurmctld.out" 2>&1 || fail "slurmctld did not start"
wait_for "slurmctld's PID file" test -s "$work/pids/slurmctld.pid"
daemons+=("$work/pids/slurmd.pid")
slurmd -f "$SLURM_CONF" </dev/null >>"$work/log/slurmd.out" 2>&1 || fail "slurmd did not start"
wait_for "slurmd's PID file" test -s "$work/pids/slurmd.pid"
node_idle() { [ "$(sinfo -h -N -n "$node" -o %t)" = idle ]; }
wait_for "node $node to be idle" node_idle
say "node $node ($cpus CPUs) is idle; slurmctld on port $port"

# --- the guide's example --------------------------------------------------------------------------
# extract NAME DEST: the code block that follows "<!-- slurm-example: NAME -->" in docs/cluster.md.
extract() {
    awk -v marker="<!-- slurm-example: $1 -->" '
        $0 == marker { armed = 1; next }
        armed && /^```/ { if (inside) { closed = 1; exit } inside = 1; next }
        inside { print }
        END { if (!closed) exit 1 }' docs/cluster.md >"$2" \
        || fail "docs/cluster.md has no complete code block marked 'slurm-example: $1'"
}

# A folder as the guide describes it: the scenario and the guide's two files.
prepare() {
    mkdir -p "$1"
    cp Datasets/daily-habit.json "$1/scenario.json"
    extract shards.sbatch "$1/shards.sbatch"
    extract submit.sh "$1/submit.sh"
    chmod +x "$1/submit.sh"
}

queue_empty() { [ -z "$(squeue -h -o %i)" ]; }

# submit FOLDER: submit.sh as the guide calls it, then the wait for every job it queued.
submit() {
    (cd "$1" && N=$shards CPUS=1 ./submit.sh) || fail "submit.sh failed in $1"
    wait_for "the jobs submitted from $1 to finish" queue_empty
}

# same_run DB REPORTS: the merged run equals the unsharded one, in the database and in every file.
same_run() {
    diff -r "$work/unsharded/Reports" "$2" >&2 || fail "$2 differs from the unsharded run's report"
    local db
    for db in "$work/unsharded/remindersim.sqlite" "$1"; do
        cp "$db" "$work/compare.sqlite"
        # The time of the run, its wall time and threads are the only columns allowed to differ.
        sqlite3 "$work/compare.sqlite" "UPDATE runs SET created_at = '', wall_seconds = 0, threads = 0;"
        sqlite3 "$work/compare.sqlite" .dump >"$db.dump"
    done
    cmp "$work/unsharded/remindersim.sqlite.dump" "$1.dump" || fail "$1 differs from the unsharded run's database"
    rm -f "$work/compare.sqlite" "$1.dump"
}

mkdir -p "$work/unsharded"
cp Datasets/daily-habit.json "$work/unsharded/scenario.json"
(cd "$work/unsharded" && "$real_binary" run scenario.json --threads "$cpus" --db remindersim.sqlite --out Reports \
    >/dev/null) || fail "the unsharded run failed"
report=$(cd "$work/unsharded/Reports" && ls -d ./*/ | head -1)
say "unsharded run done: $report"

export PATH="$work/bin:$PATH"

# 1. The example as printed.
clean=$work/clean
prepare "$clean"
submit "$clean"
[ -f "$clean/results/remindersim.sqlite" ] || fail "no merged run in $clean/results (see $clean/logs)"
same_run "$clean/results/remindersim.sqlite" "$clean/results/Reports"
[ "$(find "$clean/logs" -name 'shard-*.out' | wc -l)" -eq "$shards" ] || fail "expected one log per shard in $clean/logs"
say "clean run: $shards shards merged into the unsharded run's report and database, byte for byte"
if (cd "$clean" && N=$shards CPUS=1 ./submit.sh) >"$work/again.txt" 2>&1; then
    fail "submit.sh ran again in a folder that holds a merged run"
fi
grep -q "already holds the merged run" "$work/again.txt" || fail "submit.sh refused a second run without saying why"
queue_empty || fail "submit.sh queued jobs although it refused"
say "submit.sh refuses a folder that already holds a merged run"

# 2. One shard task is killed while it runs, then the run is recovered as the guide says. A wrapper
# in front of the binary holds that task's first attempt until it is killed, so the kill never
# races with the shard's end.
victim=$(((shards + 1) / 2))
mkdir -p "$work/hold-bin"
cat >"$work/hold-bin/remindersim" <<EOF
#!/bin/sh
if [ "\${SLURM_ARRAY_TASK_ID:-}" = "$victim" ] && mkdir "$work/held" 2>/dev/null; then
    echo "\$SLURM_JOB_ID" >"$work/held/job.tmp" && mv "$work/held/job.tmp" "$work/held/job"
    sleep $wait_seconds
fi
exec "$real_binary" "\$@"
EOF
chmod +x "$work/hold-bin/remindersim"
recovery=$work/recovery
prepare "$recovery"
(cd "$recovery" && PATH="$work/hold-bin:$PATH" N=$shards CPUS=1 ./submit.sh) || fail "submit.sh failed in $recovery"
wait_for "shard $victim to start" test -s "$work/held/job"
victim_job=$(cat "$work/held/job")
scancel --full --signal=KILL "$victim_job" || fail "scancel $victim_job failed"
say "killed shard $victim (job $victim_job) while it ran"
wait_for "the other shards to finish and the merge to be cancelled" queue_empty
[ ! -e "$recovery/results/remindersim.sqlite" ] || fail "the merge ran although shard $victim was killed"
[ ! -e "$recovery/results/shard-$victim.sqlite" ] || fail "the killed shard $victim has a shard database"
for k in $(seq 1 "$shards"); do
    [ "$k" = "$victim" ] || [ -f "$recovery/results/shard-$k.sqlite" ] || fail "shard $k did not finish"
done
say "the merge was cancelled; recovering with submit.sh"
submit "$recovery"
[ -f "$recovery/results/remindersim.sqlite" ] || fail "no merged run after the recovery (see $recovery/logs)"
same_run "$recovery/results/remindersim.sqlite" "$recovery/results/Reports"
attempts=$(find "$recovery/logs" -name "shard-$victim-*.out" | wc -l)
[ "$attempts" -eq 2 ] || fail "expected the logs of two attempts of shard $victim, found $attempts"
say "recovered: only shard $victim ran again, both attempts have a log, and the merge equals the unsharded run"
say "passed"
