#!/bin/sh
# Instructions a game, counted by callgrind (repeatable on a loaded machine, unlike time):
# for each mission below, `servitor sim PACKAGE --mission M --jobs 1 --seed 7` is run under
# `valgrind --tool=callgrind` with --games 1 and with --games 11; (I11 - I1) / 10 is the
# instructions of one game, start-up and loading left out (issue 39's measure).
#
# Usage: benches/count.sh [PROFILE] [PACKAGE:MISSION ...]
#   PROFILE  cargo profile to build and count (default `count`: release optimisation without
#            fat LTO, see Cargo.toml; `release` for the shipped binary's own figures).
# SERVITOR_BIN=FILE counts that binary instead of building one (as for comparing two commits).
# Prints one line a mission: package, mission, instructions a game (millions). The figures of
# each commit that changed them are kept in benches/counts.md.
set -e
cd "$(dirname "$0")/.."
PROFILE=${1:-count}
[ $# -gt 0 ] && shift
MISSIONS=${*:-"space-crusade-solo:purge space-crusade-solo:reactor-strike space-crusade-solo:stranded
starquest-solitaire:mission-1 starquest-solitaire:mission-6
space-hulk-solo:breach-run space-hulk-solo:purge-the-nest space-hulk-solo:relay-sabotage
solo-heresy:raid solo-heresy:exterminatus"}
DIR=$PROFILE
[ "$PROFILE" = dev ] && DIR=debug
if [ -n "$SERVITOR_BIN" ]; then
    BIN=$SERVITOR_BIN
else
    cargo build --quiet --profile "$PROFILE" --bin servitor
    BIN=target/$DIR/servitor
fi
count() { # package mission games -> instructions
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$BIN" sim "$1" --mission "$2" \
        --games "$3" --jobs 1 --seed 7 --json 2>&1 >/dev/null |
        sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
printf '%-22s %-16s %12s\n' package mission "M instr/game"
for pm in $MISSIONS; do
    p=${pm%%:*}
    m=${pm#*:}
    one=$(count "$p" "$m" 1)
    eleven=$(count "$p" "$m" 11)
    awk -v p="$p" -v m="$m" -v a="$one" -v b="$eleven" \
        'BEGIN { printf "%-22s %-16s %12.2f\n", p, m, (b - a) / 10 / 1e6 }'
done
