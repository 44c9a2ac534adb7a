#!/usr/bin/env python3
"""Times a real Prometheus answering "allocated, effective and waste per namespace" for a window
with query_range, in one of two styles, and reports wall time, Prometheus' peak RSS during the
queries, and any failure. Used by bench/showdown.sh; prints one JSON object.

  recipe: the AWS recipe (requests x price; effective x one cluster-wide scalar / 100)
  join: the per-pod join a careful engineer writes (requests of Pending/Running pods, samples
        standing for one scrape interval, each pod's allocation x the mean activity of its GPUs)

query_range returns at most 11,000 points per series, so longer windows are asked in pieces of
at most 10,000 steps, one after another, as a dashboard would have to.
"""
import argparse, json, time, urllib.parse, urllib.request

ap = argparse.ArgumentParser()
ap.add_argument("--url", required=True)
ap.add_argument("--pid", type=int, required=True)
ap.add_argument("--start", type=int, required=True)
ap.add_argument("--end", type=int, required=True)
ap.add_argument("--step", type=int, required=True)
ap.add_argument("--price", type=float, required=True)
ap.add_argument("--style", choices=["recipe", "join"], required=True)
ap.add_argument("--timeout", type=float, default=600)
a = ap.parse_args()

p = a.price
lb = f"{a.step - 1}s"  # a sample stands for one scrape interval
if a.style == "recipe":
    alloc = f'sum by (namespace) (kube_pod_container_resource_requests{{resource=~"nvidia.*(gpu|mig).*",unit="integer"}}) * {p}'
    eff = f"{alloc} * scalar(avg(DCGM_FI_PROF_GR_ENGINE_ACTIVE) / 100)"
else:
    held = (f'(last_over_time(kube_pod_container_resource_requests{{resource=~"nvidia_com_gpu|nvidia_com_mig_.*"}}[{lb}])'
            f' * on (namespace, pod, uid) group_left () max by (namespace, pod, uid)'
            f' (last_over_time(kube_pod_status_phase{{phase=~"Pending|Running"}}[{lb}])))')
    alloc = f"sum by (namespace) {held} * {p}"
    eff = (f"sum by (namespace) ({held} * on (namespace, pod) group_left () avg by (namespace, pod)"
           f' (last_over_time(DCGM_FI_PROF_GR_ENGINE_ACTIVE{{pod!=""}}[{lb}]))) * {p}')
queries = {"allocated": alloc, "effective": eff, "waste": f"({alloc}) - ({eff})"}


def reset_peak():
    try:
        with open(f"/proc/{a.pid}/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        pass


def peak_kb():
    with open(f"/proc/{a.pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


reset_peak()
out = {"style": a.style, "ok": True, "error": "", "queries": 0, "usd": {}}
t0 = time.monotonic()
last = a.end - a.step  # evaluation times start, start+step, ..., end-step
for name, q in queries.items():
    total = 0.0
    s = a.start
    while s <= last and out["ok"]:
        e = min(last, s + 9999 * a.step)
        params = urllib.parse.urlencode({"query": q, "start": s, "end": e, "step": a.step})
        try:
            with urllib.request.urlopen(f"{a.url}/api/v1/query_range?{params}", timeout=a.timeout) as r:
                doc = json.load(r)
        except urllib.error.HTTPError as err:
            body = err.read().decode(errors="replace")
            try:
                body = json.loads(body).get("error", body)
            except ValueError:
                pass
            out.update(ok=False, error=f"{name}: HTTP {err.code}: {body[:300]}")
            break
        except Exception as err:  # timeouts, refused connections
            out.update(ok=False, error=f"{name}: {err}")
            break
        out["queries"] += 1
        for series in doc["data"]["result"]:
            total += sum(float(v) for _, v in series["values"]) * a.step / 3600
        s = e + a.step
    out["usd"][name] = total
out["wall_s"] = time.monotonic() - t0
out["prometheus_peak_rss_kb"] = peak_kb()
print(json.dumps(out))
