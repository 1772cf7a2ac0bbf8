#!/usr/bin/env bash
# Rendering's price: a 1,000-page single-page app (each page a shell whose
# script writes its text and its links to the next pages, so only a
# rendering crawl finds the site) served by python3's http.server on a
# free loopback port, crawled once without rendering and once with
# `--render js` into fresh stores with the release build. Prints one
# Markdown row per crawl: mode, pages done, rendered, wall s, pages/s, CPU
# ms/page (GNU time: the crawler, and Chromium only as far as it was
# reaped before the crawler exited, so the rendering row may understate;
# watch `top` for the browser's share).
#
#   bench/render.sh            # 1,000 pages
#   bench/render.sh 200        # any size
#
# Environment: CRAWL_ARGS="--render-concurrency 4" extra flags of the
# rendering crawl; KEEP=1 keeps the work directory. Needs /usr/bin/chromium
# (Debian: apt-get install chromium) and GNU time.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
PAGES=${1:-1000}
command -v /usr/bin/time >/dev/null || { echo "needs GNU time" >&2; exit 1; }
[ -x /usr/bin/chromium ] || { echo "needs /usr/bin/chromium" >&2; exit 1; }
cargo build --release --locked --quiet
BIN=target/release/crawlscope
[ -n "${CARGO_TARGET_DIR:-}" ] && BIN="$CARGO_TARGET_DIR/release/crawlscope"

WORK=$(mktemp -d)
cleanup() {
  [ -n "${SERVER:-}" ] && kill "$SERVER" 2>/dev/null || true
  [ -n "${KEEP:-}" ] && echo "kept $WORK" >&2 || rm -rf "$WORK"
}
trap cleanup EXIT

# The app: page i's script links pages 2i+1 and 2i+2 (a binary tree, so
# the crawl has work in parallel) and writes a paragraph of text.
mkdir -p "$WORK/site"
cat > "$WORK/site/app.js" <<'JS'
document.addEventListener('DOMContentLoaded', function () {
  var n = parseInt(location.pathname.replace(/\D/g, '') || '0', 10);
  var max = parseInt(document.body.dataset.pages, 10);
  var html = '<h1>Page ' + n + '</h1><p>' +
    'rendered text of page ' + n + ' for the crawl benchmark '.repeat(20) + '</p><nav>';
  [2 * n + 1, 2 * n + 2].forEach(function (k) {
    if (k < max) html += '<a href="/p' + k + '.html">page ' + k + '</a> ';
  });
  document.getElementById('app').innerHTML = html + '</nav>';
  document.title = 'Page ' + n;
});
JS
for ((i = 0; i < PAGES; i++)); do
  printf '<!DOCTYPE html><html><head><title>App</title><script src="/app.js"></script></head><body data-pages="%d"><div id="app"></div></body></html>\n' \
    "$PAGES" > "$WORK/site/p$i.html"
done
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
python3 -m http.server "$PORT" --bind 127.0.0.1 --directory "$WORK/site" >/dev/null 2>&1 &
SERVER=$!
sleep 1

echo "| mode | pages done | rendered | wall s | pages/s | CPU ms/page |"
echo "|---|---|---|---|---|---|"
for mode in off js; do
  extra=()
  [ "$mode" = js ] && read -r -a extra <<< "--render js ${CRAWL_ARGS:-}"
  /usr/bin/time -f '%e %U %S' -o "$WORK/time.$mode" \
    "$BIN" --db "$WORK/db.$mode" crawl "http://127.0.0.1:$PORT/p0.html" --quiet --json \
    "${extra[@]}" > "$WORK/summary.$mode"
  read -r wall user sys < "$WORK/time.$mode"
  python3 - "$mode" "$wall" "$user" "$sys" "$WORK/summary.$mode" <<'PY'
import json, sys
mode, wall, user, sys_s, path = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
s = json.load(open(path))
n = s["fetched"]
print(f"| {mode} | {n} | {s.get('rendered', 0)} | {wall:.1f} | {n / wall:.1f} | {(user + sys_s) * 1000 / max(n, 1):.1f} |")
PY
done
