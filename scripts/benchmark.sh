#!/usr/bin/env bash
# Release-build benchmark of the default scenario: wall time, sessions per second per core and
# peak memory at several user counts, each in a fresh process so peak memory is per size.
# Usage: scripts/benchmark.sh [USERS...]   (default: 100000 1000000)
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product remindersim >&2
bin=.build/release/remindersim
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(100000 1000000)

echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(uname -m), $(swift --version 2>/dev/null | head -1)"
echo "date: $(date -u +%Y-%m-%d)"
printf "%12s %8s %10s %14s %22s %12s\n" users threads wall_s sessions sessions_per_s_per_core peak_rss_mb
for n in "${sizes[@]}"; do
    line=$("$bin" run --users "$n" --stats 2>&1 >/dev/null | grep '^stats:')
    wall=$(sed -E 's/.*wall ([0-9.]+) s.*/\1/' <<<"$line")
    sessions=$(sed -E 's/.*sessions ([0-9]+),.*/\1/' <<<"$line")
    rate=$(sed -E 's/.* ([0-9]+) sessions\/s per core.*/\1/' <<<"$line")
    threads=$(sed -E 's/.*threads ([0-9]+),.*/\1/' <<<"$line")
    rss=$(sed -E 's/.*peak RSS ([0-9.]+) MB.*/\1/' <<<"$line")
    printf "%12s %8s %10s %14s %22s %12s\n" "$n" "$threads" "$wall" "$sessions" "$rate" "$rss"
done
