# Sourced by the bench scripts: the line that says what a row was measured
# on (rows from different hosts of one kind differ by more than most
# changes, so a row without its machine, commit and load says little).
#
#   machine_line LOAD WHAT    # WHAT: how the crawl ran, in a few words
machine_line() {
    local cpu l2 mem rev dirty
    cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)
    l2=$(cat /sys/devices/system/cpu/cpu0/cache/index2/size 2>/dev/null || true)
    mem=$(awk '/^MemTotal/ { printf "%.0f", $2 / 1048576 }' /proc/meminfo)
    rev=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
    dirty=$(git status --porcelain -- src Cargo.toml 2>/dev/null | head -c1)
    echo "Machine: $(nproc) × ${cpu:-unknown CPU}${l2:+ (L2 $l2 a core)}, ${mem} GiB RAM, $(uname -sr); crawlscope ${rev}${dirty:+ (modified)}, $2; load average before the run: $1."
}
