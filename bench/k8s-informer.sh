#!/usr/bin/env bash
# The Kubernetes API source's steady state on a large cluster: bench/k8s_fake_cluster serves
# NODES nodes and PODS pods over the real wire protocol with EPS pod events a second, and
# `gpucost kube --watch` lists everything, then watches for WATCH; it reports the CPU time of the
# list, the CPU share while watching and the peak RSS. docs/perf.md ("Kubernetes API source")
# records results.
#
#   bench/k8s-informer.sh                                   dev preset, 5000 nodes, 100000 pods
#   BUILD=build/release NODES=5000 PODS=100000 EPS=50 WATCH=120s bench/k8s-informer.sh
set -euo pipefail
cd "$(dirname "$0")/.."

build="${BUILD:-build/dev}"
nodes="${NODES:-5000}"
pods="${PODS:-100000}"
eps="${EPS:-50}"
watch="${WATCH:-120s}"
if [ -z "${BUILD:-}" ]; then
  cmake --preset dev >/dev/null
  cmake --build --preset dev --target gpucost k8s_fake_cluster
fi
work="$(mktemp -d)"
trap 'kill "${server_pid:-}" 2>/dev/null || true; rm -rf "$work"' EXIT

"$build/bench/k8s_fake_cluster" --nodes "$nodes" --pods "$pods" --events-per-second "$eps" \
  --port-file "$work/port" 2>"$work/server.log" &
server_pid=$!
for _ in $(seq 1 600); do
  [ -s "$work/port" ] && break
  kill -0 "$server_pid" 2>/dev/null || { cat "$work/server.log"; exit 1; }
  sleep 1
done
[ -s "$work/port" ] || { echo "the fake cluster did not start" >&2; exit 1; }
cat >"$work/kubeconfig" <<KC
apiVersion: v1
kind: Config
current-context: bench
clusters: [{name: fake, cluster: {server: "http://127.0.0.1:$(cat "$work/port")"}}]
contexts: [{name: bench, context: {cluster: fake, user: anon}}]
users: [{name: anon, user: {}}]
KC
start=$(date +%s.%N)
"$build/src/cli/gpucost" kube --kubeconfig "$work/kubeconfig" --watch "$watch" --format json \
  >"$work/out.json"
end=$(date +%s.%N)
python3 - "$work/out.json" "$start" "$end" "$nodes" "$pods" "$eps" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
start, end = float(sys.argv[2]), float(sys.argv[3])
nodes, pods, eps = sys.argv[4], sys.argv[5], sys.argv[6]
events = r["resources"]["pods"]["events"]
print(f"nodes {nodes}, pods {pods} ({r['gpu_pods']} GPU pods kept), {eps} pod events/s")
print(f"wall {end - start:.1f} s; list CPU {r['list_cpu_seconds']:.2f} s")
print(f"watch: {r['watch_seconds']:.0f} s, {events} pod events received, "
      f"CPU {r['watch_cpu_seconds']:.2f} s = {100 * r['watch_cpu_seconds'] / r['watch_seconds']:.2f}% of one core")
print(f"peak RSS {r['max_rss_mb']:.1f} MB; decode errors {r['decode_errors']}")
PY
