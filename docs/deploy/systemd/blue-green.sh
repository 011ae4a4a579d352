#!/usr/bin/env bash
# blue-green.sh: deploys feedbot on this host without a moment where its shards go unanswered.
#
# feedbot-bg@blue.service and feedbot-bg@green.service (feedbot-bg@.service, beside this script)
# run the same shards, each from its own checkout; one of them runs. This script:
#   1. finds the running colour (systemctl is-active): the other one is the new one;
#   2. starts the new colour beside it (systemctl start);
#   3. polls the new colour's http://127.0.0.1:<its METRICS_PORT>/readyz until it answers 200;
#   4. stops the old colour (systemctl stop: SIGTERM, it drains what it has in flight and exits;
#      systemctl waits for that), then makes the new colour the one started at boot.
# If the new colour exits, or is not ready within the timeout, the script stops it again, leaves
# the old colour running as it was, says why and exits 1. With neither colour running it starts
# blue and stops nothing.
#
# While both colours run, Discord sends each interaction and event of their shards to both; each
# is handled once, by the process that claims it first in the store both share (DATABASE_URL).
#
# Usage (as root: it runs systemctl): blue-green.sh [options]
#   --next               print the colour a deploy would start, the one to build into, and exit
#   --keep-old           start the new colour and wait until it is ready, but leave the old one
#                        running (changing SHARD_COUNT on several hosts: stop the old colours once
#                        the new one of every host is ready); boot still starts the new one
#   --timeout SECONDS    how long the new colour may take to be ready (default 300)
#   --interval SECONDS   between two polls of /readyz (default 2)
#   --unit NAME          the template unit (default feedbot-bg, for feedbot-bg@blue.service)
#   --blue-port PORT     the colours' METRICS_PORT (default: what systemd gives each unit, the
#   --green-port PORT    last METRICS_PORT= line of feedbot.env, then of <unit>@<colour>.env)
#   --env-dir DIR        where those files are (default /etc/feedbot)
#   --host ADDRESS       where /readyz is polled (default: METRICS_HOST from the same files;
#                        127.0.0.1 when it is unset, 0.0.0.0 or ::)
# Each option can also be set in the environment: FEEDBOT_BG_TIMEOUT, FEEDBOT_BG_INTERVAL,
# FEEDBOT_BG_UNIT, FEEDBOT_BG_BLUE_PORT, FEEDBOT_BG_GREEN_PORT, FEEDBOT_BG_ENV_DIR, FEEDBOT_BG_HOST.
#
# Exit status: 0 the new colour runs and answers /readyz 200 (and, without --keep-old, the old one
# stopped); 1 refused, or the new colour never became ready (the old one runs as before), or the
# old one could not be stopped (both run: safe, stop it by hand); 2 wrong usage.
#
# Needs bash (its /dev/tcp talks HTTP to /readyz), coreutils' timeout and systemctl; no curl.
# Run one at a time per host. docs/deploy/README.md, "Deploying without downtime", has the rest.
set -euo pipefail

readonly PROG=blue-green
# One GET /readyz, connection and answer together, at most this long.
readonly PROBE_SECONDS=5

TIMEOUT=${FEEDBOT_BG_TIMEOUT:-300}
INTERVAL=${FEEDBOT_BG_INTERVAL:-2}
UNIT=${FEEDBOT_BG_UNIT:-feedbot-bg}
BLUE_PORT=${FEEDBOT_BG_BLUE_PORT:-}
GREEN_PORT=${FEEDBOT_BG_GREEN_PORT:-}
ENV_DIR=${FEEDBOT_BG_ENV_DIR:-/etc/feedbot}
HOST=${FEEDBOT_BG_HOST:-}
NEXT=false
KEEP_OLD=false

log() { printf '%s: %s\n' "$PROG" "$*"; }
warn() { printf '%s: %s\n' "$PROG" "$*" >&2; }
die() {
  local code=$1
  shift
  warn "$*"
  exit "$code"
}
# The comment at the top of this file.
usage() { sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; }

while (($# > 0)); do
  case $1 in
    --next) NEXT=true ;;
    --keep-old) KEEP_OLD=true ;;
    --timeout | --interval | --unit | --blue-port | --green-port | --env-dir | --host)
      (($# >= 2)) || die 2 "$1 needs a value (--help)"
      case $1 in
        --timeout) TIMEOUT=$2 ;;
        --interval) INTERVAL=$2 ;;
        --unit) UNIT=$2 ;;
        --blue-port) BLUE_PORT=$2 ;;
        --green-port) GREEN_PORT=$2 ;;
        --env-dir) ENV_DIR=$2 ;;
        --host) HOST=$2 ;;
      esac
      shift
      ;;
    -h | --help)
      usage
      exit 0
      ;;
    *) die 2 "unknown option $1 (--help)" ;;
  esac
  shift
