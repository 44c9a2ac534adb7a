#!/usr/bin/env bash
# A fleet in one PostgreSQL ledger (docs/ledger.md, "Many clusters"): CLUSTERS clusters of
# NODES x GPUS writing 60 s steps into one database at once, and the fleet's DAYS-day report from
# `gpucost serve`'s API. Starts its own PostgreSQL (Debian's postgresql package) in a temp folder.
#
#   1. Write load: an hour of each cluster at 60 s steps (`ledger write`), one cluster alone and
#      then every cluster at once, one process each: records per second, the time each writer
#      waited for the others (the ledger's write lock), and the database's size per day.
#   2. Steady state: every cluster at once writes the 11 minutes a serve cycle writes (the newest
#      step and --grace 10m again).
#   3. The fleet's month: DAYS days of every cluster at 1 h steps (one snapshot per cluster moved
#      to each day, as bench/ledger-month.sh does), rolled up, and the DAYS-day report from serve's
#      /api/v1/report, REQUESTS times: p50 and p99.
#
#   BUILD=build/dev bench/fleet-postgres.sh            10 clusters x 100 nodes x 8 GPUs, 30 days
#   BUILD=build/dev CLUSTERS=3 NODES=20 DAYS=3 bench/fleet-postgres.sh
#   PHASES=3 KEEP=1 ...     only the month, and keep its PostgreSQL running for profiling
# docs/perf.md ("A fleet in one PostgreSQL ledger") records results.
set -euo pipefail
cd "$(dirname "$0")/.."

build="${BUILD:-build/release}"
clusters="${CLUSTERS:-10}"
nodes="${NODES:-100}"
gpus="${GPUS:-8}"
days="${DAYS:-30}"
requests="${REQUESTS:-30}"
phases="${PHASES:-123}"
if [ -z "${BUILD:-}" ]; then
  cmake --preset release >/dev/null
  cmake --build --preset release --target gpucost
fi
gpucost="$(pwd)/$build/src/cli/gpucost"
pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -x "$pgbin/initdb" ] || { echo "no PostgreSQL under /usr/lib/postgresql (scripts/install-deps.sh)"; exit 1; }

dir=$(mktemp -d -t gpucost-fleet-XXXXXX)
chmod 755 "$dir"
pids=()
as_pg() {  # PostgreSQL refuses to run as root
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
cleanup() {
  if [ -n "${KEEP:-}" ]; then
    echo "kept: $dir (PostgreSQL on 127.0.0.1:$pgport, serve on ${port:-none}; pg_ctl -D $dir/pg stop)"
    return
  fi
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  as_pg "$pgbin/pg_ctl" -D "$dir/pg" -m immediate stop >/dev/null 2>&1 || true
  wait 2>/dev/null || true
  rm -rf "$dir"
}
trap cleanup EXIT INT TERM

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}
pgport=$(free_port)
mkdir "$dir/pg" "$dir/sock"
[ "$(id -u)" = 0 ] && chown postgres "$dir/pg" "$dir/sock"
as_pg "$pgbin/initdb" -D "$dir/pg" -U postgres -A trust >/dev/null
as_pg "$pgbin/pg_ctl" -D "$dir/pg" -l "$dir/sock/pg.log" -w \
  -o "-p $pgport -k $dir/sock -c listen_addresses=127.0.0.1" start >/dev/null
