#!/usr/bin/env python3
"""Writes the chargeback golden case ml_research_2026_10/: a month of hourly kube-state-metrics and
dcgm-exporter samples (OpenMetrics, gzip) built so that team ml-research's October 2026 statement
comes out as the statement in issue 8 — 2,847 GPU-hours in three lines (A100 on-demand 312 h at
$3.06, A100 spot 1,935 h at $1.17, T4 spot 600 h at $0.35), $3,428.67 in all, 423 idle GPU-hours
costing $495.09, efficiency 85.1 %, top consumer training-llama-ft-v3 with 1,200 GPU-hours for
$1,404.00 — plus the expected text and JSON facts, computed here from the definitions in
docs/chargeback.md, independently of the C++ code.

Samples are hourly and the case runs with `--step 1h --staleness 1h`, so a sample at hour h stands
for [h, h+1) and every number is a whole number of GPU-hours. Run it after changing the case and
review the diff.
"""
import gzip
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "golden"))
from generate import Scrape, dcgm, podlabels  # noqa: E402  (the golden cases' exposition helpers)

T0 = 1790812800  # 2026-10-01T00:00:00Z
HOURS = 31 * 24  # October
CASE = os.path.join(HERE, "ml_research_2026_10")
A100 = "NVIDIA A100-SXM4-80GB"
T4 = "Tesla T4"
H100 = "NVIDIA H100 80GB HBM3"
PRICES = {(A100, "on_demand"): 3.06, (A100, "spot"): 1.17, (T4, "spot"): 0.35,
          (T4, "on_demand"): 0.53}  # H100: no price
IDLE_THRESHOLD = 0.05


def times(hours):
    return [T0 + 3600 * h for h in hours]


def node(s, name, gpus, product, capacity, hours, instance_type=None):
    extra = [("label_karpenter_sh_capacity_type", capacity)]
    if instance_type:
        extra.append(("label_node_kubernetes_io_instance_type", instance_type))
    s.add("kube_node_labels", [("node", name), ("label_nvidia_com_gpu_product", product),
                               ("label_nvidia_com_gpu_count", str(gpus))] + extra, 1,
          times=times(hours))
    s.add("kube_node_status_capacity",
          [("node", name), ("resource", "nvidia_com_gpu"), ("unit", "integer")], gpus,
          times=times(hours))


def pod(s, ns, name, node_name, gpus, owner, hours, team=None):
    """The series kube-state-metrics writes for a running pod, trimmed to what gpucost reads."""
    base = [("namespace", ns), ("pod", name), ("uid", f"uid-{ns}-{name}")]
    t = times(hours)
    s.add("kube_pod_info", base + [("node", node_name), ("created_by_kind", owner[0]),
                                   ("created_by_name", owner[1])], 1, times=t)
    s.add("kube_pod_owner", base + [("owner_kind", owner[0]), ("owner_name", owner[1]),
                                    ("owner_is_controller", "true")], 1, times=t)
    s.add("kube_pod_status_phase", base + [("phase", "Running")], 1, times=t)
    s.add("kube_pod_container_resource_requests",
          base + [("container", "main"), ("node", node_name), ("resource", "nvidia_com_gpu"),
                  ("unit", "integer")], gpus, times=t)
    if team:
        s.add("kube_pod_labels", base + [("label_team", team)], 1, times=t)


# Each workload: (team, namespace, pod, owner, workload, node, gpu model, capacity, GPUs, hours,
# activity(gpu, hour)). Activity is DCGM_FI_PROF_GR_ENGINE_ACTIVE (a 0-1 ratio).
def notebook_activity(g, h):
    day, hour = divmod(h, 24)
    active = 9 <= hour < 15 or (hour == 15 and day < 10)  # 130 of its 480 hours
    return 0.99 if active else 0.02


