#!/usr/bin/env bash
# Release-build import benchmark: generates a log of ROWS events (default 10,000,000) of USERS users
# (default 200,000) at random times over 2025, in random order, and imports it with
# `remindersim import --stats` (rows per second and peak memory on stderr).
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${ROWS:-10000000}
users=${USERS:-200000}
swift build -c release --product remindersim >&2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
file="$work/events.csv"
echo "generating $rows rows of $users users into $file" >&2
awk -v rows="$rows" -v users="$users" 'BEGIN {
    srand(20261202)
    print "user_id,timestamp,event"
    start = 1735689600  # 2025-01-01T00:00:00Z
    for (i = 0; i < rows; i++) {
        printf "u%d,%d,open\n", int(rand() * users), start + int(rand() * 31536000)
    }
}' > "$file"
ls -la "$file" >&2
.build/release/remindersim import "$file" --user user_id --time timestamp --timestamp epochSeconds --stats