done

[[ $TIMEOUT =~ ^[0-9]{1,6}$ ]] && TIMEOUT=$((10#$TIMEOUT)) && ((TIMEOUT >= 1)) || die 2 "--timeout must be a whole number of seconds from 1, not '$TIMEOUT'"
[[ $INTERVAL =~ ^[0-9]+(\.[0-9]+)?$ ]] || die 2 "--interval must be a number of seconds, not '$INTERVAL'"
[[ $UNIT =~ ^[A-Za-z0-9:_.-]+$ ]] || die 2 "--unit must be a unit name without @ or .service, not '$UNIT'"
for tool in systemctl timeout; do
  command -v "$tool" >/dev/null || die 1 "$tool not found"
done

unit() { printf '%s@%s.service' "$UNIT" "$1"; }

# The unit's state as systemctl says it: active, inactive, failed, activating...
state() { systemctl is-active "$(unit "$1")" 2>/dev/null || true; }
# A colour whose process runs, or is about to (a unit in auto-restart is "activating").
running() {
  case $1 in
    active | activating | reloading | deactivating | refreshing) return 0 ;;
    *) return 1 ;;
  esac
}

# The value systemd gives NAME in the colour's unit: the last NAME= of feedbot.env, then of the
# colour's own file (EnvironmentFile= lines of feedbot-bg@.service, in that order). Plain
# NAME=value lines, optionally quoted.
env_value() {
  local name=$1 colour=$2 file line value=''
  for file in "$ENV_DIR/feedbot.env" "$ENV_DIR/$UNIT@$colour.env"; do
    [[ -e $file ]] || continue
    [[ -r $file ]] || die 1 "cannot read $file: run as root, or give the ports (--blue-port, --green-port) and --host"
    while IFS= read -r line || [[ -n $line ]]; do
      line=${line#"${line%%[![:space:]]*}"}
      [[ $line == "$name="* ]] || continue
      value=${line#"$name="}
      value=${value%"${value##*[![:space:]]}"}
      [[ $value == \"*\" || $value == \'*\' ]] && value=${value:1:${#value}-2}
    done <"$file"
  done
  printf '%s' "$value"
}

port_of() {
  local colour=$1 given=$2 port
  port=${given:-$(env_value METRICS_PORT "$colour")}
  [[ -n $port ]] || die 1 "$(unit "$colour") has no METRICS_PORT (not in $ENV_DIR/feedbot.env nor $ENV_DIR/$UNIT@$colour.env): without it there is no /readyz to wait for. Nothing was changed."
  [[ $port =~ ^[0-9]{1,5}$ ]] && ((10#$port >= 1 && 10#$port <= 65535)) || die 1 "$(unit "$colour"): METRICS_PORT '$port' is not a port number. Nothing was changed."
  printf '%s' "$((10#$port))"
}

# GET /readyz on the new colour's port: prints the whole answer (status line, headers, body), or
# nothing when nothing answers within PROBE_SECONDS.
readyz() {
  # shellcheck disable=SC2016 # expanded by the inner bash
  timeout "$PROBE_SECONDS" bash -c '
    exec 3<>"/dev/tcp/$1/$2" || exit 0
    printf "GET /readyz HTTP/1.0\r\nHost: %s\r\nConnection: close\r\n\r\n" "$1" >&3
    cat <&3
  ' _ "$HOST" "$1" 2>/dev/null || true
}

# The status code of an answer readyz() printed; empty for no answer.
status_of() {
  local _version code=''
  read -r _version code _ <<<"$1" || true
  [[ $code =~ ^[0-9]{3}$ ]] && printf '%s' "$code"
  return 0
}

# An answer in one short line: its status and the start of its body (the JSON report of what is
# not ready yet).
describe() {
  local code body
  code=$(status_of "$1")
  [[ -n $code ]] || {
    printf 'no answer'
    return 0
  }
  body=${1#*$'\r\n\r\n'}
  body=${body//[$'\r\n']/ }
  ((${#body} <= 300)) || body="${body:0:300}..."
  printf '%s %s' "$code" "$body"
}

blue_state=$(state blue)
green_state=$(state green)
if running "$blue_state" && running "$green_state"; then
  die 1 "both colours run ($(unit blue) is $blue_state, $(unit green) is $green_state): a deploy did not finish. Stop the one that should not run (systemctl stop $UNIT@<colour>.service), then run this again. Nothing was changed."
elif running "$blue_state"; then
  old=blue new=green old_state=$blue_state
elif running "$green_state"; then
  old=green new=blue old_state=$green_state
else
  old='' new=blue old_state=''
fi

if $NEXT; then
  printf '%s\n' "$new"
  exit 0
fi

BLUE_PORT=$(port_of blue "$BLUE_PORT")
GREEN_PORT=$(port_of green "$GREEN_PORT")
[[ $BLUE_PORT != "$GREEN_PORT" ]] || die 1 "blue and green both get METRICS_PORT=$BLUE_PORT: give each colour its own, in $ENV_DIR/$UNIT@<colour>.env, so that they can run side by side. Nothing was changed."
if [[ $new == blue ]]; then new_port=$BLUE_PORT; else new_port=$GREEN_PORT; fi
if [[ -z $HOST ]]; then
  HOST=$(env_value METRICS_HOST "$new")
  case $HOST in
    '' | 0.0.0.0) HOST=127.0.0.1 ;;
    :: | '[::]') HOST=::1 ;;
  esac
fi

# Whatever answers on the new colour's port now is not the new colour: its /readyz could not be
# told apart, and the new colour could not listen there.
before=$(readyz "$new_port")
if [[ -n $before ]]; then
  die 1 "something already answers on $HOST:$new_port, $(unit "$new")'s METRICS_PORT ($(describe "$before")): it could not listen there, and its /readyz could not be told apart. Nothing was changed."
fi

started_at=$SECONDS
# The new colour did not make it: stop it, the old one stays as it was.
abandon() {
  trap - INT TERM HUP
  warn "$(unit "$new") did not become ready: $*"
  systemctl stop "$(unit "$new")" || warn "could not stop $(unit "$new"): stop it by hand"
  if [[ -n $old ]]; then
    warn "stopped $(unit "$new") again; $(unit "$old") keeps running ($(state "$old")). See: journalctl -u $(unit "$new") -n 100"
  else
    warn "stopped $(unit "$new") again; no colour runs. See: journalctl -u $(unit "$new") -n 100"
  fi
  exit 1
}

if [[ -n $old ]]; then
  log "starting $(unit "$new") beside $(unit "$old") ($old_state), then waiting up to $TIMEOUT s for http://$HOST:$new_port/readyz"
else
  log "no colour runs: starting $(unit "$new"), then waiting up to $TIMEOUT s for http://$HOST:$new_port/readyz"
fi
trap 'abandon "interrupted"' INT TERM HUP
systemctl start "$(unit "$new")" || abandon "systemctl start failed"

deadline=$((SECONDS + TIMEOUT))
last='no answer'
while :; do
  now_state=$(state "$new")
  [[ $now_state == active ]] || abandon "it is $now_state: its process exited (last /readyz: $last)"
  answer=$(readyz "$new_port")
  [[ $(status_of "$answer") == 200 ]] && break
  last=$(describe "$answer")
  ((SECONDS < deadline)) || abandon "no 200 from http://$HOST:$new_port/readyz within $TIMEOUT s; its last answer: $last"
  sleep "$INTERVAL"
done
trap - INT TERM HUP
log "$(unit "$new") is ready (/readyz 200 after $((SECONDS - started_at)) s)"

# Boot starts the new colour from now on, and not the old one.
boot() {
  systemctl enable --quiet "$(unit "$new")" && { [[ -z $old ]] || systemctl disable --quiet "$(unit "$old")"; } ||
    die 1 "$1, but what boot starts could not be switched: run systemctl enable $(unit "$new")${old:+ and systemctl disable $(unit "$old")}"
}

if [[ -z $old ]]; then
  boot "$(unit "$new") runs"
  log "done: $(unit "$new") runs, and starts at boot"
  exit 0
fi

if $KEEP_OLD; then
  boot "$(unit "$new") runs"
  log "done: $(unit "$new") runs beside $(unit "$old"), which was left running (--keep-old): stop it with systemctl stop $(unit "$old"); boot starts $(unit "$new")"
  exit 0
fi

log "stopping $(unit "$old"): SIGTERM, it drains what it has in flight (the new colour takes every new interaction)"
if ! systemctl stop "$(unit "$old")"; then
  die 1 "could not stop $(unit "$old"): both colours run, which is safe (each interaction is answered once) but spends memory; stop it by hand"
fi
boot "$(unit "$new") runs and $(unit "$old") stopped"
log "done: $(unit "$new") runs, $(unit "$old") stopped; boot starts $(unit "$new")"
