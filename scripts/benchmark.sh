#!/usr/bin/env bash
# Release-build benchmark of the default scenario (five configurations and the holdout, 90 days).
# Each size runs in a fresh process, so peak memory is per size. Prints machine information, a
# table per size, the scaling exponents of time and memory against users (log-log slopes; ~1 and
# ~0 are what "linear time, flat memory" means), and thread scaling at THREAD_USERS users.
# Usage: scripts/benchmark.sh [USERS...]   (default: 10000 100000 1000000 10000000)
# Environment: THREAD_USERS (default 1000000; 0 skips the thread scaling).
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product remindersim >&2
bin=.build/release/remindersim
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(10000 100000 1000000 10000000)
thread_users=${THREAD_USERS:-1000000}

cpu=$(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo 2>/dev/null || echo unknown)
echo "machine: $(nproc) cores ($cpu), $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(uname -sm)"
echo "toolchain: $(swift --version 2>/dev/null | head -1)"
echo "date: $(date -u +%Y-%m-%d)"
echo

# One run; prints: users threads wall sessions rate rss store report
measure() {
    local users=$1 threads=$2 line
    line=$("$bin" run --users "$users" --threads "$threads" --stats --db "$work/bench.sqlite" --out "$work/out" \
        2>&1 >/dev/null | grep '^stats:')
    sed -E 's/.*users ([0-9]+), wall ([0-9.]+) s, sessions ([0-9]+), ([0-9]+) sessions\/s per core, threads ([0-9]+), peak RSS ([0-9.]+) MB, store ([0-9.]+) s, report ([0-9.]+) s.*/\1 \5 \2 \3 \4 \6 \7 \8/' <<<"$line"
}

printf "%10s %7s %9s %12s %17s %11s %9s %9s\n" users threads wall_s sessions sessions/s/core peak_MB store_s report_s
results=()
for n in "${sizes[@]}"; do
    r=$(measure "$n" "$(nproc)")
    results+=("$r")
    read -r u t w s rate rss st rep <<<"$r"
    printf "%10s %7s %9s %12s %17s %11s %9s %9s\n" "$u" "$t" "$w" "$s" "$rate" "$rss" "$st" "$rep"
done

if [ ${#results[@]} -ge 2 ]; then
    printf '%s\n' "${results[@]}" | awk '
        { x = log($1); yt = log($3); ym = log($6); n++; sx += x; sxx += x*x; st += yt; sm += ym; sxt += x*yt; sxm += x*ym }
        END {
            d = n*sxx - sx*sx
            printf "\nscaling exponent, wall time vs users: %.2f (1.0 = linear)\n", (n*sxt - sx*st) / d
            printf "scaling exponent, peak memory vs users: %.2f (0.0 = flat)\n", (n*sxm - sx*sm) / d
        }'
fi

if [ "$thread_users" -gt 0 ]; then
    echo
    echo "thread scaling at $thread_users users:"
    printf "%7s %9s %9s\n" threads wall_s speedup
    base=""
    for t in $(seq 1 "$(nproc)"); do
        read -r _ _ w _ <<<"$(measure "$thread_users" "$t")"
        [ -n "$base" ] || base=$w
        printf "%7s %9s %9.2f\n" "$t" "$w" "$(awk -v b="$base" -v w="$w" 'BEGIN { print b / w }')"
    done
fi
