#!/usr/bin/env bash
# Regenerates Reports/example/ from the default scenario (20,000 users), exactly as the test
# that keeps it current does.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --product remindersim >&2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
.build/debug/remindersim run --users 20000 --threads 2 --db "$work/example.sqlite" --out "$work/out" >/dev/null
rm -rf Reports/example
mkdir -p Reports
cp -R "$work/out/default-1" Reports/example
echo "Reports/example updated" >&2
