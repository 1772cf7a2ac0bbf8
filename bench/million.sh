#!/usr/bin/env bash
# The million-page rows in one command, on both sites: the bench site
# (bench/sitegen.rs, served by nginx from tmpfs: this host's disk reads
# ~180 files a second, so a 1M-file site on it measures the disk) and the
# demo site (`crawlscope serve-demo`). For each site: the 10k crawl RUNS10
# times (3 unless set; medians), then one crawl of PAGES pages, each into
# a fresh store on the disk, with wall, CPU a page and peak heap (RssAnon
# of the crawler, sampled every 0.2 s); then on the large store, each a
# whole process as a user runs it: every `report KIND --limit 50 --json`,
# `report summary`, `stats` and `page` of the start URL (slowest kept),
# search p50/p99 per query class (bench/search_procs.py, 100 queries a
# class, process start subtracted) and the console's first frame
# (bench/first_frame.sh). Prints the machine line and one Markdown row a
# site; the details go to WORK/<site>/.
#
#   bench/million.sh                  # 1,000,000 pages, both sites (~30 min)
#   bench/million.sh 100000           # any size
#   SITES=demo bench/million.sh       # one site
#
# Environment: BIN=path (default: build target/release/crawlscope and the
# bench examples); RUNS10=N 10k crawls; SITES="bench demo"; SHM=DIR where
# the bench site is written (default /dev/shm); KEEP=1 keeps the work
# directory and the large stores (STORES/big-SITE). Needs nginx (installed from Debian if
# missing), GNU time, tmux and python3.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=bench/machine.sh
. bench/machine.sh
# shellcheck source=bench/nginx_site.sh
. bench/nginx_site.sh
PAGES=${1:-1000000}
RUNS10=${RUNS10:-3}
SITES=${SITES:-bench demo}
[[ "$PAGES" =~ ^[1-9][0-9]*$ ]] || { echo "error: PAGES must be a whole number (got '$PAGES')" >&2; exit 2; }
[[ "$RUNS10" =~ ^[1-9][0-9]*$ ]] || { echo "error: RUNS10 must be 1 or more (got '$RUNS10')" >&2; exit 2; }
TARGET=${CARGO_TARGET_DIR:-target}
# The machine line names the checkout's commit: a BIN given from
# elsewhere is named beside it.
BUILT=${BIN:+binary $BIN, }
if [ -z "${BIN:-}" ]; then
    echo "building (release)..." >&2
    cargo build --release --quiet --bin crawlscope --example sitegen --example crawlbench
    BIN=$TARGET/release/crawlscope
fi
EXAMPLES=$(dirname "$BIN")/examples
for tool in "$BIN" "$EXAMPLES/sitegen" "$EXAMPLES/crawlbench"; do
    [ -x "$tool" ] || { echo "error: no $tool (cargo build --release --bin crawlscope --example sitegen --example crawlbench)" >&2; exit 1; }
done
[ -x /usr/bin/time ] || { echo "error: GNU time (/usr/bin/time) is needed: apt-get install time" >&2; exit 1; }
command -v tmux >/dev/null || { echo "error: tmux is needed (bench/first_frame.sh)" >&2; exit 1; }
need_nginx

WORK=$(mktemp -d "${SHM:-/dev/shm}/crawlscope-million.XXXXXX")
STORES=$(mktemp -d "${TMPDIR:-/tmp}/crawlscope-million.XXXXXX")
PIDS=()
cleanup() {
    find "$WORK" -name nginx.pid -exec sh -c 'kill "$(cat "$1")"' _ {} \; 2>/dev/null
    for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
    if [ "${KEEP:-0}" = 1 ]; then echo "kept $WORK and $STORES" >&2; else rm -rf "$WORK" "$STORES"; fi
}
trap cleanup EXIT
# nginx's workers run as an unprivileged user: let them reach the sites.
chmod 755 "$WORK"
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)

# crawl_once URL STORE OUT: one crawl into a fresh STORE; writes
# "wall cpu_s docs heap_kb store_bytes" to OUT.
crawl_once() {
    local url=$1 store=$2 out=$3 timer anon
    rm -rf "$store"
    /usr/bin/time -v -o "$out.time" "$BIN" --db "$store" crawl "$url" --json >"$out.json" 2>"$out.err" &
    timer=$!
    anon=$(peak_heap_kb "$timer")
    wait "$timer"
    python3 - "$out" "$anon" "$(du -sb "$store" | cut -f1)" <<'EOF'
import json, re, sys
out, anon, size = sys.argv[1], sys.argv[2], sys.argv[3]
t = open(out + ".time").read()
f = lambda name: re.search(re.escape(name) + r":\s*([\d.:]+)", t).group(1)
wall = sum(float(p) * 60 ** i for i, p in enumerate(reversed(f("Elapsed (wall clock) time (h:mm:ss or m:ss)").split(":"))))
cpu = float(f("User time (seconds)")) + float(f("System time (seconds)"))
docs = json.load(open(out + ".json"))["fetched"]
open(out, "w").write(f"{wall} {cpu} {docs} {anon} {size}\n")
EOF
}

# The demo server for N pages on a free port; sets URL.
serve_demo() {
    local n=$1 out=$2
    "$BIN" serve-demo --port 0 --pages "$n" >"$out" 2>/dev/null &
    PIDS+=($!)
    URL=""
    for _ in $(seq 100); do URL=$(head -1 "$out" 2>/dev/null || true); [ -n "$URL" ] && break; sleep 0.1; done
    [ -n "$URL" ] || { echo "error: serve-demo printed no URL" >&2; exit 1; }
}

