#!/usr/bin/env bash
# How fast the console answers a key while it crawls: `crawlscope demo`
# runs in tmux (a real terminal), and for each sample a key that moves the
# focus is sent and the screen polled until the footer shows the new pane's
# keys. Prints p50 / p90 / max in ms (polling adds up to ~2 ms; tmux's own
# round trip is included, so this is an upper bound on the app's latency).
#
#   bench/key_latency.sh [PAGES] [SAMPLES] [KEYS]   # defaults: 30000 40 "2 3"
#
# KEYS: the focus keys to alternate between (e.g. "3 7" for Log and Findings).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
PAGES=${1:-30000}
SAMPLES=${2:-40}
read -r -a KEYS <<<"${3:-2 3}"
BIN=${CARGO_TARGET_DIR:-target}/release/crawlscope
command -v tmux >/dev/null || { echo "error: tmux is needed" >&2; exit 1; }
cargo build --release --quiet --bin crawlscope
S=crawlscope-latency-$$
tmux new-session -d -s "$S" -x 160 -y 45 "$BIN demo --pages $PAGES"
trap 'tmux kill-session -t "$S" 2>/dev/null || true' EXIT
# Wait until the crawl is running.
for _ in $(seq 100); do
    tmux capture-pane -p -t "$S" | grep -q "running" && break
    sleep 0.1
done
footer() { tmux capture-pane -p -t "$S" | tail -1; }
# Start from a known focus, so that every sample changes it.
tmux send-keys -t "$S" "${KEYS[0]}"
sleep 0.3
times=()
for i in $(seq "$SAMPLES"); do
    key=${KEYS[$((i % ${#KEYS[@]}))]}
    before=$(footer)
    start=$(date +%s%N)
    tmux send-keys -t "$S" "$key"
    while [ "$(footer)" = "$before" ]; do
        if [ $(( ($(date +%s%N) - start) / 1000000 )) -gt 2000 ]; then break; fi
    done
    times+=($(( ($(date +%s%N) - start) / 1000 )))
    sleep 0.05
done
state=$(tmux capture-pane -p -t "$S" | grep -o "● [a-z]*" | head -1)
printf '%s\n' "${times[@]}" | sort -n | awk -v state="$state" '
    { t[NR] = $1 }
    END { printf "key latency over %d samples while %s: p50 %.1f ms, p90 %.1f ms, max %.1f ms\n",
          NR, state, t[int(NR * 0.5)] / 1000, t[int(NR * 0.9)] / 1000, t[NR] / 1000 }'
