#!/usr/bin/env bash
# The crawl benchmark: for each site size, serve the demo site on a free
# loopback port, crawl it with `crawlscope crawl` (default flags) into a fresh
# temporary store, and report throughput, CPU, memory, store size and query
# latency as one Markdown table row per size.
#
#   bench/run.sh                 # 10,000 and 100,000 pages
#   bench/run.sh 2000 10000      # any sizes
#
# Environment: CRAWL_ARGS="--concurrency 64 ..." extra `crawl` flags;
# PER_CLASS=300 queries per class; KEEP=1 keeps the work directory with
# each size's store (to time reports on it);
# BENCH_DEBUG=1 also writes every RSS sample to WORK/N/samples.txt;
# CARGO_TARGET_DIR as for cargo.
#
# Linux only (/proc, GNU time). Measures: wall, user and sys CPU and peak RSS
# of the crawler (GNU time, else /proc), RssAnon and RssFile peaks sampled
# from /proc/PID/status every 0.1 s (LMDB's map counts as file-backed RSS),
# the demo server's CPU (it shares the machine), bytes served (the stored
# page sizes, checked against the generator), store size (du and `stats`),
# and query latency measured in-process by bench/crawlbench.rs.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=bench/machine.sh
. bench/machine.sh
SIZES=("$@")
[ ${#SIZES[@]} -gt 0 ] || SIZES=(10000 100000)
PER_CLASS=${PER_CLASS:-300}
SAMPLE_S=0.1
TARGET=${CARGO_TARGET_DIR:-target}
BIN=$TARGET/release/crawlscope
HELPER=$TARGET/release/examples/crawlbench

echo "building (release)..." >&2
cargo build --release --quiet --bin crawlscope --example crawlbench

WORK=$(mktemp -d "${TMPDIR:-/tmp}/crawlscope-bench.XXXXXX")
SERVER_PID=""
CRAWL_PID="" # GNU time, or the crawler itself
CPID=""      # the crawler
cleanup() {
    # The crawler first: GNU time does not pass a signal on to its child.
    for p in $CPID $CRAWL_PID $SERVER_PID; do
        kill "$p" 2>/dev/null && wait "$p" 2>/dev/null || true
    done
    if [ "${KEEP:-0}" = 1 ]; then
        echo "kept $WORK" >&2
    else
        rm -rf "$WORK"
    fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Clock ticks per second, for /proc/PID/stat CPU times.
TICKS=$(getconf CLK_TCK)

# user+sys ticks of a live process (fields 14 and 15 of /proc/PID/stat;
# the command name in field 2 may hold spaces, so cut after its ")").
cpu_ticks() {
    local s
    s=$(cat "/proc/$1/stat" 2>/dev/null) || { echo 0; return; }
    s=${s##*) }
    set -- $s
    echo $(( ${12} + ${13} ))
}

# One sample of /proc/PID/status into anon, file, shm, hwm (kB); fails once
# the process is gone or a zombie (no memory lines). The file is read in one
# go (awk): bash's `read` takes it in pieces, and the kernel regenerates it
# between them, so a line that changed length (State, FDSize) would shift
# the rest and lose fields.
sample_status() {
    local out
    out=$(awk '$1 == "RssAnon:" { a = $2 } $1 == "RssFile:" { f = $2 }
               $1 == "RssShmem:" { s = $2 } $1 == "VmHWM:" { h = $2 }
               END { if (a != "") print a, f + 0, s + 0, h + 0 }' "/proc/$1/status" 2>/dev/null) ||
        return 1
    [ -n "$out" ] || return 1
    read -r anon file shm hwm <<<"$out"
}

ROWS=()
DETAILS=()
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
for N in "${SIZES[@]}"; do
    D=$WORK/$N
    mkdir -p "$D"
    M=$D/metrics

    # The server, on a free port; its first stdout line is the base URL.
    "$BIN" serve-demo --port 0 --pages "$N" >"$D/server.out" 2>"$D/server.err" &
    SERVER_PID=$!
    URL=""
    for _ in $(seq 100); do
        URL=$(head -n1 "$D/server.out" 2>/dev/null || true)
        [ -n "$URL" ] && break
        kill -0 "$SERVER_PID" 2>/dev/null || { cat "$D/server.err" >&2; exit 1; }
        sleep 0.05
    done
    [ -n "$URL" ] || { echo "serve-demo printed no URL" >&2; exit 1; }
    HOST=${URL#http://}
    HOST=${HOST%/}
    echo "== $N pages: serving $URL, crawling into $D/store" >&2
    server_cpu0=$(cpu_ticks "$SERVER_PID")

    # The crawl, under GNU time when it is there.
    # shellcheck disable=SC2086
    if [ -x /usr/bin/time ]; then
        /usr/bin/time -v -o "$D/time.txt" \
            "$BIN" --db "$D/store" crawl "$URL" --json ${CRAWL_ARGS:-} >"$D/summary.json" 2>"$D/crawl.err" &
    else
        "$BIN" --db "$D/store" crawl "$URL" --json ${CRAWL_ARGS:-} >"$D/summary.json" 2>"$D/crawl.err" &
    fi
    CRAWL_PID=$!
    # The crawler itself: time's child, or the process we started.
    CPID=""
    for _ in $(seq 200); do
        if [ -x /usr/bin/time ]; then
            CPID=$(cat "/proc/$CRAWL_PID/task/$CRAWL_PID/children" 2>/dev/null | awk '{print $1}')
        else
            CPID=$CRAWL_PID
        fi
        [ -n "$CPID" ] && break
        kill -0 "$CRAWL_PID" 2>/dev/null || break
        sleep 0.01
    done
    peak_anon=0 peak_file=0 peak_total=0 peak_hwm=0 last_cpu=0 samples=0
    t0=$(date +%s.%N)
    while [ -n "$CPID" ] && sample_status "$CPID"; do
        samples=$((samples + 1))
        [ -z "${BENCH_DEBUG:-}" ] || echo "$(date +%s.%N) $anon $file $shm $hwm" >>"$D/samples.txt"
        total=$((anon + file + shm))
        ((anon > peak_anon)) && peak_anon=$anon
        ((file > peak_file)) && peak_file=$file
        ((total > peak_total)) && peak_total=$total
        peak_hwm=$hwm
        [ -x /usr/bin/time ] || last_cpu=$(cpu_ticks "$CPID")
        sleep "$SAMPLE_S"
    done
    rc=0
    wait "$CRAWL_PID" || rc=$?
    t1=$(date +%s.%N)
    CRAWL_PID="" CPID=""
    if [ "$rc" != 0 ]; then
        echo "crawl failed (exit $rc):" >&2
        tail -n 20 "$D/crawl.err" >&2
        exit 1
    fi
    server_cpu1=$(cpu_ticks "$SERVER_PID")
    kill "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=""

    {
        echo "pages=$N"
        echo "sample_s=$SAMPLE_S"
        echo "samples=$samples"
        echo "peak_anon_kb=$peak_anon"
        echo "peak_file_kb=$peak_file"
        echo "peak_total_kb=$peak_total"
        echo "hwm_kb=$peak_hwm"
        echo "server_cpu_s=$(awk -v a="$server_cpu0" -v b="$server_cpu1" -v t="$TICKS" 'BEGIN { printf "%.2f", (b - a) / t }')"
        if [ -s "$D/time.txt" ]; then
            awk -F': ' '
                /User time \(seconds\)/ { print "user_s=" $2 }
                /System time \(seconds\)/ { print "sys_s=" $2 }
                /Maximum resident set size/ { print "maxrss_kb=" $2 }
                /Elapsed \(wall clock\)/ {
                    n = split($2, p, ":"); s = 0
                    for (i = 1; i <= n; i++) s = s * 60 + p[i]
                    print "wall_s=" s
                }' "$D/time.txt"
        else
            # No GNU time: the last /proc sample (up to SAMPLE_S short).
            echo "user_s=$(awk -v c="$last_cpu" -v t="$TICKS" 'BEGIN { printf "%.2f", c / t }')"
            echo "sys_s=0"
            echo "maxrss_kb=$peak_hwm"
            echo "wall_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')"
        fi
        echo "du_bytes=$(du -sb "$D/store" | awk '{print $1}')"
        echo "summary_json=$D/summary.json"
        echo "stats_json=$D/stats.json"
    } >"$M"
    "$BIN" --db "$D/store" stats --json >"$D/stats.json"
    echo "   measuring bytes and query latency ($PER_CLASS queries per class)..." >&2
    "$HELPER" measure --db "$D/store" --pages "$N" --host "$HOST" --per-class "$PER_CLASS" >>"$M"
    ROWS+=("$("$HELPER" row "$M" 2>"$D/details")")
    DETAILS+=("$(cat "$D/details")")
    echo "${ROWS[-1]}" >&2
    # Free the disk before the next size, unless the stores are asked for.
    [ "${KEEP:-0}" = 1 ] || rm -rf "$D/store"
done

echo
machine_line "$LOAD0" "\`crawl\` with default flags${CRAWL_ARGS:+ plus $CRAWL_ARGS}; demo server on the same machine"
echo
"$HELPER" header
printf '%s\n' "${ROWS[@]}"
echo
echo "Details:"
printf '%s\n' "${DETAILS[@]}"
