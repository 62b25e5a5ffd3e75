#!/usr/bin/env bash
# Release-build benchmark of the default scenario (five configurations and the holdout, 90 days).
# Each size runs in a fresh process, so peak memory is per size. Prints machine information, a
# table per size, the scaling exponents of time and memory against users (log-log slopes; ~1 and
# ~0 are what "linear time, flat memory" means), and thread scaling at THREAD_USERS users.
# Usage: scripts/benchmark.sh [USERS...]   (default: 10000 100000 1000000 10000000)
# Environment: THREAD_USERS (default 1000000; 0 skips the thread scaling).
# Then, where python3 with numpy is present and the peer's folder exists (PEER_DIR, default
# ../shared/bench), the peer comparison: the reference scenario at PEER_USERS users (default
# 1000000; 0 skips it) against the vectorised numpy peer running both arms, alternating PEER_RUNS
# times (default 5) and quoting medians, and the bare loop floor.swift (built with swiftc -O) per
# session per core.
# Then, unless CONFIG_COUNTS is empty or 0, how a run's cost grows with its configurations: the first
# N of the 1,000 of Datasets/thousand-periods.json (2,000 users, 30 days) for each N of CONFIG_COUNTS
# (default "100 200 400 1000"), with the command's wall time, the report's time, peak memory and the
# database's size, and their log-log slopes against N (1.0 = linear).
# With AGAINST=<commit>, last: that commit built in a temporary worktree, and the jobs teams repeat
# run alternately with both builds AGAINST_RUNS times (default 3), medians and ratios quoted: the
# default scenario at AGAINST_USERS users (default 1000000), tune Datasets/tune-periods.json, and
# calibrate of the worked example (Datasets/calibration-example.json on its past test) fitting
# CALIBRATE_FIT (default baseResponse,optOutPerDelivery) at CALIBRATE_USERS users per arm
# (default 200000); whether both builds recommend and fit the same is printed beside.
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

