#!/usr/bin/env bash
# Renders a report.html in headless Chromium (Debian's `chromium` package) to a PNG screenshot, with
# the network cut off, and fails when the page cannot be rendered: a check that a real browser can
# read the report without fetching anything.
#
#   scripts/screenshot-report.sh [REPORT.html] [OUT.png]
#
# Defaults: Reports/example/report.html and report.png beside the script's temporary folder.
set -euo pipefail
cd "$(dirname "$0")/.."

page=${1:-Reports/example/report.html}
out=${2:-${TMPDIR:-/tmp}/remindersim-report.png}
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -z "$browser" ]; then
    echo "screenshot-report: no chromium found (apt-get install chromium)" >&2
    exit 69
fi
if [ ! -f "$page" ]; then
    echo "screenshot-report: $page: no such file" >&2
    exit 66
fi
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
rm -f "$out"
# A proxy that does not exist: any network request the page tried would fail rather than succeed.
"$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$profile" \
    --proxy-server="http://127.0.0.1:9" --proxy-bypass-list="<-loopback>" \
    --window-size=${WINDOW:-1280,4000} --virtual-time-budget=2000 \
    --screenshot="$out" "file://$(realpath "$page")" >/dev/null 2>"$profile/log" || {
    cat "$profile/log" >&2
    exit 1
}
if [ ! -s "$out" ] || [ "$(head -c 8 "$out" | od -An -tx1 | tr -d ' \n')" != "89504e470d0a1a0a" ]; then
    echo "screenshot-report: chromium wrote no PNG for $page" >&2
    cat "$profile/log" >&2
    exit 1
fi
echo "$out"
