#!/usr/bin/env bash
# Rendering's price: a 1,000-page single-page app (each page a shell whose
# script fetches the page's JSON, then writes its text, two images and
# its links to the next pages, so only a rendering crawl finds the site)
# served by python3's http.server on a free loopback port, crawled once
# without rendering and once with `--render js` into fresh stores with
# the release build. Prints one Markdown row per crawl: mode, pages done,
# rendered, wall s, pages/s, CPU ms/page. The CPU is the crawler's and
# Chromium's together, read from a cgroup (cpuacct) the crawl runs in
# when /sys/fs/cgroup/cpuacct is writable (root); otherwise GNU time's,
# which counts Chromium only as far as it was reaped, and the row says
# "(crawler)".
#
#   bench/render.sh            # 1,000 pages
#   bench/render.sh 200        # any size
#
# Environment: BIN=path a built binary instead of this tree's release
# build (for before/after pairs); CRAWL_ARGS="--render-concurrency 4"
# extra flags of the rendering crawl; KEEP=1 keeps the work directory. Needs /usr/bin/chromium
# (Debian: apt-get install chromium) and GNU time.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
PAGES=${1:-1000}
command -v /usr/bin/time >/dev/null || { echo "needs GNU time" >&2; exit 1; }
[ -x /usr/bin/chromium ] || { echo "needs /usr/bin/chromium" >&2; exit 1; }
if [ -z "${BIN:-}" ]; then
  cargo build --release --locked --quiet
  BIN=target/release/crawlscope
  [ -n "${CARGO_TARGET_DIR:-}" ] && BIN="$CARGO_TARGET_DIR/release/crawlscope"
fi

WORK=$(mktemp -d)
cleanup() {
  [ -n "${SERVER:-}" ] && kill "$SERVER" 2>/dev/null || true
  [ -n "${KEEP:-}" ] && echo "kept $WORK" >&2 || rm -rf "$WORK"
}
trap cleanup EXIT

# The app: page i's script fetches /data/pi.json, then writes its text,
# two images and links to pages 2i+1 and 2i+2 (a binary tree, so the
# crawl has work in parallel).
mkdir -p "$WORK/site/data" "$WORK/site/img"
cat > "$WORK/site/app.js" <<'JS'
document.addEventListener('DOMContentLoaded', function () {
  var n = parseInt(location.pathname.replace(/\D/g, '') || '0', 10);
  var max = parseInt(document.body.dataset.pages, 10);
  fetch('/data/p' + n + '.json').then(function (r) { return r.json(); }).then(function (d) {
    var html = '<h1>' + d.title + '</h1><p>' + d.text + '</p>' +
      '<img src="/img/a.png" alt="a"><img src="/img/b' + (n % 10) + '.png" alt="b"><nav>';
    [2 * n + 1, 2 * n + 2].forEach(function (k) {
      if (k < max) html += '<a href="/p' + k + '.html">page ' + k + '</a> ';
    });
    document.getElementById('app').innerHTML = html + '</nav>';
    document.title = d.title;
  });
});
JS
python3 - "$WORK/site" "$PAGES" <<'PY'
import base64, json, sys
site, pages = sys.argv[1], int(sys.argv[2])
png = base64.b64decode('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==')
for name in ['a'] + [f'b{i}' for i in range(10)]:
    open(f'{site}/img/{name}.png', 'wb').write(png)
for i in range(pages):
    text = f'rendered text of page {i} for the crawl benchmark ' * 20
    json.dump({'title': f'Page {i}', 'text': text}, open(f'{site}/data/p{i}.json', 'w'))
    open(f'{site}/p{i}.html', 'w').write(
        '<!DOCTYPE html><html><head><title>App</title><script src="/app.js"></script></head>'
        f'<body data-pages="{pages}"><div id="app"></div></body></html>\n')
PY
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
python3 -m http.server "$PORT" --bind 127.0.0.1 --directory "$WORK/site" >/dev/null 2>&1 &
SERVER=$!
sleep 1

echo "| mode | pages done | rendered | wall s | pages/s | CPU ms/page |"
echo "|---|---|---|---|---|---|"
CG=/sys/fs/cgroup/cpuacct/crawlscope-render.$$
mkdir "$CG" 2>/dev/null || CG=
for mode in off js; do
  extra=()
  [ "$mode" = js ] && read -r -a extra <<< "--render js ${CRAWL_ARGS:-}"
  [ -n "$CG" ] && echo 0 > "$CG/cpuacct.usage"
  /usr/bin/time -f '%e %U %S' -o "$WORK/time.$mode" \
    sh -c '[ -n "$1" ] && echo $$ > "$1/cgroup.procs"; shift; exec "$@"' sh "$CG" \
    "$BIN" --db "$WORK/db.$mode" crawl "http://127.0.0.1:$PORT/p0.html" --quiet --json \
    "${extra[@]}" > "$WORK/summary.$mode"
  read -r wall user sys < "$WORK/time.$mode"
  cpu_s=$(python3 -c "print($user + $sys)") who=" (crawler)"
  if [ -n "$CG" ]; then
    sleep 1 # Chromium's last processes leave the group
    cpu_s=$(python3 -c "print($(cat "$CG/cpuacct.usage") / 1e9)") who=""
  fi
  python3 - "$mode" "$wall" "$cpu_s" "$who" "$WORK/summary.$mode" <<'PY'
import json, sys
mode, wall, cpu, who, path = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4], sys.argv[5]
s = json.load(open(path))
n = s["fetched"]
print(f"| {mode} | {n} | {s.get('rendered', 0)} | {wall:.1f} | {n / wall:.1f} | {cpu * 1000 / max(n, 1):.1f}{who} |")
PY
done
[ -n "$CG" ] && rmdir "$CG" 2>/dev/null || true
