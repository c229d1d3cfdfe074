#!/bin/sh
# One line a game: package, mission, seed and the SHA-256 of `servitor game … --json` (the
# whole game: log, board, outcome). Two commits play the same games when their lists are the
# same: `benches/same-games.sh target/count/servitor > before.txt`, change, again to
# after.txt, `diff before.txt after.txt` (a differing seed: diff the two games' JSON).
#
# Usage: benches/same-games.sh BINARY [GAMES] [PACKAGE:MISSION ...]   (GAMES default 100)
set -e
BIN=$1
GAMES=${2:-100}
[ $# -gt 1 ] && shift 2 || shift
MISSIONS=${*:-"space-crusade-solo:purge space-crusade-solo:reactor-strike space-crusade-solo:stranded
starquest-solitaire:mission-1 starquest-solitaire:mission-6
space-hulk-solo:breach-run space-hulk-solo:purge-the-nest space-hulk-solo:relay-sabotage
solo-heresy:raid solo-heresy:exterminatus"}
for pm in $MISSIONS; do
    p=${pm%%:*}
    m=${pm#*:}
    s=1
    while [ "$s" -le "$GAMES" ]; do
        h=$("$BIN" game "$p" --mission "$m" --seed "$s" --json 2>&1 | sha256sum | cut -c1-16)
        echo "$p $m $s $h"
        s=$((s + 1))
    done
done
