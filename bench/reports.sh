#!/usr/bin/env bash
# Read-side timings of one store, each a whole process as a user runs it:
# every `report` kind (--json, so nothing is cut to a table's rows), `page`
# of the start URL (the page most pages link to), `stats`, and `check`.
# Prints a Markdown table: what ran, wall seconds (median of RUNS runs, 3
# unless set), peak RSS. The store is only read, except that a store
# whose report figures are stale gets them counted once (`report summary`
# says so on stderr): the first row, `summary (first)`, shows that cost;
# the medians after it are the kept figures'.
#
# usage: bench/reports.sh STORE [BINARY]   (BINARY: target/release/crawlscope)
set -euo pipefail

store=${1:?usage: bench/reports.sh STORE [BINARY]}
bin=${2:-target/release/crawlscope}
runs=${RUNS:-3}
[[ -f $store/data.mdb ]] || { echo "no store at $store" >&2; exit 1; }
[[ -x $bin ]] || { echo "no binary at $bin (cargo build --release)" >&2; exit 1; }

kinds=(summary broken redirects titles descriptions headings duplicates
  directives canonicals slow large depth mimetypes hosts external changes
  near-duplicates fragments indexability links sitemaps resources images)

# Wall seconds and peak RSS (KB) of one run of the command.
one() {
  local t
  t=$(mktemp)
  /usr/bin/time -f '%e %M' -o "$t" "$bin" --db "$store" "$@" >/dev/null 2>&1 || true
  cat "$t"
  rm -f "$t"
}

# The median wall of RUNS runs and the largest RSS.
row() {
  local name=$1
  shift
  local walls=() rss=0 w m
  for _ in $(seq "$runs"); do
    read -r w m < <(one "$@")
    walls+=("$w")
    ((m > rss)) && rss=$m
  done
  local median
  median=$(printf '%s\n' "${walls[@]}" | sort -n | sed -n "$(((runs + 1) / 2))p")
  printf '| %s | %s | %s MB |\n' "$name" "$median" "$((rss / 1024))"
}

start=$("$bin" --db "$store" point list --json |
  sed -n 's/.*"url": *"\([^"]*\)".*/\1/p' | head -1)

echo "| what | wall s (median of $runs) | peak RSS |"
echo "|---|---|---|"
read -r w m < <(one report summary --json)
printf '| summary (first) | %s | %s MB |\n' "$w" "$((m / 1024))"
for k in "${kinds[@]}"; do
  row "report $k" report "$k" --json
done
[[ -n $start ]] && row "page $start" page "$start" --json
row stats stats --json
runs=1
row check check
