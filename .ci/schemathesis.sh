#!/usr/bin/env bash
# openapi.yaml against a live server, both ways: schemathesis (pinned in
# .ci/requirements-schemathesis.txt) with every check on, authenticated with a real player,
# bot and operator token. Builds nothing: pass the server binary, or target/debug/hexarena is
# used. Exits non-zero on any failure or error.
#
#   .ci/schemathesis.sh [path/to/hexarena]
#
# SCHEMATHESIS_MAX_EXAMPLES (default 100) bounds the test cases per operation and phase;
# SCHEMATHESIS_SEED changes the fixed seed (to look further, not in CI).
set -euo pipefail
cd "$(dirname "$0")/.."

BIN="${1:-${CARGO_TARGET_DIR:-target}/debug/hexarena}"
[ -x "$BIN" ] || { echo "schemathesis.sh: no server binary at $BIN (build it first)" >&2; exit 2; }
command -v schemathesis >/dev/null || { echo "schemathesis.sh: schemathesis is not installed" >&2; exit 2; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/hexarena-schemathesis.XXXXXX")
SERVER_PID=""
cleanup() {
  if [ -n "$SERVER_PID" ]; then kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT

PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
URL="http://127.0.0.1:$PORT"
export HX_OPERATOR_TOKEN="op-schemathesis-$RANDOM$RANDOM"

# Generous limits and balance, so generated requests reach the handlers' logic instead of 429s
# and 409s for money; house bots on (practice sets need them), no demo traffic.
ARENA_OPERATOR_TOKEN="$HX_OPERATOR_TOKEN" \
ARENA_REGISTER_PER_MIN=1000000 ARENA_SETS_PER_MIN=1000000 ARENA_STARTING_BALANCE=1000000 \
ARENA_DEMO=false RUST_LOG="${RUST_LOG:-warn}" \
  "$BIN" serve --bind "127.0.0.1:$PORT" --database-url "sqlite://$WORK/arena.db" \
  >"$WORK/server.log" 2>&1 &
SERVER_PID=$!
for _ in $(seq 1 100); do
  curl -fs "$URL/healthz" >/dev/null 2>&1 && break
  kill -0 "$SERVER_PID" 2>/dev/null || { cat "$WORK/server.log" >&2; exit 1; }
  sleep 0.1
done

# Tokens through the API, as a bot author gets them.
field() { python3 -c 'import json,sys; print(json.load(sys.stdin)[sys.argv[1]])' "$1"; }
HX_PLAYER_TOKEN=$(curl -fs -X POST "$URL/v1/players" -d '{"name":"schemathesis"}' | field token)
HX_BOT_TOKEN=$(curl -fs -X POST "$URL/v1/bots" -H "Authorization: Bearer $HX_PLAYER_TOKEN" \
  -d '{"name":"FuzzBot","max_stake":1000}' | field token)
OTHER_PLAYER=$(curl -fs -X POST "$URL/v1/players" -d '{"name":"rival"}' | field token)
curl -fs -X POST "$URL/v1/bots" -H "Authorization: Bearer $OTHER_PLAYER" -d '{"name":"RivalBot"}' >/dev/null
# A spare player and bot for the operations that rotate a token or retire a bot.
HX_SPARE_PLAYER_TOKEN=$(curl -fs -X POST "$URL/v1/players" -d '{"name":"spare"}' | field token)
HX_SPARE_BOT_TOKEN=$(curl -fs -X POST "$URL/v1/bots" -H "Authorization: Bearer $HX_SPARE_PLAYER_TOKEN" \
  -d '{"name":"SpareBot"}' | field token)
HX_RETIRED_BOT_TOKEN=$(curl -fs -X POST "$URL/v1/bots" -H "Authorization: Bearer $HX_SPARE_PLAYER_TOKEN" \
  -d '{"name":"RetiringBot"}' | field token)
# A practice set puts FuzzBot on move, so the turn and state routes answer real game states.
curl -fs -X POST "$URL/v1/practice" -H "Authorization: Bearer $HX_BOT_TOKEN" -d '{}' >/dev/null
# A tournament and a match whose ids the routes on one of them get (.ci/schemathesis.toml).
HX_TOURNAMENT_ID=$(curl -fs -X POST "$URL/v1/tournaments" -H "Authorization: Bearer $HX_OPERATOR_TOKEN" \
  -d '{"name":"fuzz cup","format":"round_robin","participants":["FuzzBot","RivalBot"],"stake":0}' | field id)
HX_MATCH_ID=$(curl -fs -X POST "$URL/v1/matches" -H "Authorization: Bearer $HX_PLAYER_TOKEN" \
  -d '{"bots":["FuzzBot","RivalBot"],"sets":2}' | field id)
# One more that DELETE may remove (the one above stays for the other routes).
HX_DOOMED_TOURNAMENT_ID=$(curl -fs -X POST "$URL/v1/tournaments" -H "Authorization: Bearer $HX_OPERATOR_TOKEN" \
  -d '{"name":"doomed cup","format":"swiss","rounds":1,"participants":["FuzzBot","RivalBot"]}' | field id)
export HX_PLAYER_TOKEN HX_BOT_TOKEN HX_TOURNAMENT_ID HX_MATCH_ID HX_SPARE_PLAYER_TOKEN HX_SPARE_BOT_TOKEN HX_RETIRED_BOT_TOKEN HX_DOOMED_TOURNAMENT_ID

status=0
# Every operation, event streams included (.ci/schemathesis.toml bounds how long a stream is
# read). One worker, a fixed seed and no example database keep the run repeatable.
schemathesis --config-file .ci/schemathesis.toml run openapi.yaml \
  --url "$URL" \
  --checks all \
  --max-examples "${SCHEMATHESIS_MAX_EXAMPLES:-100}" \
  --seed "${SCHEMATHESIS_SEED:-20261201}" \
  --generation-database none \
  --workers 1 \
  --request-timeout 20 \
  --no-color || status=$?

# A server that died or logged a panic fails the run even if every answer looked right.
if ! kill -0 "$SERVER_PID" 2>/dev/null; then echo "schemathesis.sh: the server died" >&2; status=1; fi
if grep -q "panicked" "$WORK/server.log"; then grep -B2 -A5 "panicked" "$WORK/server.log" >&2; status=1; fi
exit "$status"