WORKLOADS = [
    ("ml-research", "ml-eval", "eval-harness-7xk2p", ("Job", "eval-harness"), "eval-harness",
     "od-a100-1", A100, "on_demand", 8, range(24, 63),
     lambda g, h: 0.0 if g == 7 and h < 28 else 0.995),  # GPU 7 idle its first 4 hours
    ("ml-research", "ml-train", "training-llama-ft-v3-b9q2d", ("Job", "training-llama-ft-v3"),
     "training-llama-ft-v3", "spot-a100-1", A100, "spot", 8, range(100, 250), lambda g, h: 0.99),
    ("ml-research", "ml-notebooks", "notebook-ana-0", ("StatefulSet", "notebook-ana"),
     "notebook-ana", "spot-a100-2", A100, "spot", 1, range(0, 480), notebook_activity),
    ("ml-research", "ml-train", "hparam-sweep-q8z4m", ("Job", "hparam-sweep"), "hparam-sweep",
     "spot-a100-3", A100, "spot", 1, range(480, 735),
     lambda g, h: 0.0 if (h - 480) % 4 == 3 and h < 720 else 1.0),  # 60 idle hours
    ("ml-research", "ml-serving", "inference-embedder-6d5f8b7c9-x2x4q",
     ("ReplicaSet", "inference-embedder-6d5f8b7c9"), "inference-embedder", "spot-t4-1", T4,
     "spot", 4, range(144, 294), lambda g, h: 0.0 if g == 3 and h < 153 else 0.98),
    # Other teams: search by namespace (no team label), platform on a GPU nothing prices.
    (None, "search", "ranker-5c7d9f8b6-m4k7t", ("ReplicaSet", "ranker-5c7d9f8b6"), "ranker",
     "od-t4-1", T4, "on_demand", 1, range(0, 100), lambda g, h: 0.5),
    (None, "platform", "gpu-burn-check-z7v2x", ("Job", "gpu-burn-check"), "gpu-burn-check",
     "od-h100-1", H100, "on_demand", 1, range(300, 310), lambda g, h: 0.9),
]
PRODUCT = {A100: "NVIDIA-A100-SXM4-80GB", T4: "Tesla-T4", H100: "NVIDIA-H100-80GB-HBM3"}
INSTANCE = {"od-a100-1": "p4de.24xlarge", "spot-a100-1": "p4de.24xlarge",
            "spot-t4-1": "g4dn.12xlarge", "od-t4-1": "g4dn.xlarge", "od-h100-1": "p5.4xlarge"}


def build_scrape():
    s = Scrape()
    for i, (team, ns, pod_name, owner, _, node_name, model, cap, gpus, hours, act) in enumerate(WORKLOADS):
        node(s, node_name, gpus, PRODUCT[model], cap.replace("_", "-"), hours,
             INSTANCE.get(node_name))
        pod(s, ns, pod_name, node_name, gpus, owner, hours, team)
        for g in range(gpus):
            dcgm(s, "DCGM_FI_PROF_GR_ENGINE_ACTIVE", node_name, g,
                 f"GPU-{i:08d}-0000-4000-8000-{g:012d}", model,
                 [act(g, h) for h in hours], pod_labels=podlabels(ns, pod_name),
                 times=times(hours))
    return s


def statement(team):
    """The statement's facts for `team`, from the definitions (docs/chargeback.md)."""
    lines, workloads = {}, {}
    hours = allocated = effective = idle_hours = idle_usd = spot_hours = 0.0
    for (t, ns, _, owner, workload, _, model, cap, gpus, hrs, act) in WORKLOADS:
        if (t or ns) != team:
            continue
        price = PRICES.get((model, cap))
        for h in hrs:
            for g in range(gpus):
                u = act(g, h)
                hours += 1
                spot_hours += cap == "spot"
                line = lines.setdefault((model, cap, price), [0, 0.0])
                line[0] += 1
                wl = workloads.setdefault(workload, [0, 0.0])
                wl[0] += 1
                if u < IDLE_THRESHOLD:
                    idle_hours += 1
                if price is not None:
                    line[1] += price
                    wl[1] += price
                    allocated += price
                    effective += price * u
                    if u < IDLE_THRESHOLD:
                        idle_usd += price
    return {"gpu_hours": hours, "allocated_usd": allocated, "effective_usd": effective,
            "waste_usd": allocated - effective, "efficiency": effective / allocated,
            "idle_gpu_hours": idle_hours, "idle_usd": idle_usd, "idle_ratio": idle_hours / hours,
            "spot_gpu_hours": spot_hours, "spot_ratio": spot_hours / hours,
            "lines": lines, "workloads": workloads}


