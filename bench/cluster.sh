#!/usr/bin/env bash
# What sharing the frontier costs: the nginx bench site (bench/sitegen.rs,
# bench/nginx_site.sh) crawled in pairs, run by run, by one embedded
# crawler (the LMDB frontier, the default) and by N crawlers on one shared
# frontier on a local redis-server (`crawl --frontier`), each with its own
# store. On one host the N crawlers share its cores, so the figure is the
# coordination's cost, not a speed-up: CPU a page of the crawlers and of
# redis-server together against the embedded crawl's, the wall of the
# pair, and what the frontier did a page (Redis commands and their CPU),
# with the bytes Redis holds per URL it knows at the crawl's end.
#
#   bench/cluster.sh                 # 10,000 pages; 1, 2 and 3 crawlers; 3 pairs each
#   bench/cluster.sh 10000 "1 3"     # crawler counts to measure
#
# Environment: RUNS=N pairs per count (default 3); SITE=DIR PORT=N reuse a
# site sitegen wrote; KEEP=1 keeps the work directory. Needs nginx (installed
# if missing, Debian) and redis-server.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=bench/machine.sh
. bench/machine.sh
# shellcheck source=bench/nginx_site.sh
. bench/nginx_site.sh
PAGES=${1:-10000}
COUNTS=${2:-1 2 3}
RUNS=${RUNS:-3}
TARGET=${CARGO_TARGET_DIR:-target}
BIN=$TARGET/release/crawlscope
command -v redis-server >/dev/null || { echo "error: redis-server is needed: apt-get install redis-server" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "error: GNU time (/usr/bin/time) is needed: apt-get install time" >&2; exit 1; }
need_nginx

echo "building (release)..." >&2
cargo build --release --quiet --bin crawlscope --example sitegen
make_work cluster
serve_site "$WORK" "$PAGES" "$TARGET/release/examples/sitegen"
REDIS_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save '' --appendonly no --dir "$WORK" \
    --daemonize yes --pidfile "$WORK/redis.pid" --logfile "$WORK/redis.log"
trap 'redis-cli -p "$REDIS_PORT" shutdown nosave >/dev/null 2>&1 || true; stop_site; [ "${KEEP:-0}" = 1 ] && echo "kept $WORK" >&2 || rm -rf "$WORK"' EXIT
for _ in $(seq 50); do redis-cli -p "$REDIS_PORT" ping >/dev/null 2>&1 && break; sleep 0.1; done
FRONTIER="redis://127.0.0.1:$REDIS_PORT/"
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)

# redis-server's CPU seconds and commands so far.
redis_figures() {
    redis-cli -p "$REDIS_PORT" info all | tr -d '\r' |
        awk -F: '/^used_cpu_(user|sys):/ { cpu += $2 } /^total_commands_processed:/ { cmds = $2 }
                 END { printf "%.3f %d\n", cpu, cmds }'
}

# One timed crawl: GNU time's report in $1.time, the crawl's summary in $1.json.
timed_crawl() {
    local out=$1
    shift
    /usr/bin/time -v -o "$out.time" "$BIN" --db "$out.db" crawl "$BASE" --json "$@" >"$out.json" 2>"$out.err"
}

for N in $COUNTS; do
    for RUN in $(seq "$RUNS"); do
        echo "pair $RUN of $RUNS, $N crawler(s)..." >&2
        P=$WORK/pair-$N-$RUN
        mkdir -p "$P"
        timed_crawl "$P/embedded"
        rm -rf "$P/embedded.db"
        redis-cli -p "$REDIS_PORT" flushall >/dev/null
        read -r CPU0 CMD0 < <(redis_figures)
        T0=$(date +%s%N)
        for C in $(seq "$N"); do timed_crawl "$P/shared-$C" --frontier "$FRONTIER" & done
        wait
        echo $(( ($(date +%s%N) - T0) / 1000000 )) >"$P/shared.wall_ms"
        read -r CPU1 CMD1 < <(redis_figures)
        echo "$(echo "$CPU1 - $CPU0" | bc) $((CMD1 - CMD0))" >"$P/redis"
        redis-cli -p "$REDIS_PORT" info memory | tr -d '\r' | awk -F: '/^used_memory:/ { print $2 }' >"$P/redis.bytes"
        redis-cli -p "$REDIS_PORT" flushall >/dev/null
        redis-cli -p "$REDIS_PORT" info memory | tr -d '\r' | awk -F: '/^used_memory:/ { print $2 }' >"$P/redis.empty"
        rm -rf "$P"/shared-*.db
    done
done

