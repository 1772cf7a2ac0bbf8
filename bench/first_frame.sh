#!/usr/bin/env bash
# How soon the console shows a store: `crawlscope --db STORE` runs in tmux
# (a real terminal, 160x45) and the screen is polled until the status bar
# shows the run state (`idle`: the first frame is drawn) and then until it
# shows the store's page count (PAGES, as the status bar writes it, e.g.
# `1.0M`; skipped when not given). Prints the median of RUNS runs (5
# unless set) of each, in ms, beside tmux's own start-up (the same poll
# on a shell that prints `idle` at once), which the figures include.
#
# usage: bench/first_frame.sh STORE [BINARY] [PAGES]
set -euo pipefail

store=${1:?usage: bench/first_frame.sh STORE [BINARY] [PAGES]}
bin=${2:-target/release/crawlscope}
pages=${3:-}
runs=${RUNS:-5}
[[ -f $store/data.mdb ]] || { echo "no store at $store" >&2; exit 1; }
[[ -x $bin ]] || { echo "no binary at $bin (cargo build --release)" >&2; exit 1; }
command -v tmux >/dev/null || { echo "error: tmux is needed" >&2; exit 1; }

now_us() { echo $(($(date +%s%N) / 1000)); }

# Microseconds from starting `$1` in a fresh tmux session until the
# screen holds `$2`, then until it holds `$3` (0 when not asked);
# nothing after 20 s is a failure.
one() {
  local cmd=$1 first=$2 then=$3 s=crawlscope-frame-$$ t0 t1=0 t2=0 screen
  t0=$(now_us)
  tmux new-session -d -s "$s" -x 160 -y 45 "$cmd"
  while :; do
    screen=$(tmux capture-pane -p -t "$s" 2>/dev/null || true)
    if ((t1 == 0)) && grep -q -- "$first" <<<"$screen"; then t1=$(now_us); fi
    if ((t1 > 0)) && { [[ -z $then ]] || grep -q -- "$then" <<<"$screen"; }; then
      t2=$(now_us)
      break
    fi
    if (($(now_us) - t0 > 20000000)); then
      tmux kill-session -t "$s" 2>/dev/null || true
      echo "error: nothing showed '$first' ${then:+then '$then' }within 20 s" >&2
      exit 1
    fi
  done
  tmux kill-session -t "$s" 2>/dev/null || true
  echo "$(((t1 - t0) / 1000)) $([[ -n $then ]] && echo $(((t2 - t0) / 1000)) || echo 0)"
}

median() { sort -n | sed -n "$(((runs + 1) / 2))p"; }

base=() first=() filled=()
for _ in $(seq "$runs"); do
  read -r b _ < <(one "sh -c 'echo idle; sleep 30'" idle "")
  base+=("$b")
  read -r f p < <(one "$bin --db $store" idle "$pages")
  first+=("$f")
  filled+=("$p")
done
echo "| what | ms (median of $runs) |"
echo "|---|---|"
echo "| tmux start-up alone | $(printf '%s\n' "${base[@]}" | median) |"
echo "| first frame (\`idle\` shown) | $(printf '%s\n' "${first[@]}" | median) |"
[[ -n $pages ]] && echo "| page count \`$pages\` shown | $(printf '%s\n' "${filled[@]}" | median) |"
exit 0
