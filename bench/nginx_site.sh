# Sourced by the bench scripts that crawl a site crawlscope did not make
# (bench/nginx.sh, bench/parts.sh): a site bench/sitegen.rs writes, served
# by nginx on a free loopback port.
#
#   need_nginx                      # sets NGINX; installs nginx (Debian) if missing
#   make_work NAME                  # sets WORK, a directory gone at exit
#   serve_site WORK PAGES SITEGEN   # sets PORT, BASE, RAW (bytes of HTML)
#   peak_heap_kb PID                # the peak RssAnon of PID's child (a crawler under GNU time)
#
# serve_site writes PAGES pages with the SITEGEN binary into WORK/site
# (SITE_WORDS=60 words of text per page, default 560, ~6 KB pages), or,
# with SITE=DIR PORT=N, serves a site sitegen wrote earlier for
# http://127.0.0.1:N/; nginx runs until the script exits.
need_nginx() {
    if ! command -v nginx >/dev/null 2>&1 && [ ! -x /usr/sbin/nginx ]; then
        echo "installing nginx..." >&2
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        apt-get install -y -qq nginx-light >/dev/null 2>&1 || apt-get install -y -qq nginx >/dev/null
    fi
    NGINX=$(command -v nginx || echo /usr/sbin/nginx)
}

serve_site() {
    local work=$1 pages=$2 sitegen=$3
    # nginx workers run as an unprivileged user: let them read the site.
    chmod 755 "$work"
    if [ -n "${SITE:-}" ]; then
        [ -n "${PORT:-}" ] || { echo "error: SITE=DIR needs PORT=N, the port its pages were written for" >&2; exit 2; }
        ln -s "$(realpath "$SITE")" "$work/site"
    else
        PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
        "$sitegen" "$work/site" "$pages" "http://127.0.0.1:$PORT/" "${SITE_WORDS:-560}" >&2
    fi
    BASE="http://127.0.0.1:$PORT/"
    RAW=$(find -L "$work/site" -name '*.html' -printf '%s\n' | awk '{s+=$1} END {print s}')

    mkdir -p "$work/logs"
    cat >"$work/nginx.conf" <<EOF
worker_processes 1;
pid $work/nginx.pid;
error_log $work/logs/error.log warn;
events { worker_connections 1024; }
http {
    access_log off;
    default_type text/html;
    types { text/html html; }
    sendfile on;
    keepalive_requests 100000;
    server {
        listen 127.0.0.1:$PORT;
        root $work/site;
        index index.html;
    }
}
EOF
    "$NGINX" -c "$work/nginx.conf" -p "$work"
    for _ in $(seq 50); do curl -sf -o /dev/null "$BASE" 2>/dev/null && break; sleep 0.1; done
}

# A fresh work directory in WORK (named for $1), removed at exit with
# the nginx serve_site starts in it; KEEP=1 keeps it.
make_work() {
    WORK=$(mktemp -d "${TMPDIR:-/tmp}/crawlscope-$1.XXXXXX")
    trap 'stop_site; [ "${KEEP:-0}" = 1 ] && echo "kept $WORK" >&2 || rm -rf "$WORK"' EXIT
}

stop_site() {
    [ -f "$WORK/nginx.pid" ] && kill "$(cat "$WORK/nginx.pid")" 2>/dev/null || true
}

# The peak RssAnon (heap, KiB) of the child of process $1 (the crawler
# GNU time runs), sampled every 0.2 s until $1 ends.
peak_heap_kb() {
    local timer=$1 pid a anon=0
    while kill -0 "$timer" 2>/dev/null; do
        pid=$(pgrep -P "$timer" || true)
        if [ -n "$pid" ]; then
            a=$(awk '$1 == "RssAnon:" { print $2 }' "/proc/$pid/status" 2>/dev/null || echo 0)
            [ "${a:-0}" -gt "$anon" ] && anon=$a
        fi
        sleep 0.2
    done
    echo "$anon"
}
