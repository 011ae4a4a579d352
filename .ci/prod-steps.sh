#!/usr/bin/env bash
# The Dockerfile's steps, performed directly (no container engine runs on CI): build in the
# checkout as the build stage does, copy what the runtime stage copies into a clean folder,
# install the bot's production dependencies there the way the prod-deps stage does, check that
# no development tool came along, then start the bot with the runtime stage's command against
# the Discord emulator and the feed API sandbox (.ci/prod-smoke.ts) until a command is answered.
#
#   bash .ci/prod-steps.sh            # from anywhere; needs `npm ci` done in the checkout
#   KEEP_APP_DIR=/some/dir bash .ci/prod-steps.sh   # keep the production folder there (benchmarks)
#
# Bounded: the install and the run each have a time limit; the temporary folder is removed on
# every exit path. Keep the paths below in step with the Dockerfile.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"

INSTALL_TIMEOUT=600 # s; sqlite3 builds from source when no prebuilt binary can be fetched (~1 min)
RUN_TIMEOUT=180     # s; the smoke run takes ~10 s
DEV_TOOLS=(typescript tsx vitest eslint)

section() { printf '\n--- prod-steps: %s (%ds)\n' "$1" "$SECONDS"; }
fail() { printf 'prod-steps: FAIL - %s\n' "$1" >&2; exit 1; }

WORK="$(mktemp -d "${TMPDIR:-/tmp}/feedbot-prod-steps.XXXXXX")"
cleanup() { rm -rf "$WORK"; }
trap cleanup EXIT
APP="${KEEP_APP_DIR:-$WORK/app}"

section "build stage: npm run build"
npm run build

section "runtime folder: $APP"
if [ -n "${KEEP_APP_DIR:-}" ] && [ -e "$APP" ] && [ -n "$(ls -A "$APP")" ]; then
  fail "KEEP_APP_DIR=$APP exists and is not empty: name a new folder"
fi
mkdir -p "$APP/packages/feed-api-contract"
cp package.json package-lock.json "$APP/"
cp -R packages/feed-api-contract/package.json packages/feed-api-contract/dist "$APP/packages/feed-api-contract/"
cp -R dist "$APP/dist"

section "prod-deps stage: npm ci --omit=dev, the bot and the one workspace it imports"
# The other workspaces are absent, as in the image: npm ci restricted to these two does not need them.
(cd "$APP" && timeout "$INSTALL_TIMEOUT" npm ci --omit=dev --workspace=@feedbot/feed-api-contract --include-workspace-root --no-audit --no-fund)

section "no development tools in the production install"
for tool in "${DEV_TOOLS[@]}"; do
  [ ! -e "$APP/node_modules/$tool" ] || fail "node_modules/$tool is in the production install"
done
linked="$(cd "$APP/node_modules/@feedbot" && ls)"
[ "$linked" = "feed-api-contract" ] || fail "workspace packages other than the contract in the production install: $linked"
echo "none of ${DEV_TOOLS[*]}; workspace packages: $linked; node_modules: $(du -sh "$APP/node_modules" | cut -f1)"

section "runtime stage: node --enable-source-maps dist/src/index.js against the emulator and the sandbox"
timeout --kill-after=10 "$RUN_TIMEOUT" node --conditions=@feedbot/source --import tsx "$ROOT/.ci/prod-smoke.ts" "$APP"

section "done"
