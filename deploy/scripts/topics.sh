#!/usr/bin/env bash
# Kafka topic chores for Mapvest, on top of Apache Kafka's own CLI (kafka-topics.sh, kafka-configs.sh).
#
#   topics.sh create                   create the standard topics if missing (optional: services create them too)
#   topics.sh describe                 partitions, replicas and configs of every mapvest.* topic
#   topics.sh partitions TOPIC N       raise TOPIC's partition count to N (never lowers; see deploy/README.md)
#   topics.sh replies                  list the gateways' reply topics
#   topics.sh tune-replies             short retention on every reply topic (replies are useless after 30 s)
#   topics.sh prune-replies --keep ID[,ID…] [--yes]
#                                      delete reply topics of gateway instances NOT listed; dry run without --yes
#
# Environment:
#   BOOTSTRAP           bootstrap servers (default localhost:9092)
#   KAFKA_BIN           folder holding kafka-topics.sh (default /opt/kafka/bin, as in the apache/kafka image)
#   CLIENT_CONFIG       optional client properties file for TLS/SASL (security.protocol=SASL_SSL, …)
#   PARTITIONS          partitions of command topics for `create` (default 8; match KAFKA_COMMAND_PARTITIONS)
#   EVENT_PARTITIONS    partitions of mapvest.events.v1 for `create` (default 8; match KAFKA_EVENT_PARTITIONS)
#   REPLICATION_FACTOR  replication factor for `create` (default 1; use 3 on a real cluster)
#   REPLY_RETENTION_MS  retention for `tune-replies` (default 300000 = 5 min)
#
# Runs wherever the Kafka CLI is, e.g. inside the compose broker:
#   docker compose exec -T kafka bash -s -- describe < scripts/topics.sh
set -euo pipefail

BOOTSTRAP=${BOOTSTRAP:-localhost:9092}
KAFKA_BIN=${KAFKA_BIN:-/opt/kafka/bin}
PARTITIONS=${PARTITIONS:-8}
EVENT_PARTITIONS=${EVENT_PARTITIONS:-8}
REPLICATION_FACTOR=${REPLICATION_FACTOR:-1}
REPLY_RETENTION_MS=${REPLY_RETENTION_MS:-300000}

REPLY_PATTERN='^mapvest\.gateway\.replies\..+\.v1$'
STANDARD_TOPICS=(
  mapvest.identify.commands.v1
  mapvest.nearby.commands.v1
  mapvest.rating.commands.v1
  mapvest.briefs.commands.v1
  mapvest.push.requests.v1
  mapvest.identify.effects.v1
  mapvest.events.v1
  mapvest.dlq.v1
)

die() { printf 'topics.sh: %s\n' "$*" >&2; exit 2; }
log() { printf '[topics] %s\n' "$*" >&2; }

client_args=()
if [ -n "${CLIENT_CONFIG:-}" ]; then
  [ -r "$CLIENT_CONFIG" ] || die "CLIENT_CONFIG $CLIENT_CONFIG is not readable"
  client_args=(--command-config "$CLIENT_CONFIG")
fi

kt() { "$KAFKA_BIN/kafka-topics.sh" --bootstrap-server "$BOOTSTRAP" "${client_args[@]}" "$@"; }
kc() { "$KAFKA_BIN/kafka-configs.sh" --bootstrap-server "$BOOTSTRAP" "${client_args[@]}" "$@"; }

reply_topics() { kt --list | grep -E "$REPLY_PATTERN" || true; }

# The instance id inside mapvest.gateway.replies.<id>.v1.
instance_of() {
  local t=${1#mapvest.gateway.replies.}
  printf '%s\n' "${t%.v1}"
}

cmd_create() {
  local min_isr=1
  [ "$REPLICATION_FACTOR" -ge 3 ] && min_isr=2
  for t in "${STANDARD_TOPICS[@]}"; do
    local configs=(--config "min.insync.replicas=$min_isr") partitions=$PARTITIONS
    case $t in
      mapvest.events.v1) partitions=$EVENT_PARTITIONS ;;
      # As the services create it: one partition; 14 days to inspect and replay.
      mapvest.dlq.v1)
        partitions=1
        configs+=(--config retention.ms=1209600000)
        ;;
    esac
    log "create $t (partitions $partitions, replication $REPLICATION_FACTOR)"
    kt --create --if-not-exists --topic "$t" --partitions "$partitions" \
      --replication-factor "$REPLICATION_FACTOR" "${configs[@]}"
  done
}

cmd_describe() {
  kt --describe --topic 'mapvest\..*'
}

cmd_partitions() {
  [ $# -eq 2 ] || die "usage: topics.sh partitions TOPIC N"
  local topic=$1 n=$2
  [[ $n =~ ^[0-9]+$ ]] || die "N must be a number"
  log "raising $topic to $n partitions: new messages of a key may land on another partition than older ones"
  kt --alter --topic "$topic" --partitions "$n"
}

cmd_replies() {
  reply_topics
}

cmd_tune_replies() {
  local topics
  topics=$(reply_topics)
  [ -n "$topics" ] || { log "no reply topics"; return 0; }
  while IFS= read -r t; do
    log "$t: retention.ms=$REPLY_RETENTION_MS segment.ms=$REPLY_RETENTION_MS"
    kc --alter --entity-type topics --entity-name "$t" \
      --add-config "retention.ms=$REPLY_RETENTION_MS,segment.ms=$REPLY_RETENTION_MS"
  done <<<"$topics"
}

cmd_prune_replies() {
  local keep="" yes=0
  while [ $# -gt 0 ]; do
    case $1 in
      --keep) [ $# -ge 2 ] || die "--keep needs a value"; keep=$2; shift 2 ;;
      --keep=*) keep=${1#--keep=}; shift ;;
      --yes) yes=1; shift ;;
      *) die "unknown argument: $1" ;;
    esac
  done
  [ -n "$keep" ] || die "--keep ID[,ID…] is required: the instance ids of every gateway that runs or may run again"

  local -A kept=()
  local id
  IFS=',' read -r -a ids <<<"$keep"
  for id in "${ids[@]}"; do [ -n "$id" ] && kept[$id]=1; done

  local topics doomed=()
  topics=$(reply_topics)
  if [ -n "$topics" ]; then
    while IFS= read -r t; do
      id=$(instance_of "$t")
      if [ -z "${kept[$id]:-}" ]; then doomed+=("$t"); fi
    done <<<"$topics"
  fi

  if [ ${#doomed[@]} -eq 0 ]; then
    log "nothing to delete"
    return 0
  fi
  for t in "${doomed[@]}"; do
    if [ $yes -eq 1 ]; then
      log "delete $t"
      kt --delete --topic "$t"
    else
      log "would delete $t"
    fi
  done
  [ $yes -eq 1 ] || log "dry run: add --yes to delete. A running gateway whose topic is deleted stops getting replies."
}

main() {
  [ $# -ge 1 ] || { sed -n '2,22p' "$0" 2>/dev/null | sed 's/^# \{0,1\}//'; exit 2; }
  local command=$1
  shift
  case $command in
    create) cmd_create "$@" ;;
    describe) cmd_describe "$@" ;;
    partitions) cmd_partitions "$@" ;;
    replies) cmd_replies "$@" ;;
    tune-replies) cmd_tune_replies "$@" ;;
    prune-replies) cmd_prune_replies "$@" ;;
    -h | --help | help) sed -n '2,22p' "$0" 2>/dev/null | sed 's/^# \{0,1\}//' ;;
    *) die "unknown command: $command (try --help)" ;;
  esac
}

main "$@"
