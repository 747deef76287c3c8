#!/usr/bin/env bash
# The arenas behind the strength claims in docs/bots.md (issue: bots and arena).
#
#   tools/measure_bots.sh [OUT] [JOBS] [MATCH...]
#
# OUT (default out/bots) gets one directory per match; JOBS (default 0 = one worker per
# core) is passed to --jobs. Every arena runs with --resume, so running the script again
# (after a crash, or on the next machine session with OUT copied along) plays only the
# games still missing. Name matches to run only those, e.g. `tools/measure_bots.sh out/bots
# 2 md-greedy-random tn-levels-2-1`. Results: OUT/<match>/results.md.
set -euo pipefail
OUT=${1:-out/bots}
JOBS=${2:-0}
shift $(( $# < 2 ? $# : 2 ))
TABLETOP=${TABLETOP:-tabletop}
SEED=2026

declare -A MATCHES=(
  # The targets: 200 games (a multiple of the seatings, so seats are balanced).
  [tn-greedy-random]="terranova --bots greedy,random --games 200"
  [tn-mcts3-random]="terranova --bots mcts:3@1s,random --games 200"
  [tn-mcts3-greedy]="terranova --bots mcts:3@1s,greedy --games 200"
  [md-greedy-random]="medina --bots greedy,random,random --games 201"
  [md-mcts3-random]="medina --bots mcts:3@1s,random,random --games 201"
  [md-mcts3-greedy]="medina --bots mcts:3@1s,greedy,greedy --games 201"
  # One game seats all three bots: every pairing in every game.
  [md-mcts3-greedy-random]="medina --bots mcts:3@1s,greedy,random --games 204"
  # Neighbouring levels, 100 games each.
  [tn-levels-2-1]="terranova --bots mcts:2,mcts:1 --games 100 --seed 1"  # measured with seed 1
  [tn-levels-3-2]="terranova --bots mcts:3,mcts:2 --games 100"
  [tn-levels-4-3]="terranova --bots mcts:4,mcts:3 --games 100"
  [tn-levels-5-4]="terranova --bots mcts:5,mcts:4 --games 100"
  [md-levels-2-1]="medina --bots mcts:2,mcts:1,mcts:1 --games 102"
  [md-levels-3-2]="medina --bots mcts:3,mcts:2,mcts:2 --games 102"
  [md-levels-4-3]="medina --bots mcts:4,mcts:3,mcts:3 --games 102"
  [md-levels-5-4]="medina --bots mcts:5,mcts:4,mcts:4 --games 102"
)
ORDER=(tn-greedy-random md-greedy-random md-mcts3-greedy-random md-levels-2-1 tn-levels-2-1
       md-levels-3-2 tn-levels-3-2 md-mcts3-random md-mcts3-greedy tn-mcts3-random tn-mcts3-greedy
       md-levels-4-3 tn-levels-4-3 md-levels-5-4 tn-levels-5-4)
if (( $# )); then ORDER=("$@"); fi
for name in "${ORDER[@]}"; do
  args=${MATCHES[$name]:?unknown match $name}
  echo "== $name: tabletop arena --seed $SEED $args"
  # A --seed in the match's arguments comes later, so it wins.
  # shellcheck disable=SC2086 # the arguments are split on purpose
  "$TABLETOP" arena --seed "$SEED" $args --jobs "$JOBS" --out "$OUT/$name" --resume
done