# The slowest of every read a user makes of STORE: "what seconds".
reads() {
    local store=$1 start slowest="none 0" t0 t
    start=$("$BIN" --db "$store" point list --json | sed -n 's/.*"url": *"\([^"]*\)".*/\1/p' | head -1)
    "$BIN" --db "$store" report summary --json >/dev/null # counts stale figures once, not timed
    while read -r name args; do
        t0=$(date +%s%N)
        # shellcheck disable=SC2086
        "$BIN" --db "$store" $args >/dev/null
        t=$(( ($(date +%s%N) - t0) / 1000000 ))
        echo "$name $t ms" >>"$D/reads.txt"
        [ "$t" -gt "${slowest#* }" ] && slowest="$name $t"
    done < <(
        for k in summary broken redirects titles descriptions headings duplicates directives canonicals \
            slow large depth mimetypes hosts external changes near-duplicates fragments indexability \
            links sitemaps resources images; do echo "report-$k report $k --limit 50 --json"; done
        echo "stats stats --json"
        echo "page page $start --json"
    )
    echo "$slowest"
}

for SITE_KIND in $SITES; do
    D=$WORK/$SITE_KIND
    mkdir -p "$D"
    echo "$SITE_KIND: 10k crawls..." >&2
    if [ "$SITE_KIND" = bench ]; then
        serve_site "$D" 10000 "$EXAMPLES/sitegen"
        for r in $(seq "$RUNS10"); do crawl_once "$BASE" "$STORES/10k" "$D/10k-$r"; done
        kill "$(cat "$D/nginx.pid")"
        echo "$SITE_KIND: writing $PAGES pages..." >&2
        mkdir -p "$D/big"
        serve_site "$D/big" "$PAGES" "$EXAMPLES/sitegen"
        BIG_URL=$BASE
        SITE_DIR=$D/big/site
    else
        serve_demo 10000 "$D/server10k.out"
        for r in $(seq "$RUNS10"); do crawl_once "$URL" "$STORES/10k" "$D/10k-$r"; done
        serve_demo "$PAGES" "$D/server.out"
        BIG_URL=$URL
    fi
    echo "$SITE_KIND: crawling $PAGES pages..." >&2
    crawl_once "$BIG_URL" "$STORES/big" "$D/big-1"
    echo "$SITE_KIND: reads..." >&2
    SLOWEST=$(reads "$STORES/big")
    if [ "$SITE_KIND" = bench ]; then
        "$EXAMPLES/crawlbench" site-queries --db "$STORES/big" --site "$SITE_DIR" --per-class 100 --each \
            >/dev/null 2>"$D/queries.tsv"
    else
        "$EXAMPLES/crawlbench" measure --db "$STORES/big" --pages "$PAGES" --host "$(echo "${BIG_URL#http://}" | sed 's#/$##')" \
            --per-class 100 --each >/dev/null 2>"$D/queries.tsv"
    fi
    python3 bench/search_procs.py "$BIN" "$STORES/big" "$D/queries.tsv" 100 >"$D/search.txt"
    RUNS=3 bench/first_frame.sh "$STORES/big" "$BIN" >"$D/frame.txt" 2>&1 || echo "first frame: failed" >"$D/frame.txt"
    machine_line "$LOAD0" "$BUILT$SITE_KIND site, $PAGES pages against 10k; reads each a whole process"
    python3 - "$D" "$RUNS10" "$SLOWEST" <<'EOF'
import statistics, sys
d, runs, slowest = sys.argv[1], int(sys.argv[2]), sys.argv[3].split()
def row(path):
    wall, cpu, docs, anon, size = open(path).read().split()
    return float(wall), float(cpu), int(docs), int(anon) / 1024, int(size)
small = [row(f"{d}/10k-{r}") for r in range(1, runs + 1)]
rate10 = statistics.median(docs / wall for wall, _, docs, _, _ in small)
heap10 = statistics.median(a for *_, a, _ in small)
wall, cpu, docs, heap, size = row(f"{d}/big-1")
search = " · ".join(l.split(":")[0] + " " + l.split("p50 ")[1].split(", max")[0].replace(" ms, p99 ", "/")
                    for l in open(f"{d}/search.txt") if " p50 " in l)
# bench/first_frame.sh's rows: "| first frame (...) | MS |".
frame = [l.split("|")[2].strip() for l in open(f"{d}/frame.txt") if l.startswith("| first frame")]
print("| docs | pages/s (10k) | x 10k rate | CPU ms/page | peak heap MiB (10k) | x 10k heap | store MB "
      "| slowest read | search p50/p99 ms | first frame |")
print(f"| {docs:,} | {docs / wall:,.0f} ({rate10:,.0f}) | {docs / wall / rate10:.2f} | {cpu * 1000 / docs:.2f} "
      f"| {heap:,.0f} ({heap10:,.0f}) | {heap / heap10:.2f} | {size / 1e6:,.0f} "
      f"| {slowest[0]} {int(slowest[1]):,} ms | {search} | {frame[0] + ' ms' if frame else 'failed'} |")
EOF
    [ -f "$D/big/nginx.pid" ] && kill "$(cat "$D/big/nginx.pid")" 2>/dev/null
    if [ "${KEEP:-0}" = 1 ]; then mv "$STORES/big" "$STORES/big-$SITE_KIND"; else rm -rf "$STORES/big" "$D/big/site"; fi
    rm -rf "$STORES/10k"
done