# What a queued URL costs Redis: QUEUED URLs (the site's own, each again
# with a query to reach the count) offered by the crawlers' own offer
# script to an empty server, 500 a call.
QUEUED=${QUEUED:-100000}
SHA=$(cat src/crawl/shared/lua/common.lua src/crawl/shared/lua/offer.lua | redis-cli -p "$REDIS_PORT" -x script load)
KEYS=$(for k in meta queue info seen lease expiry done; do printf '%s ' "crawlscope:{${BASE}}:$k"; done)
EMPTY=$(redis-cli -p "$REDIS_PORT" info memory | tr -d '\r' | awk -F: '/^used_memory:/ { print $2 }')
(cd "$WORK/site" && find . -name '*.html' | sed "s|^\./|$BASE|") |
    awk -v n="$QUEUED" '{ u[NR] = $0 } END { for (i = 0; i < n; i++) print u[i % NR + 1] "?v=" int(i / NR) }' |
    awk -v sha="$SHA" -v keys="$KEYS" '{ args = args " " $0 " 1 0" } NR % 500 == 0 { print "EVALSHA " sha " 8 " keys "crawlscope:slots" args; args = "" }
        END { if (args != "") print "EVALSHA " sha " 8 " keys "crawlscope:slots" args }' |
    redis-cli -p "$REDIS_PORT" >/dev/null
FULL=$(redis-cli -p "$REDIS_PORT" info memory | tr -d '\r' | awk -F: '/^used_memory:/ { print $2 }')
echo "$(( (FULL - EMPTY) / QUEUED )) bytes a queued URL in Redis ($QUEUED queued; the site's URLs average $(cd "$WORK/site" && find . -name '*.html' | sed "s|^\./|$BASE|" | awk '{ s += length($0) } END { printf "%.0f", s / NR }') characters)" >&2

machine_line "$LOAD0" "\`crawl\` with default flags, embedded against \`--frontier\` on redis-server $(redis-server --version | sed 's/.*v=\([^ ]*\).*/\1/') on the same machine; $("$NGINX" -v 2>&1 | sed 's/.*: //')"
python3 - "$WORK" "$RUNS" "$PAGES" "$COUNTS" <<'EOF'
import glob, json, re, statistics, sys
work, runs, pages, counts = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4].split()
def field(t, name):
    return re.search(re.escape(name) + r":\s*([\d.:]+)", t).group(1)
def timed(prefix):
    t = open(prefix + ".time").read()
    parts = [float(p) for p in field(t, "Elapsed (wall clock) time (h:mm:ss or m:ss)").split(":")]
    wall = sum(p * 60 ** i for i, p in enumerate(reversed(parts)))
    cpu = float(field(t, "User time (seconds)")) + float(field(t, "System time (seconds)"))
    return wall, cpu, json.load(open(prefix + ".json"))["fetched"]
print("| crawlers | pages fetched | wall s (embedded) | wall ratio | CPU ms/page (embedded) "
      "| CPU ratio, Redis's counted | Redis CPU ms/page | Redis commands/page | Redis bytes/URL |")
print("|---|---|---|---|---|---|---|---|---|")
for n in counts:
    rows = []
    for run in range(1, runs + 1):
        p = f"{work}/pair-{n}-{run}"
        e_wall, e_cpu, e_docs = timed(f"{p}/embedded")
        shared = [timed(f) for f in sorted(f[:-5] for f in glob.glob(f"{p}/shared-*.time"))]
        docs = sum(s[2] for s in shared)
        s_wall = int(open(f"{p}/shared.wall_ms").read()) / 1000
        r_cpu, r_cmds = open(f"{p}/redis").read().split()
        r_cpu, r_cmds = float(r_cpu), int(r_cmds)
        s_cpu = sum(s[1] for s in shared) + r_cpu
        known = int(open(f"{p}/redis.bytes").read()) - int(open(f"{p}/redis.empty").read())
        rows.append(dict(docs=docs, e_wall=e_wall, wall=s_wall / e_wall, e_cpu=1000 * e_cpu / e_docs,
                         cpu=(s_cpu / docs) / (e_cpu / e_docs), r_cpu=1000 * r_cpu / docs,
                         cmds=r_cmds / docs, bytes=known / docs))
    med = {k: statistics.median(r[k] for r in rows) for k in rows[0]}
    spread = lambda k: f"{min(r[k] for r in rows):.2f}-{max(r[k] for r in rows):.2f}"
    print(f"| {n} | {med['docs']:,.0f} | {med['e_wall']:.1f} | {med['wall']:.2f} ({spread('wall')}) "
          f"| {med['e_cpu']:.2f} | {med['cpu']:.2f} ({spread('cpu')}) | {med['r_cpu']:.3f} "
          f"| {med['cmds']:.1f} | {med['bytes']:,.0f} |")
EOF
