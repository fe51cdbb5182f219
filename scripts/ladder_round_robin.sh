#!/usr/bin/env bash
# The house ladder's round robin (issue 11): every pair of rungs plays PAIRS pairs of games on
# SIZE x SIZE through `hexarena gtp` and the referee (examples/gtp_referee.rs). The other rungs
# are bound by their playout caps; the clock-bound house-master thinks MASTER_MS a move, or, with
# MASTER_BUDGET set, runs exactly that many playouts a move (what it affords in a given time on a
# free core: reproducible on a loaded machine, where a wall-clock budget buys less). Each
# pair's games go to OUT/<a>_vs_<b>.txt (last line RESULT ...); then
#   python3 scripts/ladder_elo.py --anchor house-random OUT/*.txt
# prints the Elo table. Build first: cargo build --release --bin hexarena --example gtp_referee
set -euo pipefail
BIN=${BIN:-target/release/hexarena}
REFEREE=${REFEREE:-target/release/examples/gtp_referee}
SIZE=${SIZE:-11}
PAIRS=${PAIRS:-10}
MASTER_MS=${MASTER_MS:-300}
MASTER_BUDGET=${MASTER_BUDGET:-}
OUT=${OUT:-ladder-results}
mkdir -p "$OUT"
RUNGS=(house-random house-novice house-club house-bridge house-master)
seed=1
for ((i = 0; i < ${#RUNGS[@]}; i++)); do
  for ((j = i + 1; j < ${#RUNGS[@]}; j++)); do
    a=${RUNGS[j]} b=${RUNGS[i]}   # the stronger rung is A
    seed=$((seed + 1))
    file="$OUT/${a}_vs_${b}.txt"
    if [[ -s $file ]] && grep -q '^RESULT' "$file"; then continue; fi
    # only house-master reads the fixed time; the others keep their playout caps (move_time_ms
    # would only cut them further, so it is sent to house-master alone)
    master=(--a-cmd "param move_time_ms $MASTER_MS")
    if [[ -n $MASTER_BUDGET ]]; then
      master=(--a-cmd "param budget $MASTER_BUDGET" --a-cmd "param move_time_ms 60000")
    fi
    a_extra=() b_extra=()
    [[ $a == house-master ]] && a_extra=("${master[@]}")
    [[ $b == house-master ]] && b_extra=("${master[@]//--a-cmd/--b-cmd}")
    "$REFEREE" --a "$BIN gtp --strategy $a --seed $((seed * 7))" --a-name "$a" \
      --b "$BIN gtp --strategy $b --seed $((seed * 7 + 1))" --b-name "$b" \
      --size "$SIZE" --pairs "$PAIRS" --move-ms 0 --seed "$seed" \
      "${a_extra[@]}" "${b_extra[@]}" > "$file.part"
    mv "$file.part" "$file"
    tail -1 "$file"
  done
done
