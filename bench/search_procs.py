#!/usr/bin/env python3
"""Search latency as a user sees it: each query a whole `crawlscope search`
process (store opened as a user's query opens it), per query class, with
the process start (`crawlscope --version`, median of 20) subtracted.

    crawlbench site-queries --db STORE --site SITE --each 2>queries.tsv
    bench/search_procs.py BIN STORE queries.tsv [PER_CLASS]

queries.tsv is the `--each` output (class, time, hits, query); PER_CLASS
queries of each class are run (default 100). Prints p50/p99 per class.
"""
import statistics
import subprocess
import sys
import time


def run(cmd):
    t = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return (time.perf_counter() - t) * 1000


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, round((len(xs) - 1) * p))]


def main():
    binary, store, tsv = sys.argv[1:4]
    per_class = int(sys.argv[4]) if len(sys.argv) > 4 else 100
    classes = {}
    for line in open(tsv, encoding="utf-8"):
        parts = line.rstrip("\n").split("\t")
        if len(parts) == 4:
            classes.setdefault(parts[0], []).append(parts[3])
    start = statistics.median(run([binary, "--version"]) for _ in range(20))
    print(f"process start {start:.2f} ms (subtracted)")
    for cls, qs in classes.items():
        step = max(1, len(qs) // per_class)
        times = [run([binary, "--db", store, "search", q, "--limit", "50", "--json"]) - start
                 for q in qs[::step][:per_class]]
        print(f"{cls}: n={len(times)} p50 {pct(times, 0.5):.2f} ms, p99 {pct(times, 0.99):.2f} ms, "
              f"max {max(times):.2f} ms")


if __name__ == "__main__":
    main()
