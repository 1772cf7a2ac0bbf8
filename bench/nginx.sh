#!/usr/bin/env bash
# The crawl benchmark on a site crawlscope did not make, served by a process
# that is not crawlscope: bench/sitegen.rs writes N static pages (Zipf
# vocabulary of 64,000 words, ~20 links a page in every relative form),
# nginx serves them on a free loopback port, and `crawlscope crawl` crawls
# them into a fresh store, RUNS times (3 unless set: the host's speed
# drifts between crawls). Prints the machine line (CPU and its L2, the
# commit, the load before the first crawl: bench/machine.sh) and one
# Markdown row, each crawl figure the median of the runs: pages, documents
# fetched, wall, pages/s, CPU ms/page, peak RSS (GNU time: heap + the
# mapped store) and peak RssAnon (heap alone, sampled from /proc every
# 0.2 s), raw HTML, store size and store/raw; then, on the last crawl's
# store, phrase query p50/p99 (top 50, in-process, 300 phrases of the
# site's pages: bench/crawlbench.rs site-queries) and the slowest `report`
# kind with its wall time (a whole process each, --limit 50).
#
#   bench/nginx.sh               # 10,000 pages
#   bench/nginx.sh 100000        # any size
#
# Environment: CRAWL_ARGS="--concurrency 64 --per-host 64" extra crawl
# flags; SITE_WORDS=60 words of text per page (default 560, ~6 KB pages);
# RUNS=1 one crawl instead of the median of 3; KEEP=1 keeps the work
# directory; SITE=DIR PORT=N reuse a site sitegen wrote earlier for
# http://127.0.0.1:N/ (a million pages take minutes to write). Installs
# nginx (Debian) if missing.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=bench/machine.sh
. bench/machine.sh
# shellcheck source=bench/nginx_site.sh
. bench/nginx_site.sh
PAGES=${1:-10000}
RUNS=${RUNS:-3}
[[ "$RUNS" =~ ^[1-9][0-9]*$ ]] || { echo "error: RUNS must be a whole number of crawls, 1 or more (got '$RUNS')" >&2; exit 2; }
TARGET=${CARGO_TARGET_DIR:-target}
BIN=$TARGET/release/crawlscope

need_nginx
[ -x /usr/bin/time ] || { echo "error: GNU time (/usr/bin/time) is needed: apt-get install time" >&2; exit 1; }

echo "building (release)..." >&2
cargo build --release --quiet --bin crawlscope --example sitegen --example crawlbench

make_work nginx
serve_site "$WORK" "$PAGES" "$TARGET/release/examples/sitegen"

LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
# One crawl into a fresh store: GNU time's report in time-$1.txt, the
# peak heap in anon-$1 (the crawler is GNU time's child: sampled until it
# ends), the store's size in size-$1. Each run but the last drops its store.
crawl_once() {
    local run=$1 store=$WORK/store-$1 timer anon
    # shellcheck disable=SC2086
    /usr/bin/time -v -o "$WORK/time-$run.txt" "$BIN" --db "$store" crawl "$BASE" --json ${CRAWL_ARGS:-} \
        >"$WORK/summary.json" 2>"$WORK/crawl.err" &
    timer=$!
    anon=$(peak_heap_kb "$timer")
    wait "$timer"
    echo "$anon" >"$WORK/anon-$run"
    du -sb "$store" | cut -f1 >"$WORK/size-$run"
    if [ "$run" -lt "$RUNS" ]; then rm -rf "$store"; else mv "$store" "$WORK/store"; fi
}
for RUN in $(seq "$RUNS"); do
    echo "crawl $RUN of $RUNS..." >&2
    crawl_once "$RUN"
done
"$TARGET/release/examples/crawlbench" site-queries --db "$WORK/store" --site "$WORK/site" >"$WORK/queries.txt"
SLOWEST=0
for KIND in summary broken redirects titles descriptions headings duplicates directives canonicals slow large depth mimetypes hosts external changes near-duplicates fragments indexability links sitemaps resources images; do
    T0=$(date +%s%N)
    "$BIN" --db "$WORK/store" report "$KIND" --limit 50 >/dev/null
    T=$(( ($(date +%s%N) - T0) / 1000000 ))
    echo "report $KIND: $T ms" >>"$WORK/reports.txt"
    [ "$T" -gt "$SLOWEST" ] && { SLOWEST=$T; SLOWEST_KIND=$KIND; }
done
echo "slowest report: $SLOWEST_KIND $SLOWEST ms (all in $WORK/reports.txt)" >&2
machine_line "$LOAD0" "\`crawl\` with default flags${CRAWL_ARGS:+ plus $CRAWL_ARGS}; $("$NGINX" -v 2>&1 | sed 's/.*: //') on the same machine"
python3 - "$WORK" "$RAW" "$RUNS" "$PAGES" "$SLOWEST_KIND $SLOWEST" <<'EOF'
import json, re, statistics, sys
work, raw, runs, pages = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
slowest = sys.argv[5].split()
q = dict(l.split("=", 1) for l in open(f"{work}/queries.txt").read().splitlines())
s = json.load(open(f"{work}/summary.json"))
def field(t, name):
    return re.search(re.escape(name) + r":\s*([\d.:]+)", t).group(1)
def measures(run):
    t = open(f"{work}/time-{run}.txt").read()
    parts = [float(p) for p in field(t, "Elapsed (wall clock) time (h:mm:ss or m:ss)").split(":")]
    return {
        "wall": sum(p * 60 ** i for i, p in enumerate(reversed(parts))),
        "cpu": float(field(t, "User time (seconds)")) + float(field(t, "System time (seconds)")),
        "rss": int(field(t, "Maximum resident set size (kbytes)")) / 1024,
        "anon": int(open(f"{work}/anon-{run}").read()) / 1024,
        "store": int(open(f"{work}/size-{run}").read()),
    }
every = [measures(r) for r in range(1, runs + 1)]
# Each figure is the median of the runs (the host's speed drifts between
# crawls); the spread of the two that matter most goes to stderr.
med = {k: statistics.median(m[k] for m in every) for k in every[0]}
wall_s, cpu, rss, anon, store = med["wall"], med["cpu"], med["rss"], med["anon"], med["store"]
docs = s["fetched"]
def each(key, scale, fmt):
    return ", ".join(format(m[key] * scale, fmt) for m in every)
print(f"{runs} crawl{'s' if runs > 1 else ''}: wall {each('wall', 1, '.2f')} s; "
      f"CPU {each('cpu', 1000 / max(docs, 1), '.2f')} ms/page; "
      f"store {each('store', 1 / raw, '.3f')} x", file=sys.stderr)
print("| pages | docs | wall s | pages/s | CPU ms/page | peak RSS MiB | peak heap MiB | raw MB "
      "| store MB | store/raw | phrase p50/p99 ms | slowest report |")
print(f"| {pages:,} | {docs:,} | {wall_s:.1f} | {docs / wall_s:,.0f} | {cpu * 1000 / max(docs, 1):.2f} "
      f"| {rss:,.0f} | {anon:,.0f} | {raw / 1e6:.1f} | {store / 1e6:.1f} | {store / raw:.2f} "
      f"| {float(q['q_phrase_p50_ms']):.1f} / {float(q['q_phrase_p99_ms']):.1f} "
      f"| {slowest[0]} {int(slowest[1]):,} ms |")
EOF
