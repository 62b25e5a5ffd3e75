#!/usr/bin/env sh
# Runs a scenario as SHARDS processes on one machine (PARALLEL at a time) and merges them.
# Usage: scripts/sharded-local.sh SCENARIO.json [OUT_DIR]
# Environment: REMINDERSIM (the binary, default: remindersim on PATH), SHARDS (default 4),
#              PARALLEL (default 2), USERS (optional override of the scenario's user count).
set -eu
scenario=$1
out=${2:-Reports}
bin=${REMINDERSIM:-remindersim}
shards=${SHARDS:-4}
parallel=${PARALLEL:-2}
users=${USERS:+--users $USERS}
mkdir -p "$out/shards"
# The shard databases are this run's scratch: shards left by an earlier run would be merged again.
rm -f "$out"/shards/shard-*.sqlite "$out"/shards/shard-*.sqlite-wal "$out"/shards/shard-*.sqlite-shm
# Each shard is an independent process writing its own database; the threads of the machine are
# shared out between the processes running at once.
seq 1 "$shards" | xargs -P "$parallel" -I{} \
    "$bin" run "$scenario" $users --threads 1 --shard "{}/$shards" --db "$out/shards/shard-{}.sqlite"
"$bin" merge "$out"/shards/shard-*.sqlite --into "$out/remindersim.sqlite" --out "$out"