config_counts=${CONFIG_COUNTS-100 200 400 1000}
if [ -n "$config_counts" ] && [ "$config_counts" != 0 ]; then
    echo
    echo "cost against configurations (Datasets/thousand-periods.json, 2,000 users, 30 days, $(nproc) threads):"
    printf "%14s %9s %9s %9s %9s\n" configurations wall_s report_s peak_MB db_MB
    rows=()
    for n in $config_counts; do
        list=$(seq -s '], [' 1 "$n")
        sed -E "s/^( *\"timePeriods\": ).*/\1[[$list]],/" Datasets/thousand-periods.json >"$work/configs.json"
        rm -f "$work/configs.sqlite"*
        TIMEFORMAT='%R'
        t=$( { time "$bin" run "$work/configs.json" --threads "$(nproc)" --stats --db "$work/configs.sqlite" \
            --out "$work/configs" >/dev/null 2>"$work/configs.stats"; } 2>&1)
        line=$(grep '^stats:' "$work/configs.stats")
        rss=$(sed -E 's/.*peak RSS ([0-9.]+) MB.*/\1/' <<<"$line")
        rep=$(sed -E 's/.*report ([0-9.]+) s.*/\1/' <<<"$line")
        db=$(awk -v b="$(cat "$work/configs.sqlite"* | wc -c)" 'BEGIN { printf "%.1f", b / 1e6 }')
        rows+=("$n $t $rep $rss $db")
        printf "%14s %9s %9s %9s %9s\n" "$n" "$t" "$rep" "$rss" "$db"
    done
    if [ ${#rows[@]} -ge 2 ]; then
        printf '%s\n' "${rows[@]}" | awk '
            { x = log($1); n++; sx += x; sxx += x*x; for (i = 2; i <= 5; i++) { y = log($i > 0 ? $i : 1e-3); s[i] += y; sxy[i] += x*y } }
            END {
                d = n*sxx - sx*sx
                printf "log-log slope against configurations: wall %.2f, report %.2f, memory %.2f, database %.2f\n",
                    (n*sxy[2] - sx*s[2]) / d, (n*sxy[3] - sx*s[3]) / d, (n*sxy[4] - sx*s[4]) / d, (n*sxy[5] - sx*s[5]) / d
            }'
    fi
fi

peer_dir=${PEER_DIR:-../shared/bench}
peer_users=${PEER_USERS:-1000000}
peer_runs=${PEER_RUNS:-5}
if [ "$peer_users" -gt 0 ] && [ -f "$peer_dir/ref_numpy.py" ] && [ -f "$peer_dir/reference.json" ] &&
    python3 -c 'import numpy' 2>/dev/null; then
    echo
    echo "peer comparison at $peer_users users, $peer_dir/reference.json (configuration and holdout, 90 days),"
    echo "alternating $peer_runs times, medians; wall and CPU seconds:"
    TIMEFORMAT='%R %U %S'
    ours=() peer=() cpu=() peercpu=()
    for _ in $(seq "$peer_runs"); do
        t=$( { time "$bin" run "$peer_dir/reference.json" --users "$peer_users" --threads "$(nproc)" --stats \
            --db "$work/peer.sqlite" --out "$work/peer" >/dev/null 2>"$work/stats"; } 2>&1)
        read -r w u s <<<"$t"
        ours+=("$w")
        cpu+=("$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')")
        sessions=$(sed -nE 's/.*, wall [0-9.]+ s, sessions ([0-9]+),.*/\1/p' "$work/stats")
        t=$( { time sh -c "python3 '$peer_dir/ref_numpy.py' --users $peer_users --days 90 --seed 1 >/dev/null &&
            python3 '$peer_dir/ref_numpy.py' --users $peer_users --days 90 --seed 1 --no-reminder >/dev/null"; } 2>&1)
        read -r w u s <<<"$t"
        peer+=("$w")
        peercpu+=("$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')")
    done
    median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
    o=$(median "${ours[@]}") p=$(median "${peer[@]}") c=$(median "${cpu[@]}") pc=$(median "${peercpu[@]}")
    printf "%-34s %8s s wall %8s s CPU\n" "remindersim run ($(nproc) threads)" "$o" "$c"
    printf "%-34s %8s s wall %8s s CPU\n" "ref_numpy.py, both arms" "$p" "$pc"
    awk -v o="$o" -v p="$p" -v c="$c" -v pc="$pc" \
        'BEGIN { printf "peer wall / our wall: %.2f; peer CPU / our CPU: %.2f\n", p / o, pc / c }'
    ns=$(awk -v c="$c" -v n="$sessions" 'BEGIN { printf "%.1f", c * 1e9 / n }')
    echo "our CPU time per session: $ns ns ($sessions sessions)"
    if command -v swiftc >/dev/null && [ -f "$peer_dir/floor.swift" ]; then
        swiftc -O "$peer_dir/floor.swift" -o "$work/floor" 2>/dev/null
        floor=()
        for _ in $(seq "$peer_runs"); do
            # CPU time per session (what floor.swift prints is wall time, which a busy machine inflates).
            t=$( { time "$work/floor" "$peer_users" >"$work/floor.out"; } 2>&1)
            read -r _ u s <<<"$t"
            n=$(sed -nE 's/.*sessions ([0-9]+) .*/\1/p' "$work/floor.out")
            floor+=("$(awk -v u="$u" -v s="$s" -v n="$n" 'BEGIN { printf "%.1f", (u + s) * 1e9 / n }')")
        done
        f=$(median "${floor[@]}")
        awk -v ns="$ns" -v f="$f" 'BEGIN { printf "floor.swift: %s ns CPU per session; ours / floor: %.2f\n", f, ns / f }'
    fi
fi

against=${AGAINST:-}
if [ -n "$against" ]; then
    against_runs=${AGAINST_RUNS:-3}
    against_users=${AGAINST_USERS:-1000000}
    calibrate_fit=${CALIBRATE_FIT:-baseResponse,optOutPerDelivery}
    calibrate_users=${CALIBRATE_USERS:-200000}
    rev=$(git rev-parse --short "$against^{commit}")
    tree="$work/against"
    git worktree add --detach "$tree" "$rev" >/dev/null 2>&1
    trap 'git worktree remove --force "$tree" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
    echo
    echo "building $rev for the comparison..." >&2
    (cd "$tree" && swift build -c release --product remindersim >&2)
    old_bin="$tree/.build/release/remindersim"
    echo "against $rev ($(git log -1 --format=%s "$rev" | cut -c1-70)), $(nproc) threads, alternating $against_runs times, medians:"
    printf "%-56s %10s %10s %8s\n" job "$rev s" "this s" ratio
    TIMEFORMAT='%R'
    # Runs one job with a build; prints its wall time. Outputs go to $work/<label>-<build>.
    job() {
        local label=$1 build=$2 bin=$3
        shift 3
        rm -rf "$work/$label-$build" "$work/$label-$build.sqlite"*
        mkdir -p "$work/$label-$build"
        { time "$bin" "$@" --db "$work/$label-$build.sqlite" --out "$work/$label-$build" >"$work/$label-$build.txt" 2>/dev/null; } 2>&1
    }
    calibrate_job() {
        local build=$1 bin=$2
        rm -f "$work/calibrated-$build.json"
        { time "$bin" calibrate Datasets/calibration-example.json Datasets/calibration-past-test.csv --fit "$calibrate_fit" \
            --users "$calibrate_users" --threads "$(nproc)" --out "$work/calibrated-$build.json" >"$work/calibrate-$build.txt" 2>/dev/null; } 2>&1
    }
    median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
    compare() {
        local name=$1 a b
        shift
        local olds=() news=()
        for _ in $(seq "$against_runs"); do
            olds+=("$("$@" old "$old_bin")")
            news+=("$("$@" new "$bin")")
        done
        a=$(median "${olds[@]}") b=$(median "${news[@]}")
        printf "%-56s %10s %10s %8s\n" "$name" "$a" "$b" "$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", a / b }')"
    }
    run_default() { job default "$1" "$2" run --users "$against_users" --threads "$(nproc)"; }
    run_tune() { job tune "$1" "$2" tune Datasets/tune-periods.json --threads "$(nproc)"; }
    compare "run (default scenario, $against_users users)" run_default
    compare "tune Datasets/tune-periods.json" run_tune
    compare "calibrate --fit $calibrate_fit ($calibrate_users users)" calibrate_job
    recommended() { sed -n 's/^Recommendation: //p' "$1"; }
    if [ "$(recommended "$work/tune-old.txt")" = "$(recommended "$work/tune-new.txt")" ]; then
        echo "tune: both recommend $(recommended "$work/tune-new.txt")"
    else
        echo "tune: $rev recommends $(recommended "$work/tune-old.txt"), this build $(recommended "$work/tune-new.txt")"
    fi
    fitted() { grep -E '^ *(baseResponse|fatigue|optOutPerDelivery|quietFactor|dormantFactor|responseDelayMinutes)' "$1" | head -6; }
    if cmp -s "$work/calibrated-old.json" "$work/calibrated-new.json"; then
        echo "calibrate: the same calibrated scenario, byte for byte"
    else
        echo "calibrate: the fits differ; $rev:"
        fitted "$work/calibrate-old.txt"
        echo "this build:"
        fitted "$work/calibrate-new.txt"
    fi
fi
