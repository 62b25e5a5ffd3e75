#!/usr/bin/env bash
# Release-build import benchmark: generates a log of ROWS events (default 10,000,000) of USERS users
# (default 200,000) at random times over 2025, in random order, and imports it with
# `remindersim import --stats` (rows per second and peak memory on stderr): as CSV, as the same
# events in Amplitude's JSON lines, and as those lines the way Amplitude's Export API ships them, a
# ZIP archive of gzipped parts (PARTS of them, default 24), read with --session none so that every
# form makes its visits by the same 30-minute rule. The JSON and ZIP steps need gzip and zip.
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${ROWS:-10000000}
users=${USERS:-200000}
parts=${PARTS:-24}
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
echo "CSV:" >&2
.build/release/remindersim import "$file" --user user_id --time timestamp --timestamp epochSeconds --stats

# The same events as Amplitude exports them: event_time written yyyy-MM-dd HH:mm:ss.SSSSSS in UTC.
json="$work/events.json"
echo "writing the same events as Amplitude JSON lines into $json" >&2
awk -F, 'NR > 1 {
    t = $2; days = int(t / 86400); rest = t - days * 86400
    z = days + 719468; era = int(z / 146097); doe = z - era * 146097
    yoe = int((doe - int(doe / 1460) + int(doe / 36524) - int(doe / 146096)) / 365)
    doy = doe - (365 * yoe + int(yoe / 4) - int(yoe / 100)); mp = int((5 * doy + 2) / 153)
    d = doy - int((153 * mp + 2) / 5) + 1; m = mp < 10 ? mp + 3 : mp - 9; y = yoe + era * 400 + (m <= 2 ? 1 : 0)
    id = substr($1, 2)
    printf "{\"amplitude_id\":%s,\"user_id\":\"%s\",\"event_time\":\"%04d-%02d-%02d %02d:%02d:%02d.000000\",", id, $1, y, m, d, int(rest / 3600), int(rest % 3600 / 60), rest % 60
    printf "\"event_type\":\"%s\",\"session_id\":%d000,\"event_properties\":{},\"user_properties\":{}}\n", $3, t
}' "$file" > "$json"
rm "$file"
ls -la "$json" >&2
echo "JSON lines:" >&2
.build/release/remindersim import "$json" --format amplitude --session none --stats

mkdir "$work/export"
split -n "l/$parts" -d -a 2 "$json" "$work/export/123456_2025-01-01_"
rm "$json"
for part in "$work/export/"*; do mv "$part" "$part#0.json"; gzip "$part#0.json"; done
(cd "$work" && zip -q -0 -r export.zip export)
rm -r "$work/export"
ls -la "$work/export.zip" >&2
echo "ZIP of gzipped JSON lines:" >&2
.build/release/remindersim import "$work/export.zip" --format amplitude --session none --stats
