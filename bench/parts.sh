#!/usr/bin/env bash
# What each part of the crawl costs, in pairs: for each part (bodies,
# pairs, links, history) PAIRS pairs of crawls of one sitegen site served
# by nginx (bench/nginx_site.sh), each a crawl with every part and one
# with that part off (CRAWLSCOPE_BENCH_OFF), in alternating order, each
# into a fresh store. Prints the machine line (bench/machine.sh) and a
# Markdown table, a row a part: CPU ms/page and wall seconds both ways
# (medians), the median of the pairs' CPU ratios (off / all) and the
# store size both ways (medians).
#
#   bench/parts.sh               # 10,000 pages, 5 pairs a part
#   bench/parts.sh 10000 9       # PAGES PAIRS
#
# Builds nothing: BIN=path the crawlscope to run (default
# $CARGO_TARGET_DIR/release/crawlscope, else target/release/crawlscope;
# `cargo build --release --bin crawlscope --example sitegen`),
# SITEGEN=path the site writer (default examples/sitegen beside BIN).
# Environment: CRAWL_ARGS extra crawl flags; SITE=DIR PORT=N reuse a site
# sitegen wrote earlier for http://127.0.0.1:N/; SITE_WORDS=N words a page;
# KEEP=1 keeps the work directory (each crawl's summary, stderr and times).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=bench/machine.sh
. bench/machine.sh
# shellcheck source=bench/nginx_site.sh
. bench/nginx_site.sh
PAGES=${1:-10000}
PAIRS=${2:-5}
[[ "$PAGES" =~ ^[1-9][0-9]*$ ]] || { echo "error: PAGES must be a whole number of pages, 1 or more (got '$PAGES')" >&2; exit 2; }
[[ "$PAIRS" =~ ^[1-9][0-9]*$ ]] || { echo "error: PAIRS must be a whole number of pairs, 1 or more (got '$PAIRS')" >&2; exit 2; }
BIN=${BIN:-${CARGO_TARGET_DIR:-target}/release/crawlscope}
SITEGEN=${SITEGEN:-$(dirname "$BIN")/examples/sitegen}
[ -x "$BIN" ] || { echo "error: no crawlscope at $BIN: build it (cargo build --release --bin crawlscope) or set BIN" >&2; exit 1; }
[ -n "${SITE:-}" ] || [ -x "$SITEGEN" ] || { echo "error: no sitegen at $SITEGEN: build it (cargo build --release --example sitegen), set SITEGEN, or SITE=DIR PORT=N" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "error: GNU time (/usr/bin/time) is needed: apt-get install time" >&2; exit 1; }
need_nginx

make_work parts
serve_site "$WORK" "$PAGES" "$SITEGEN"

# One crawl into a fresh store with the parts $3 off (empty: none), as
# side $2 of pair $4 of part $1: a line `part side pair wall cpu fetched
# store` in results.txt.
crawl_once() {
    local part=$1 side=$2 off=$3 pair=$4 store=$WORK/store run=$WORK/$1-$2-$4
    rm -rf "$store"
    # shellcheck disable=SC2086
    if ! CRAWLSCOPE_BENCH_OFF=$off /usr/bin/time -f '%e %U %S' -o "$run.time" \
        "$BIN" --db "$store" crawl "$BASE" --json ${CRAWL_ARGS:-} >"$run.json" 2>"$run.err"; then
        echo "error: the crawl with '$off' off failed:" >&2
        cat "$run.err" >&2
        exit 1
    fi
    local wall user sys fetched
    read -r wall user sys <"$run.time"
    fetched=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["fetched"])' "$run.json")
    echo "$part $side $pair $wall $(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }') $fetched $(du -sb "$store" | cut -f1)" >>"$WORK/results.txt"
}

LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
for PART in bodies pairs links history; do
    for PAIR in $(seq "$PAIRS"); do
        echo "$PART: pair $PAIR of $PAIRS..." >&2
        # Alternating which goes first: the second crawl of a pair finds
        # the site in the page cache and the host warmer.
        if [ $((PAIR % 2)) = 1 ]; then
            crawl_once "$PART" all "" "$PAIR"
            crawl_once "$PART" off "$PART" "$PAIR"
        else
            crawl_once "$PART" off "$PART" "$PAIR"
            crawl_once "$PART" all "" "$PAIR"
        fi
    done
done
rm -rf "$WORK/store"
machine_line "$LOAD0" "\`crawl\` of $PAGES sitegen pages with every part and with one off (CRAWLSCOPE_BENCH_OFF), $PAIRS pair$([ "$PAIRS" = 1 ] || echo s) a part${CRAWL_ARGS:+, plus $CRAWL_ARGS}; $("$NGINX" -v 2>&1 | sed 's/.*: //') on the same machine"
python3 - "$WORK/results.txt" <<'EOF'
import collections, statistics, sys
runs = collections.defaultdict(dict)
for line in open(sys.argv[1]):
    part, side, pair, wall, cpu, fetched, store = line.split()
    runs[(part, int(pair))][side] = {
        "wall": float(wall),
        "cpu_ms": float(cpu) * 1000 / max(int(fetched), 1),
        "store": int(store),
    }
print("| part off | CPU ms/page all | CPU ms/page off | wall s all | wall s off "
      "| CPU off/all (median of pairs) | store MB all | store MB off |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
for part in ["bodies", "pairs", "links", "history"]:
    pairs = [runs[k] for k in sorted(runs) if k[0] == part]
    def med(side, key, scale=1):
        return statistics.median(p[side][key] for p in pairs) * scale
    ratio = statistics.median(p["off"]["cpu_ms"] / p["all"]["cpu_ms"] for p in pairs)
    print(f"| {part} | {med('all', 'cpu_ms'):.3f} | {med('off', 'cpu_ms'):.3f} "
          f"| {med('all', 'wall'):.2f} | {med('off', 'wall'):.2f} | {ratio:.3f} "
          f"| {med('all', 'store', 1e-6):.1f} | {med('off', 'store', 1e-6):.1f} |")
EOF