def money(usd):
    return f"${usd:,.2f}"


def percent(ratio):
    return f"{ratio * 100:.1f}%"


SHORT = {A100: "A100", T4: "T4", H100: "H100"}


def expected_text(team, st):
    """The text statement as docs/chargeback.md describes it. Every amount here is a whole number
    of cents (whole hours at whole-cent rates), so plain rounding is the largest-remainder
    rounding too; the asserts in main() check that."""
    lines = sorted(st["lines"].items(), key=lambda kv: (kv[0][0], kv[0][1]))
    labels = [f"{SHORT[m]} {c.replace('_', '-')}:" for (m, c, _), _ in lines]
    lw = max(len(x) for x in labels)
    hw = max(len(f"{n:,}") for _, (n, _) in lines)
    out = [f"Monthly GPU Report — {team}",
           "Period: 2026-10-01T00:00:00Z to 2026-11-01T00:00:00Z",
           f"GPU-hours consumed: {st['gpu_hours']:,.0f} hrs"]
    for i, (((m, c, p), (n, usd)), label) in enumerate(zip(lines, labels)):
        branch = "└── " if i == len(lines) - 1 else "├── "
        out.append(f"{branch}{label:<{lw}} {n:>{hw},} hrs × ${p:.2f} = {money(usd)}")
    out.append(f"Total: {money(st['allocated_usd'])}")
    out.append(f"Waste: idle GPU-hours {st['idle_gpu_hours']:,.0f} hrs ({percent(st['idle_ratio'])}), "
               f"idle cost {money(st['idle_usd'])}, efficiency {percent(st['efficiency'])} "
               f"(target > 80%)")
    out.append(f"       utilization-weighted waste {money(st['waste_usd'])}, effective cost "
               f"{money(st['effective_usd'])} (idle: utilization under 5%)")
    out.append(f"Spot ratio: {percent(st['spot_ratio'])} (target > 70%)")
    # Top consumers: by money, then GPU-hours.
    top = sorted(st["workloads"].items(), key=lambda kv: (-round(kv[1][1], 6), -kv[1][0], kv[0]))
    for i, (w, (n, usd)) in enumerate(top[:5]):
        head = "Top consumers: " if i == 0 else " " * len("Top consumers: ")
        out.append(f"{head}{i + 1}. {w} {n:,} GPU-hrs ({money(usd)})")
    return "\n".join(out) + "\n"


def main():
    st = statement("ml-research")
    # The numbers, checked before anything is written.
    assert st["gpu_hours"] == 2847 and round(st["allocated_usd"], 2) == 3428.67, st
    assert st["idle_gpu_hours"] == 423 and round(st["idle_usd"], 2) == 495.09, st
    assert round(st["efficiency"] * 100, 1) == 85.1 and round(st["idle_ratio"] * 100, 1) == 14.9
    wl = st["workloads"]["training-llama-ft-v3"]
    assert wl[0] == 1200 and round(wl[1], 2) == 1404.00, wl
    os.makedirs(os.path.join(CASE, "input"), exist_ok=True)
    with open(os.path.join(CASE, "input", "cluster.om.gz"), "wb") as f:
        # mtime=0: the same bytes on every run.
        with gzip.GzipFile(fileobj=f, mode="wb", compresslevel=9, mtime=0, filename="") as gz:
            gz.write(build_scrape().render(openmetrics=True).encode())
    # Cents that are whole before rounding: the rounding of the printed amounts has no choice.
    for (_, _, p), (n, usd) in st["lines"].items():
        assert abs(usd * 100 - round(usd * 100)) < 1e-6, (p, n, usd)
    cents = [round(usd * 100) for _, (_, usd) in st["lines"].items()]
    assert sum(cents) == round(st["allocated_usd"] * 100)
    with open(os.path.join(CASE, "expected.txt"), "w") as f:
        f.write(expected_text("ml-research", st))
    print(f"wrote {CASE}: spot ratio {st['spot_ratio']:.4%}, efficiency {st['efficiency']:.4%}")


if __name__ == "__main__":
    main()