psql_() { as_pg "$pgbin/psql" -h 127.0.0.1 -p "$pgport" -U postgres -Atq "$@"; }
new_db() { psql_ -c "CREATE DATABASE $1" && echo "postgresql://postgres@127.0.0.1:$pgport/$1"; }
size_mb() { psql_ -c "SELECT (pg_database_size('$1') - pg_database_size('empty')) / 1000000"; }
seconds() { python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$@"; }

t0=1790812800  # 2026-10-01T00:00:00Z, where the simulator starts
echo "PostgreSQL $("$pgbin/postgres" --version | awk '{print $3}'), $clusters clusters x $nodes nodes x $gpus GPUs"
for i in $(seq 0 $((clusters - 1))); do
  "$gpucost" simulate --nodes "$nodes" --gpus-per-node "$gpus" --duration 1h --seed $((i + 1)) \
    --cluster "c$i" --out "$dir/c$i.om" >/dev/null 2>&1
done

write() {  # DB CLUSTER WINDOW-START WINDOW-END -> ledger write's line
  "$gpucost" ledger write "$1" --input "$dir/c$2.om" --window "$3,$4" --step 60s \
    --price-per-gpu-hour 2.5 2>&1 | tail -1
}
empty=$(new_db empty)

# 1. Write load.
if [[ $phases == *1* ]]; then
alone=$(new_db alone)
start=$(date +%s.%N)
line=$(write "$alone" 0 "$t0" $((t0 + 3600)))
alone_s=$(seconds "$start" "$(date +%s.%N)")
records=$(echo "$line" | awk '{print $2}')
echo "one cluster alone: $records records in $alone_s s ($(python3 -c "print(round($records / $alone_s))") records/s)"

fleet=$(new_db fleet)
start=$(date +%s.%N)
for i in $(seq 0 $((clusters - 1))); do
  write "$fleet" "$i" "$t0" $((t0 + 3600)) >"$dir/w$i.txt" &
  pids+=($!)
done
wait "${pids[@]}"
pids=()
fleet_s=$(seconds "$start" "$(date +%s.%N)")
total=$(cat "$dir"/w*.txt | awk '{n += $2} END {print n}')
waits=$(cat "$dir"/w*.txt | grep -o 'waited [0-9.]* s' | awk '{s += $2; if ($2 > m) m = $2} END {printf "%.1f s in all, at most %.1f s", s, m}')
echo "$clusters clusters at once: $total records in $fleet_s s ($(python3 -c "print(round($total / $fleet_s))") records/s); waits for the write lock: ${waits:-none}"
bytes=$(psql_ -c "SELECT pg_database_size('fleet') - pg_database_size('empty')")
echo "the hour took $((bytes / 1000000)) MB ($((bytes / total)) bytes a record, indexes and all): ~$(python3 -c "print(f'{$bytes * 24 / 1e9:.1f}')") GB a day at 60 s steps"

fi

# 2. Steady state: what every serve writes each cycle, all at once.
if [[ $phases == *2* ]]; then
start=$(date +%s.%N)
for i in $(seq 0 $((clusters - 1))); do
  write "$fleet" "$i" $((t0 + 49 * 60)) $((t0 + 3600)) >"$dir/s$i.txt" &
  pids+=($!)
done
wait "${pids[@]}"
pids=()
cycle_s=$(seconds "$start" "$(date +%s.%N)")
waits=$(cat "$dir"/s*.txt | grep -o 'waited [0-9.]* s' | awk '{s += $2; if ($2 > m) m = $2} END {printf "%.1f s in all, at most %.1f s", s, m}')
echo "a cycle of every cluster at once (11 min each): $cycle_s s of the 60 s between cycles; waits: ${waits:-none}"
fi
[[ $phases == *3* ]] || exit 0

# 3. The fleet's month at 1 h steps, and its report from the API.
month=$(new_db month)
for i in $(seq 0 $((clusters - 1))); do
  "$gpucost" simulate --nodes "$nodes" --gpus-per-node "$gpus" --duration 60s --seed $((i + 1)) \
    --scrape-interval 60s --cluster "c$i" --out "$dir/snap$i.om" >/dev/null 2>&1
done
start=$(date +%s.%N)
for d in $(seq 0 $((days - 1))); do
  ts=$((t0 + d * 86400))
  inputs=()
  for i in $(seq 0 $((clusters - 1))); do
    # The snapshot at the day's start and again at its last minute: the cluster holds still.
    {
      sed -E -e '/^# EOF/d' -e "s/ ${t0}\$/ ${ts}/" "$dir/snap$i.om"
      grep -v '^#' "$dir/snap$i.om" | sed -E "s/ ${t0}\$/ $((ts + 86340))/"
      echo "# EOF"
    } >"$dir/day$i.om"
    inputs+=(--input "$dir/day$i.om")
  done
  "$gpucost" ledger write "$month" "${inputs[@]}" --window "$ts,$((ts + 86400))" --step 1h \
    --staleness 1d --price-per-gpu-hour 2.5 >"$dir/month.log" 2>&1 || { cat "$dir/month.log"; exit 1; }
done
echo "the month: $(tail -1 "$dir/month.log" | sed -E 's/.* it holds ([0-9]+) over.*/\1/') records in $(seconds "$start" "$(date +%s.%N)") s, $(size_mb month) MB"

port=$(free_port)
"$gpucost" serve --ledger "$month" --price-per-gpu-hour 2.5 --read-only \
  --listen "127.0.0.1:$port" >"$dir/serve.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do curl -sf -o /dev/null "127.0.0.1:$port/healthz" && break; sleep 0.2; done
percentiles() {  # seconds on stdin -> "p50 X ms, p99 Y ms (N)"
  sort -n | awk '{v[NR]=$1} END {i50=int((NR-1)*0.5)+1; i99=int((NR-1)*0.99)+1;
    printf "p50 %.0f ms, p99 %.0f ms (%d requests)\n", v[i50]*1000, v[i99]*1000, NR}'
}
api() {
  for _ in $(seq "$1"); do
    curl -sf -o /dev/null -w '%{time_total}\n' \
      "127.0.0.1:$port/api/v1/report?window=$t0,$((t0 + days * 86400))$2"
  done
}
api 2 "&by=namespace" >/dev/null  # the first request decodes the roll-ups
echo "API, $days days, by namespace: $(api "$requests" "&by=namespace" | percentiles)"
echo "API, $days days, by cluster:   $(api "$requests" "&by=cluster" | percentiles)"
echo "API, $days days, one cluster:  $(api "$requests" "&by=namespace&cluster=c0" | percentiles)"
