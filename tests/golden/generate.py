#!/usr/bin/env python3
"""Writes the golden cases under cases/: input files shaped like real kube-state-metrics and
dcgm-exporter scrapes (timestamped), the report flags, a README saying what each case proves,
and expected.json computed here from the attribution model's formulas, independently of the C++
code. Run it after changing a case; review the diff of cases/ before committing.

Every case uses a 10-minute window from T0 with 60 s steps and scrapes every 60 s, so a series
sampled at T0..T0+540 is present for the whole window.
"""
import hashlib
import json
import os
import shutil
import time

T0 = 1790812800  # 2026-10-01T00:00:00Z
WINDOW = (T0, T0 + 600)
H = 600 / 3600.0  # window length in hours
SCRAPES = list(range(T0, T0 + 600, 60))
HERE = os.path.dirname(os.path.abspath(__file__))
SENTINEL = "9223372036854775794"  # DCGM_INT64_NOT_SUPPORTED


class Scrape:
    """Series grouped by family, emitted in text format (ms) or OpenMetrics (s)."""

    def __init__(self):
        self.families = {}  # name -> (type, help, [(labels, [(t, v)])])

    def add(self, family, labels, values, times=SCRAPES, type_="gauge", help_=None, name=None):
        fam = self.families.setdefault(family, [type_, help_ or family.replace("_", " "), []])
        lab = ",".join(f'{k}="{v}"' for k, v in labels)
        if callable(values):
            points = [(t, values(t)) for t in times]
        elif isinstance(values, (int, float, str)):
            points = [(t, values) for t in times]
        else:
            points = list(zip(times, values))
        fam[2].append((name or family, lab, points))

    def render(self, openmetrics):
        out = []
        for family, (type_, help_, series) in self.families.items():
            out.append(f"# HELP {family} {help_}")
            out.append(f"# TYPE {family} {type_}")
            for name, lab, points in series:
                for t, v in points:
                    ts = f"{t}" if openmetrics else f"{t * 1000}"
                    val = v if isinstance(v, str) else repr(float(v)) if isinstance(v, float) else str(v)
                    out.append(f"{name}{{{lab}}} {val} {ts}")
        if openmetrics:
            out.append("# EOF")
        return "\n".join(out) + "\n"


# ----------------------------------------------------------------------------- KSM helpers

def node(s, name, gpus, product, capacity=None, resource="nvidia_com_gpu", extra=(), times=SCRAPES):
    labels = [("node", name), ("label_nvidia_com_gpu_product", product),
              ("label_nvidia_com_gpu_count", str(gpus))] + list(extra)
    s.add("kube_node_labels", labels, 1, times=times)
    s.add("kube_node_status_capacity",
          [("node", name), ("resource", resource), ("unit", "integer")],
          capacity if capacity is not None else gpus, times=times)


def pod(s, ns, name, node_name, requests, container="main", owner=("", ""), labels=(),
        times=SCRAPES, phase="Running", uid=None, limits_only=False):
    uid = uid or f"uid-{ns}-{name}"
    base = [("namespace", ns), ("pod", name), ("uid", uid)]
    s.add("kube_pod_info", base + [("host_ip", "10.0.0.1"), ("pod_ip", "10.1.0.1"),
                                   ("node", node_name), ("created_by_kind", owner[0]),
                                   ("created_by_name", owner[1]), ("priority_class", ""),
                                   ("host_network", "false")], 1, times=times)
    s.add("kube_pod_owner", base + [("owner_kind", owner[0]), ("owner_name", owner[1]),
                                    ("owner_is_controller", "true" if owner[0] else "")], 1,
          times=times)
    # phase: the pod's phase, or a function of the scrape time giving it.
    phase_at = phase if callable(phase) else (lambda t: phase)
    for ph in ["Pending", "Running", "Succeeded", "Failed", "Unknown"]:
        s.add("kube_pod_status_phase", base + [("phase", ph)],
              lambda t, ph=ph: 1 if phase_at(t) == ph else 0, times=times)
    metric = "kube_pod_container_resource_limits" if limits_only else "kube_pod_container_resource_requests"
    s.add(metric, base + [("container", container), ("node", node_name), ("resource", "cpu"),
                          ("unit", "core")], 2, times=times)
    for res, amount in requests:
        s.add(metric, base + [("container", container), ("node", node_name), ("resource", res),
                              ("unit", "integer")], amount, times=times)
    if labels:
        s.add("kube_pod_labels", base + [(f"label_{k}", v) for k, v in labels], 1, times=times)


def dcgm(s, metric, node_name, gpu, uuid, model, value, gi=None, profile=None, pod_labels=(),
         host_label="Hostname", extra=(), times=SCRAPES):
    labels = [("gpu", str(gpu)), ("UUID", uuid), ("pci_bus_id", f"00000000:{gpu + 1:02X}:00.0"),
              ("device", f"nvidia{gpu}"), ("modelName", model)]
    if gi is not None:
        labels += [("GPU_I_PROFILE", profile), ("GPU_I_ID", str(gi))]
    labels += [(host_label, node_name), ("DCGM_FI_DRIVER_VERSION", "550.90.07")]
    labels += list(pod_labels) + list(extra)
    # dcgm-exporter's own HELP: "(in %)" over values of 0 to 1 (etc/default-counters.csv).
    help_ = {"DCGM_FI_PROF_GR_ENGINE_ACTIVE": "Ratio of time the graphics engine is active (in %).",
             "DCGM_FI_DEV_GPU_UTIL": "GPU utilization (in %)."}.get(metric)
    s.add(metric, labels, value, times=times, help_=help_)


def podlabels(ns, name, container="main"):
    return [("container", container), ("namespace", ns), ("pod", name)]


# ----------------------------------------------------------------------------- expectations

def row(dims, gpu_hours, allocated, effective, unmeasured=0.0, estimated=None):
    r = dict(dims)
    r["gpu_hours"] = gpu_hours
    r["allocated_usd"] = allocated
    r["effective_usd"] = effective
    # Unmeasured time has no effective cost and no waste (null, not zero): waste covers the
    # measured part of the allocation only.
    measured_allocated = allocated * (1 - unmeasured / gpu_hours) if gpu_hours else 0.0
    r["waste_usd"] = None if effective is None else measured_allocated - effective
    r["unmeasured_gpu_hours"] = unmeasured
    if estimated is not None:
        r["estimated"] = estimated
    return r


def idle_row(by, gpu_hours, idle):
    r = {d: "__idle__" for d in by}
    r["gpu_hours"] = gpu_hours
    r["idle_usd"] = idle
    return r


def expect(by, rows, idle=None, cost=None, totals=None):
    out_rows = sorted(rows, key=lambda r: (-r["allocated_usd"], [str(r[d]) for d in by]))
    if idle is not None:
        out_rows.append(idle)
    doc = {"window": {"start": "2026-10-01T00:00:00Z", "end": "2026-10-01T00:10:00Z"},
           "step_s": 60, "currency": "USD", "by": by, "rows": out_rows}
    allocated = sum(r["allocated_usd"] for r in rows)
    idle_usd = idle["idle_usd"] if idle else 0.0
    doc["totals"] = {"allocated_usd": allocated, "idle_usd": idle_usd,
                     "cost_usd": cost if cost is not None else allocated + idle_usd}
    doc["totals"].update(totals or {})
    return doc


CASES = []


def case(name, readme, scrape, args, expected, openmetrics=False, extra_files=None):
    CASES.append((name, readme, scrape, args, expected, openmetrics, extra_files or {}))


WINDOW_ARGS = f"--window {WINDOW[0]},{WINDOW[1]} --step 60s --accumulate"
A100_40 = "NVIDIA A100-SXM4-40GB"
A100_80 = "NVIDIA A100-SXM4-80GB"
T4 = "Tesla T4"

# ----------------------------------------------------------------------------- sharing modes

s = Scrape()
node(s, "n1", 2, "NVIDIA-A100-SXM4-80GB")
pod(s, "ml", "train-0", "n1", [("nvidia_com_gpu", 1)])
dcgm(s, "DCGM_FI_PROF_GR_ENGINE_ACTIVE", "n1", 0, "GPU-aaaa0000-0000-4000-8000-000000000000", A100_80, 0.5,
     pod_labels=podlabels("ml", "train-0"))
dcgm(s, "DCGM_FI_PROF_GR_ENGINE_ACTIVE", "n1", 1, "GPU-aaaa0000-0000-4000-8000-000000000001", A100_80, 0.0)
p = 4.0
case("whole_gpu", """Whole GPUs. One node with two A100-80GB at $4/GPU-hour; pod ml/train-0 holds
one GPU (its dcgm-exporter series carries the pod's labels) at 50 % activity; the other GPU is
unheld. Proves: allocated = 1 GPU x $4 x 1/6 h, effective = allocated x 0.5, the free GPU is an
`__idle__` row, and allocated + idle = the node's GPU cost.""", s,
     f"{WINDOW_ARGS} --by namespace --price-per-gpu-hour 4",
     expect(["namespace"], [row({"namespace": "ml"}, H, p * H, 0.5 * p * H)],
            idle_row(["namespace"], H, p * H)))

s = Scrape()
mig_uuid = "GPU-5f8e2c1a-7b3d-4e9f-a2c6-1d0b9e8f7a65"
node(s, "n1", 7, "A100-SXM4-40GB-MIG-1g.5gb", capacity=7,
     extra=[("label_nvidia_com_mig_strategy", "single"), ("label_nvidia_com_mig_config", "all-1g.5gb")])
teams = [("bu-a", 3, 0.9), ("bu-b", 2, 0.5), ("bu-c", 2, 0.1)]
gi = 7
for ns, n, act in teams:
    for i in range(n):
        name = f"{ns}-worker-{i}"
        pod(s, ns, name, "n1", [("nvidia_com_gpu", 1)])
        dcgm(s, "DCGM_FI_PROF_GR_ENGINE_ACTIVE", "n1", 0, mig_uuid, A100_40, act, gi=gi, profile="1g.5gb",
             pod_labels=podlabels(ns, name))
        gi += 1
p = 12.0
case("mig_single_seed", """MIG single strategy: the seed scenario. One A100-40GB with seven 1g.5gb
slices (f = 1/7 each, requested as `nvidia.com/gpu`) at $12/GPU-hour; bu-a, bu-b and bu-c hold
3, 2 and 2 slices whose own activity is 0.9, 0.5 and 0.1. Proves the seed numbers (5.142857,
3.428571, 3.428571 $/h, here for 1/6 h) and that each team's effective cost comes from its own
slices, not a cluster-wide scalar.""", s,
     f"{WINDOW_ARGS} --by namespace --price-per-gpu-hour 12",
     expect(["namespace"], [row({"namespace": ns}, n / 7 * H, n / 7 * p * H, act * n / 7 * p * H)
                            for ns, n, act in teams]))

s = Scrape()
node(s, "n1", 1, "NVIDIA-A100-SXM4-40GB", capacity=0,
     extra=[("label_nvidia_com_mig_strategy", "mixed")])
s.add("kube_node_status_capacity", [("node", "n1"), ("resource", "nvidia_com_mig_3g_20gb"), ("unit", "integer")], 1)
s.add("kube_node_status_capacity", [("node", "n1"), ("resource", "nvidia_com_mig_2g_10gb"), ("unit", "integer")], 1)
pod(s, "vision", "detector-0", "n1", [("nvidia_com_mig_3g_20gb", 1)])
pod(s, "nlp", "tagger-0", "n1", [("nvidia_com_mig_2g_10gb", 1)])
dcgm(s, "DCGM_FI_PROF_GR_ENGINE_ACTIVE", "n1", 0, mig_uuid, A100_40, 0.4, gi=1, profile="3g.20gb",
     pod_labels=podlabels("vision", "detector-0"))
dcgm(s, "DCGM_FI_PROF_GR_ENGINE_ACTIVE", "n1", 0, mig_uuid, A100_40, 1.0, gi=5, profile="2g.10gb",
     pod_labels=podlabels("nlp", "tagger-0"))
p = 7.0
case("mig_mixed_unpartitioned", """MIG mixed strategy with unpartitioned slices. An A100-40GB at $7/GPU-hour
($1 per slice-hour) carries a 3g.20gb instance (f = 3/7) held by vision/detector-0 through the
KSM-sanitized resource `nvidia_com_mig_3g_20gb`, a 2g.10gb instance (2/7) held by nlp/tagger-0,
and two slices with no instance. Proves: sanitized MIG resource names map back to their profile,
the instance's own activity is the holder's utilization (0.4 and 1.0), and the two unpartitioned
slices are capacity, reported as idle (2/7 of the GPU's cost).""", s,
     f"{WINDOW_ARGS} --by namespace --price-per-gpu-hour 7",
     expect(["namespace"], [row({"namespace": "vision"}, 3 / 7 * H, 3 / 7 * p * H, 0.4 * 3 / 7 * p * H),
                            row({"namespace": "nlp"}, 2 / 7 * H, 2 / 7 * p * H, 2 / 7 * p * H)],
            idle_row(["namespace"], 2 / 7 * H, 2 / 7 * p * H)))

s = Scrape()
t4_uuid = "GPU-7e1d0c2b-3a4f-4b5c-8d6e-9f0a1b2c3d4e"
node(s, "t4-node", 1, "Tesla-T4-SHARED", capacity=4,
     extra=[("label_nvidia_com_gpu_replicas", "4"), ("label_nvidia_com_gpu_sharing_strategy", "time-slicing")])
for name in ["a", "b", "c"]:
    pod(s, "inference", f"svc-{name}", "t4-node", [("nvidia_com_gpu", 1)])
# dcgm-exporter's default mode labels a shared GPU with one arbitrary pod (last writer wins).
dcgm(s, "DCGM_FI_PROF_GR_ENGINE_ACTIVE", "t4-node", 0, t4_uuid, T4, 0.6,
     pod_labels=podlabels("inference", "svc-b"))
p = 0.6
case("time_slicing", """Time-slicing, and dcgm-exporter labelling a shared GPU with one arbitrary pod.
One T4 with 4 replicas (node capacity says `nvidia.com/gpu: 4`, inflated: the GPU count label says
1) at $0.60/GPU-hour. Three pods hold one replica each (f = 1/4); the GPU's activity is 0.6 and
its series carries the labels of svc-b only. Proves the example of docs/engine.md: each holder gets
a = 0.6 x (1/4)/(3/4) = 0.2, u = 0.8, rows are marked estimated, the GPU's effective cost
0.6 x price is fully accounted to the three pods (not all to svc-b), the free replica is idle,
and node capacity is 1 physical GPU, not 4.""", s,
     f"{WINDOW_ARGS} --by pod --price-per-gpu-hour 0.6",
     expect(["pod"], [row({"pod": f"svc-{n}"}, 0.25 * H, 0.25 * p * H, 0.8 * 0.25 * p * H, estimated=True)
                      for n in "abc"],
            idle_row(["pod"], 0.25 * H, 0.25 * p * H)))

s = Scrape()
node(s, "t4-node", 2, "Tesla-T4", capacity=8, resource="nvidia_com_gpu_shared",
     extra=[("label_nvidia_com_gpu_replicas", "4"), ("label_nvidia_com_gpu_sharing_strategy", "time-slicing")])
s.add("kube_node_status_capacity", [("node", "t4-node"), ("resource", "nvidia_com_gpu"), ("unit", "integer")], 0)
pod(s, "web", "embed-0", "t4-node", [("nvidia_com_gpu_shared", 1)])
pod(s, "web", "embed-1", "t4-node", [("nvidia_com_gpu_shared", 1)])
for g in range(2):
    dcgm(s, "DCGM_FI_PROF_GR_ENGINE_ACTIVE", "t4-node", g, f"GPU-7e1d0c2b-3a4f-4b5c-8d6e-9f0a1b2c3d5{g}", T4, 0.1)
p = 1.2
case("time_slicing_renamed", """Time-slicing with `renameByDefault: true`. Two T4s with 4 replicas each are
advertised as `nvidia.com/gpu.shared: 8` (KSM: `nvidia_com_gpu_shared`), `nvidia.com/gpu: 0`, at
$1.20/GPU-hour. Two pods hold one shared replica each; both GPUs run at 0.1. Proves the renamed
resource draws replica units (f = 1/4), node capacity is 2 GPUs (not 8, not 0), and the six free
replicas are idle. Wherever the two replicas land, each holder's estimated activity share is
0.1 x (1/4) / (sum of shares on its GPU) of a GPU, so u = 0.4 or 0.2 depending on placement: this case
checks money and hours only.""", s,
     f"{WINDOW_ARGS} --by pod --price-per-gpu-hour 1.2",
     {"by": ["pod"], "rows": [{"pod": "embed-0", "gpu_hours": 0.25 * H, "allocated_usd": 0.25 * p * H},
                              {"pod": "embed-1", "gpu_hours": 0.25 * H, "allocated_usd": 0.25 * p * H},
                              {"pod": "__idle__", "gpu_hours": 1.5 * H, "idle_usd": 1.5 * p * H}],
      "totals": {"allocated_usd": 0.5 * p * H, "idle_usd": 1.5 * p * H, "cost_usd": 2 * p * H}})

s = Scrape()
mps_uuid = "GPU-3bc239e1-4cc8-97e4-e817-5a36dfd2885e"
node(s, "mps-node", 1, "NVIDIA-A100-SXM4-80GB-SHARED", capacity=2,
     extra=[("label_nvidia_com_gpu_replicas", "2"), ("label_nvidia_com_gpu_sharing_strategy", "mps")])
pod(s, "default", "gpu-burn-1", "mps-node", [("nvidia_com_gpu", 1)], container="gpu-burn-container-1")
pod(s, "vllm-inference", "vllm-0", "mps-node", [("nvidia_com_gpu", 1)], container="vllm")
# KUBERNETES_VIRTUAL_GPUS=true: the device value is copied to every sharing pod, with a vgpu label.
dcgm(s, "DCGM_FI_PROF_GR_ENGINE_ACTIVE", "mps-node", 0, mps_uuid, A100_80, 0.7,
     pod_labels=podlabels("default", "gpu-burn-1", "gpu-burn-container-1") + [("vgpu", "1")])
dcgm(s, "DCGM_FI_PROF_GR_ENGINE_ACTIVE", "mps-node", 0, mps_uuid, A100_80, 0.7,
     pod_labels=podlabels("vllm-inference", "vllm-0", "vllm") + [("vgpu", "3")])
p = 3.0
case("mps_virtual_gpu_copies", """MPS, and dcgm-exporter's virtual-GPU mode copying the device value to every
sharing pod. One A100-80GB with 2 MPS replicas at $3/GPU-hour; two pods hold one replica each
(f = 1/2). The GPU's activity is 0.7 and both pods' series show 0.7 (copies, `vgpu` label).
Proves the copies are read as the device's activity, never summed (summing would make 1.4):
each pod gets a = 0.7 x 1/2 = 0.35, u = 0.7, estimated.""", s,
     f"{WINDOW_ARGS} --by namespace --price-per-gpu-hour 3",
     expect(["namespace"], [row({"namespace": "default"}, 0.5 * H, 0.5 * p * H, 0.7 * 0.5 * p * H, estimated=True),
                            row({"namespace": "vllm-inference"}, 0.5 * H, 0.5 * p * H, 0.7 * 0.5 * p * H, estimated=True)]))

s = Scrape()
node(s, "hami-node", 1, "NVIDIA-A100-SXM4-80GB", capacity=10)
pod(s, "team-x", "small", "hami-node", [("nvidia_com_gpu", 1), ("nvidia_com_gpucores", 30), ("nvidia_com_gpumem", 8000)])
pod(s, "team-y", "medium", "hami-node", [("nvidia_com_gpu", 1), ("nvidia_com_gpucores", 50), ("nvidia_com_gpumem", 20000)])
dcgm(s, "DCGM_FI_PROF_GR_ENGINE_ACTIVE", "hami-node", 0, "GPU-0fc3a1b2-0000-4000-8000-000000001448", A100_80, 0.4)
p = 6.0
case("hami_fractions", """HAMi fractional GPUs. One A100-80GB at $6/GPU-hour; team-x/small requests
`nvidia.com/gpu: 1, nvidia.com/gpucores: 30` and team-y/medium `gpucores: 50`. Proves the share
is gpucores/100 (0.3 and 0.5, not a whole GPU each), 20 % of the GPU is idle, and the GPU's 0.4
activity is split in proportion to shares (a = 0.15 and 0.25, u = 0.5 each, estimated).""", s,
     f"{WINDOW_ARGS} --by namespace --price-per-gpu-hour 6",
     expect(["namespace"], [row({"namespace": "team-y"}, 0.5 * H, 0.5 * p * H, 0.5 * 0.5 * p * H, estimated=True),
                            row({"namespace": "team-x"}, 0.3 * H, 0.3 * p * H, 0.5 * 0.3 * p * H, estimated=True)],
            idle_row(["namespace"], 0.2 * H, 0.2 * p * H)))

# ----------------------------------------------------------------------------- node agent

def agent_gpu(s, node_name, uuid, index, model):
    s.add("gpucost_agent_gpu_info", [("node", node_name), ("gpu_uuid", uuid), ("gpu_index", str(index)),
                                     ("model", model), ("mig_mode", "disabled")], 1)


def agent_unit(s, node_name, uuid, values, source="gpm"):
    s.add("gpucost_agent_unit_activity_ratio", [("node", node_name), ("gpu_uuid", uuid), ("source", source)],
          values)
    # The agent measured every process of the GPU: holders without a series used nothing.
    s.add("gpucost_agent_nvml_supported", [("node", node_name), ("gpu_uuid", uuid),
                                           ("call", "nvmlDeviceGetProcessUtilization")], 1)


def agent_holder(s, node_name, uuid, values, pod_uid, container_id, names=("", "", ""), times=SCRAPES):
    """A holder's part of a GPU's activity. Like the agent, labels it cannot tell are left out."""
    labels = [("node", node_name), ("gpu_uuid", uuid), ("pod_uid", pod_uid), ("container_id", container_id)]
    labels += [(k, v) for k, v in zip(("namespace", "pod", "container"), names) if v]
    s.add("gpucost_agent_holder_activity_ratio", labels, values, times=times)


def agent_assign(s, node_name, ns, name, uuid, replica=None, container="main"):
    device_id = uuid if replica is None else f"{uuid}::{replica}"
    labels = [("node", node_name), ("namespace", ns), ("pod", name), ("container", container),
              ("resource", "nvidia.com/gpu"), ("device_id", device_id), ("gpu_uuid", uuid)]
    if replica is not None:
        labels.append(("replica", str(replica)))
    s.add("gpucost_agent_device_assignment", labels, 1)


def container_id(name):
    return hashlib.sha256(name.encode()).hexdigest()


STEP_H = 60 / 3600.0


def shared_gpu_rows(p, holders, device, measured):
    """Rows of the holders of one shared GPU. holders: {pod: (share, own activity per step)};
    device: the GPU's activity per step. Measured: a holder's activity is its own part (zero in a
    step where the agent saw no process of it). Otherwise the GPU's activity is split in
    proportion to shares and the row is estimated. u = min(1, a / share) per step."""
    total = sum(share for share, _ in holders.values())
    rows = []
    for name, (share, own) in holders.items():
        effective = 0.0
        for k, dev in enumerate(device):
            a = own[k] if measured else dev * share / total
            effective += share * p * STEP_H * min(1.0, a / share)
        rows.append(row({"pod": name}, share * H, share * p * H, effective,
                        estimated=(not measured) and total > share))
    return rows


TS_UUID = "GPU-7e1d0c2b-3a4f-4b5c-8d6e-9f0a1b2c3d4e"
HAMI_UUID = "GPU-0fc3a1b2-0000-4000-8000-000000001448"
# svc-a runs at 0.15 of the T4 all window; svc-b at 0.2 for five minutes, then no process;
# svc-c holds its replica and runs nothing. The GPU's activity is the sum of the parts.
TS_OWN = {"svc-a": [0.15] * 10, "svc-b": [0.2] * 5 + [0.0] * 5, "svc-c": [0.0] * 10}
TS_DEVICE = [sum(v[k] for v in TS_OWN.values()) for k in range(10)]
HAMI_OWN = {"small": [0.1] * 10, "medium": [0.3] * 10}
HAMI_DEVICE = [0.4] * 10


def shared_cluster(with_agent):
    s = Scrape()
    node(s, "ts-node", 1, "Tesla-T4-SHARED", capacity=4,
         extra=[("label_nvidia_com_gpu_replicas", "4"), ("label_nvidia_com_gpu_sharing_strategy", "time-slicing")])
    for name in TS_OWN:
        pod(s, "inference", name, "ts-node", [("nvidia_com_gpu", 1)])
    node(s, "hami-node", 1, "NVIDIA-A100-SXM4-80GB", capacity=10)
    pod(s, "team-x", "small", "hami-node", [("nvidia_com_gpu", 1), ("nvidia_com_gpucores", 30)])
    pod(s, "team-y", "medium", "hami-node", [("nvidia_com_gpu", 1), ("nvidia_com_gpucores", 50)])
    # dcgm-exporter labels the shared T4 with one arbitrary pod; the HAMi GPU with none.
    dcgm(s, "DCGM_FI_PROF_GR_ENGINE_ACTIVE", "ts-node", 0, TS_UUID, T4, TS_DEVICE,
         pod_labels=podlabels("inference", "svc-b"))
    dcgm(s, "DCGM_FI_PROF_GR_ENGINE_ACTIVE", "hami-node", 0, HAMI_UUID, A100_80, HAMI_DEVICE)
    if not with_agent:
        return s
    agent_gpu(s, "ts-node", TS_UUID, 0, T4)
    agent_gpu(s, "hami-node", HAMI_UUID, 0, A100_80)
    agent_unit(s, "ts-node", TS_UUID, TS_DEVICE, source="utilization")
    agent_unit(s, "hami-node", HAMI_UUID, HAMI_DEVICE)
    # svc-a's series carries its names; svc-b's only its pod uid and container id (the agent
    # could not tell the names), and only while its process runs; svc-c has none.
    agent_holder(s, "ts-node", TS_UUID, TS_OWN["svc-a"], "uid-inference-svc-a", container_id("svc-a"),
                 names=("inference", "svc-a", "main"))
    agent_holder(s, "ts-node", TS_UUID, TS_OWN["svc-b"][:5], "uid-inference-svc-b", container_id("svc-b"),
                 times=SCRAPES[:5])
    for name, replica in [("svc-a", 2), ("svc-b", 0), ("svc-c", 3)]:
        agent_assign(s, "ts-node", "inference", name, TS_UUID, replica=replica)
    agent_holder(s, "hami-node", HAMI_UUID, HAMI_OWN["small"], "uid-team-x-small", container_id("small"),
                 names=("team-x", "small", "main"))
    agent_holder(s, "hami-node", HAMI_UUID, HAMI_OWN["medium"], "uid-team-y-medium", container_id("medium"),
                 names=("team-y", "medium", "main"))
    agent_assign(s, "hami-node", "team-x", "small", HAMI_UUID)
    agent_assign(s, "hami-node", "team-y", "medium", HAMI_UUID)
    return s


def shared_cluster_expected(measured):
    p = 2.0
    rows = (shared_gpu_rows(p, {n: (0.25, own) for n, own in TS_OWN.items()}, TS_DEVICE, measured) +
            shared_gpu_rows(p, {"small": (0.3, HAMI_OWN["small"]), "medium": (0.5, HAMI_OWN["medium"])},
                            HAMI_DEVICE, measured))
    idle = idle_row(["pod"], (0.25 + 0.2) * H, (0.25 + 0.2) * p * H)
    node_cost = 2 * p * H  # two physical GPUs, never the replica-inflated four
    # Conservation: allocated + idle is the nodes' GPU cost.
    assert abs(sum(r["allocated_usd"] for r in rows) + idle["idle_usd"] - node_cost) < 1e-12
    # Measured or split, the holders' effective cost is the GPUs' activity x price.
    assert abs(sum(r["effective_usd"] for r in rows) - p * STEP_H * (sum(TS_DEVICE) + sum(HAMI_DEVICE))) < 1e-12
    return expect(["pod"], rows, idle, cost=node_cost)


SHARED_README = """A time-sliced T4 (4 replicas) and a HAMi A100-80GB at $2/GPU-hour. inference/svc-a, svc-b and
svc-c hold one replica each (f = 1/4); team-x/small and team-y/medium hold 30 % and 50 % of the
A100 (gpucores). Per step, svc-a uses 0.15 of the T4, svc-b 0.2 for the first five minutes and
nothing after, svc-c nothing; small uses 0.1 and medium 0.3 of the A100. dcgm-exporter reports
each GPU's activity (the T4's is the sum of the parts, labelled with svc-b only)."""

case("shared_gpus_dcgm_only", SHARED_README + """ This case has dcgm-exporter only: nothing says which pod
used what, so each GPU's activity is split in proportion to shares (svc-a/b/c all get u = 1/3,
small and medium u = 0.5) and every holder row is `estimated`. Its twin `shared_gpus_agent` adds the
node agent. Conservation: allocated + idle (one replica, 20 % of the A100) = 2 GPUs x $2 x 1/6 h.""",
     shared_cluster(False), f"{WINDOW_ARGS} --by pod --price-per-gpu-hour 2", shared_cluster_expected(False))

case("shared_gpus_agent", SHARED_README + """ This case adds the node agent's series: each GPU's
activity, each holder's part (svc-a by names; svc-b by pod uid only, and only while its process
runs), and the kubelet's device assignments (replicas 2, 0 and 3 of the T4; the A100 for both HAMi
pods). Proves: holders are measured (`estimated` false) with their exact shares of activity:
svc-a u = 0.6, svc-b u = 0.4 (0.8 for five minutes, then measured idle, not unmeasured), svc-c
u = 0 (assigned but no process: measured idle), small u = 1/3, medium u = 0.6; the GPUs'
effective cost is the same total as the even split, only redistributed; and allocated + idle is
still 2 GPUs x $2 x 1/6 h. Twin of `shared_gpus_dcgm_only`.""",
     shared_cluster(True), f"{WINDOW_ARGS} --by pod --price-per-gpu-hour 2", shared_cluster_expected(True))

# ----------------------------------------------------------------------------- HAMi's vGPU monitor

def hami_cluster():
    """Two HAMi A100-80GB nodes with no dcgm-exporter and no node agent: only HAMi's vGPU monitor.
    hami-new writes HAMi 2.9's names, scraped through a pod target (so its namespace, pod and
    container labels arrive as exported_*); hami-old writes the legacy names."""
    s = Scrape()
    uuids = {"hami-new": "GPU-5a1e0c3d-0000-4000-8000-00000000a100",
             "hami-old": "GPU-5a1e0c3d-0000-4000-8000-00000000b100"}
    pods = {"hami-new": [("team-x", "small", 30), ("team-y", "medium", 50)],
            "hami-old": [("team-z", "small2", 30), ("team-w", "medium2", 50)]}
    target = [("namespace", "hami-system"), ("pod", "hami-device-plugin-7x2kq"), ("container", "vgpu-monitor")]
    for node_name, uuid in uuids.items():
        node(s, node_name, 1, "NVIDIA-A100-SXM4-80GB", capacity=10)
        for (ns, name, cores), own in zip(pods[node_name], HAMI_OWN.values()):
            pod(s, ns, name, node_name, [("nvidia_com_gpu", 1), ("nvidia_com_gpucores", cores)])
            pct = [100 * v for v in own]
            if node_name == "hami-new":
                s.add("hami_container_device_utilization_ratio",
                      target + [("exported_namespace", ns), ("exported_pod", name),
                                ("exported_container", "main"), ("vdevice_index", "0"), ("device_uuid", uuid)], pct)
            else:
                s.add("Device_utilization_desc_of_container",
                      [("podnamespace", ns), ("podname", name), ("ctrname", "main"), ("vdeviceid", "0"),
                       ("deviceuuid", uuid)], pct)
        device_pct = [100 * v for v in HAMI_DEVICE]
        if node_name == "hami-new":
            s.add("hami_host_gpu_utilization_ratio",
                  target + [("node", node_name), ("device_index", "0"), ("device_uuid", uuid),
                            ("device_type", "NVIDIA-NVIDIA A100-SXM4-80GB")], device_pct)
        else:
            s.add("HostCoreUtilization", [("nodeid", node_name), ("deviceidx", "0"), ("deviceuuid", uuid),
                                          ("devicetype", "NVIDIA-NVIDIA A100-SXM4-80GB")], device_pct)
    return s


def hami_cluster_expected():
    p = 2.0
    rows = []
    for small, medium in [("small", "medium"), ("small2", "medium2")]:
        rows += shared_gpu_rows(p, {small: (0.3, HAMI_OWN["small"]), medium: (0.5, HAMI_OWN["medium"])},
                                HAMI_DEVICE, True)
    idle = idle_row(["pod"], 2 * 0.2 * H, 2 * 0.2 * p * H)
    node_cost = 2 * p * H
    assert abs(sum(r["allocated_usd"] for r in rows) + idle["idle_usd"] - node_cost) < 1e-12
    return expect(["pod"], rows, idle, cost=node_cost)


case("hami_monitor", """HAMi's own metrics instead of dcgm-exporter and the node agent. Two A100-80GB
nodes at $2/GPU-hour, each with a pod holding 30 % (gpucores) and one holding 50 %; HAMi's vGPU
monitor reports each GPU's utilization (40 %) and each container's part of it (10 % and 30 %), in
percent. hami-new writes HAMi 2.9's names (hami_host_gpu_utilization_ratio,
hami_container_device_utilization_ratio) scraped through a pod target, so its namespace/pod/
container labels are exported_*; hami-old writes the legacy names (HostCoreUtilization,
Device_utilization_desc_of_container). Proves: the GPUs are known from HAMi's series alone, the
percents are divided by 100, and the HAMi holders are measured (`estimated` false) with their own
parts: small u = 1/3, medium u = 0.6, as with the node agent in `shared_gpus_agent`.""",
     hami_cluster(), f"{WINDOW_ARGS} --by pod --price-per-gpu-hour 2", hami_cluster_expected())

# ----------------------------------------------------------------------------- input traps

s = Scrape()
node(s, "n1", 1, "NVIDIA-A100-SXM4-80GB")
node(s, "n2", 1, "NVIDIA-A100-SXM4-80GB")
pod(s, "pct", "a", "n1", [("nvidia_com_gpu", 1)])
pod(s, "ratio", "b", "n2", [("nvidia_com_gpu", 1)])
dcgm(s, "DCGM_FI_DEV_GPU_UTIL", "n1", 0, "GPU-11111111-0000-4000-8000-000000000000", A100_80, 75,
     pod_labels=podlabels("pct", "a"))
dcgm(s, "DCGM_FI_PROF_GR_ENGINE_ACTIVE", "n2", 0, "GPU-22222222-0000-4000-8000-000000000000", A100_80, 0.75,
     pod_labels=podlabels("ratio", "b"))
p = 2.0
case("ratio_vs_percent", """Ratio vs percent. Node n1 exports only `DCGM_FI_DEV_GPU_UTIL` = 75 (a percent,
0-100); node n2 only `DCGM_FI_PROF_GR_ENGINE_ACTIVE` = 0.75 (a ratio, 0-1). Proves both mean
75 % utilization: the percent is divided by 100 and the ratio is not (the /100 defect of the
AWS recipe would make it 0.75 %).""", s,
     f"{WINDOW_ARGS} --by namespace --price-per-gpu-hour 2",
     expect(["namespace"], [row({"namespace": "pct"}, H, p * H, 0.75 * p * H),
                            row({"namespace": "ratio"}, H, p * H, 0.75 * p * H)]))

s = Scrape()
node(s, "old-node", 1, "NVIDIA-A100-SXM4-80GB")
node(s, "new-node", 1, "NVIDIA-A100-SXM4-80GB")
pod(s, "ns1", "on-old", "old-node", [("nvidia_com_gpu", 1)])
pod(s, "ns2", "on-new", "new-node", [("nvidia_com_gpu", 1)])
dcgm(s, "DCGM_FI_PROF_GR_ENGINE_ACTIVE", "old-node", 0, "GPU-33333333-0000-4000-8000-000000000000", A100_80, 0.2,
     host_label="Hostname")
dcgm(s, "DCGM_FI_PROF_GR_ENGINE_ACTIVE", "new-node", 0, "GPU-44444444-0000-4000-8000-000000000000", A100_80, 0.3,
     host_label="hostname")
p = 3.0
case("hostname_label_case", """`Hostname` vs `hostname`. dcgm-exporter up to 4.8.2 labels the node
`Hostname`, later releases `hostname`. The series carry no pod labels, so the GPU is found through
the node name alone. Proves both spellings place the GPU's activity (0.2 and 0.3) on the right
node and holder.""", s,
     f"{WINDOW_ARGS} --by namespace --price-per-gpu-hour 3",
     expect(["namespace"], [row({"namespace": "ns1"}, H, p * H, 0.2 * p * H),
                            row({"namespace": "ns2"}, H, p * H, 0.3 * p * H)]))

s = Scrape()
node(s, "n1", 7, "A100-SXM4-40GB-MIG-1g.5gb", capacity=7,
     extra=[("label_nvidia_com_mig_strategy", "single")])
pod(s, "ml", "trainer-0", "n1", [("nvidia_com_gpu", 1)])
pod(s, "ml", "trainer-1", "n1", [("nvidia_com_gpu", 1)])
for gi_, (pname, act) in enumerate([("trainer-0", 0.9), ("trainer-1", 0.3)]):
    dcgm(s, "DCGM_FI_PROF_GR_ENGINE_ACTIVE", "n1", 0, mig_uuid, A100_40, act, gi=7 + gi_, profile="1g.5gb",
         pod_labels=[("container", "dcgm-exporter"), ("namespace", "monitoring"), ("pod", "dcgm-exporter-78z52"),
                     ("exported_container", "main"), ("exported_namespace", "ml"), ("exported_pod", pname),
                     ("instance", "10.0.0.9:9400"), ("job", "dcgm-exporter")])
p = 7.0
case("exported_pod_labels", """`exported_pod` / `exported_namespace` after Prometheus relabelling. Scraped
through a ServiceMonitor without honorLabels, dcgm-exporter's pod labels become `exported_*` and
`pod`/`namespace` name the exporter itself (monitoring/dcgm-exporter-78z52). Proves the slices'
activity (0.9 and 0.3) goes to the exported pods, and nothing is charged to the exporter.""", s,
     f"{WINDOW_ARGS} --by pod --price-per-gpu-hour 7",
     expect(["pod"], [row({"pod": "trainer-0"}, H / 7, p * H / 7, 0.9 * p * H / 7),
                      row({"pod": "trainer-1"}, H / 7, p * H / 7, 0.3 * p * H / 7)],
            idle_row(["pod"], 5 * H / 7, 5 * p * H / 7)))

s = Scrape()
node(s, "n1", 1, "NVIDIA-A100-SXM4-80GB")
pod(s, "ml", "a", "n1", [("nvidia_com_gpu", 1)])
vals = [0.5] * 5 + [SENTINEL] * 5
dcgm(s, "DCGM_FI_PROF_GR_ENGINE_ACTIVE", "n1", 0, "GPU-55555555-0000-4000-8000-000000000000", A100_80, vals,
     pod_labels=podlabels("ml", "a"))
p = 6.0
case("dcgm_blank_sentinel", """DCGM blank sentinels. The GPU's activity is 0.5 for five scrapes and then
9223372036854775794 (DCGM_INT64_NOT_SUPPORTED) for five. Proves sentinels are "no data": the last
five steps are unmeasured (not 9.2e18 utilization, not zero, and the last good sample does not
stand in for them), effective and waste cover the measured half only and `unmeasured_gpu_hours`
is half the hours.""", s,
     f"{WINDOW_ARGS} --by namespace --price-per-gpu-hour 6",
     expect(["namespace"], [row({"namespace": "ml"}, H, p * H, 0.5 * p * H / 2, unmeasured=H / 2)]))

s = Scrape()
node(s, "n1", 1, "NVIDIA-A100-80GB-PCIe-MIG-7g.80gb", capacity=1,
     extra=[("label_nvidia_com_mig_strategy", "single"), ("label_nvidia_com_mig_config", "all-7g.80gb")])
pod(s, "big", "job-0", "n1", [("nvidia_com_gpu", 1)])
dcgm(s, "DCGM_FI_PROF_GR_ENGINE_ACTIVE", "n1", 0, "GPU-06357e72-c3ee-614b-775f-a89e18e8cc08", "NVIDIA A100 80GB PCIe",
     0.6, gi=0, profile="7g.79gb", pod_labels=podlabels("big", "job-0"))
p = 5.0
case("mig_profile_7g79gb", """DCGM profile names that differ from the MIG config. An A100-80GB configured
`all-7g.80gb` reports its instance as `7g.79gb`. Proves the profile is parsed by its compute
slices (7 of 7: a whole GPU), with no idle remainder and the instance's activity 0.6 as the
holder's utilization.""", s,
     f"{WINDOW_ARGS} --by namespace --price-per-gpu-hour 5",
     expect(["namespace"], [row({"namespace": "big"}, H, p * H, 0.6 * p * H)]))

# ----------------------------------------------------------------------------- timelines

s = Scrape()
node(s, "n1", 1, "NVIDIA-A100-SXM4-80GB")
pod(s, "batch", "late", "n1", [("nvidia_com_gpu", 1)], times=list(range(T0 + 90, T0 + 400, 60)))
dcgm(s, "DCGM_FI_PROF_GR_ENGINE_ACTIVE", "n1", 0, "GPU-66666666-0000-4000-8000-000000000000", A100_80, 1.0)
p = 6.0
held_h = (T0 + 390 + 60 - (T0 + 90)) / 3600.0
case("pod_mid_step", """A pod starting and stopping mid-step. batch/late is first scraped at T0+90 s and
last at T0+390 s (scrapes every 60 s), so it holds the GPU over [T0+90, T0+450): 360 s, starting
in the middle of step 2 and ending in the middle of step 8. Proves partial steps are charged by
the seconds held (0.1 GPU-hours), and the rest of the GPU's time is idle.""", s,
     f"{WINDOW_ARGS} --by namespace --price-per-gpu-hour 6",
     expect(["namespace"], [row({"namespace": "batch"}, held_h, p * held_h, p * held_h)],
            idle_row(["namespace"], H - held_h, p * (H - held_h))))

s = Scrape()
node(s, "n1", 1, "NVIDIA-A100-SXM4-80GB")
node(s, "n2", 1, "NVIDIA-A100-SXM4-80GB", times=list(range(T0 + 120, T0 + 480, 60)))
pod(s, "ml", "steady", "n1", [("nvidia_com_gpu", 1)])
dcgm(s, "DCGM_FI_PROF_GR_ENGINE_ACTIVE", "n1", 0, "GPU-77777777-0000-4000-8000-000000000000", A100_80, 0.5,
     pod_labels=podlabels("ml", "steady"))
p = 6.0
n2_h = 360 / 3600.0
case("node_join_leave", """A node joining and leaving. n1 is present all window; n2 (one GPU, unheld) is
first scraped at T0+120 s and last at T0+420 s, so it exists over [T0+120, T0+480). Proves capacity
(and so idle cost and total cost) follows node presence: n2 adds 0.1 GPU-hours of idle, not 1/6,
on its own idle row (grouped by node, idle rows carry their node).""", s,
     f"{WINDOW_ARGS} --by node --price-per-gpu-hour 6",
     {"by": ["node"], "rows": [row({"node": "n1"}, H, p * H, 0.5 * p * H),
                               {"node": "n2", "idle": True, "gpu_hours": n2_h,
                                "idle_usd": p * n2_h}],
      "totals": {"allocated_usd": p * H, "idle_usd": p * n2_h, "cost_usd": p * (H + n2_h)}})

s = Scrape()
node(s, "n1", 1, "NVIDIA-A100-SXM4-80GB")
pod(s, "dark", "no-dcgm", "n1", [("nvidia_com_gpu", 1)])
p = 6.0
case("missing_dcgm", """Missing dcgm-exporter data. The node has one GPU held by dark/no-dcgm and no dcgm
series at all. Proves unmeasured is not idle: allocated is charged, effective and waste are null
(unknown, never zero) and all the hours are `unmeasured_gpu_hours`.""", s,
     f"{WINDOW_ARGS} --by namespace --price-per-gpu-hour 6",
     expect(["namespace"], [row({"namespace": "dark"}, H, p * H, None, unmeasured=H)]))

s = Scrape()
node(s, "a100-1", 1, "NVIDIA-A100-SXM4-80GB")
node(s, "t4-1", 1, "Tesla-T4")
pod(s, "ml", "big", "a100-1", [("nvidia_com_gpu", 1)])
pod(s, "ml", "small", "t4-1", [("nvidia_com_gpu", 1)])
dcgm(s, "DCGM_FI_PROF_GR_ENGINE_ACTIVE", "a100-1", 0, "GPU-88888888-0000-4000-8000-000000000000", A100_80, 0.8,
     pod_labels=podlabels("ml", "big"))
dcgm(s, "DCGM_FI_PROF_GR_ENGINE_ACTIVE", "t4-1", 0, "GPU-99999999-0000-4000-8000-000000000000", T4, 0.4,
     pod_labels=podlabels("ml", "small"))
prices_yaml = """prices:
  - match: {gpu_model: "*A100*"}
    usd_per_gpu_hour: 4.10
  - match: {gpu_model: "*T4*"}
    usd_per_gpu_hour: 0.35
"""
case("mixed_gpu_models", """Mixed GPU models in one pool, priced per model. An A100 node and a T4 node;
prices.yaml maps `*A100*` to $4.10 and `*T4*` to $0.35 per GPU-hour. Proves rows split by
gpu_model, each priced by its own rule.""", s,
     f"{WINDOW_ARGS} --by gpu_model --prices {{case}}/prices.yaml",
     expect(["gpu_model"], [row({"gpu_model": A100_80}, H, 4.10 * H, 0.8 * 4.10 * H),
                            row({"gpu_model": T4}, H, 0.35 * H, 0.4 * 0.35 * H)]),
     extra_files={"prices.yaml": prices_yaml})

s = Scrape()
node(s, "n1", 6, "NVIDIA-A100-SXM4-80GB")
s.add("kube_replicaset_owner", [("namespace", "shop"), ("replicaset", "api-5d9f7c"), ("owner_kind", "Deployment"),
                                ("owner_name", "api"), ("owner_is_controller", "true")], 1)
s.add("kube_job_owner", [("namespace", "shop"), ("job_name", "nightly-29001"), ("owner_kind", "CronJob"),
                         ("owner_name", "nightly"), ("owner_is_controller", "true")], 1)
s.add("kube_namespace_labels", [("namespace", "shop"), ("label_team", "commerce")], 1)
pod(s, "shop", "api-5d9f7c-x1", "n1", [("nvidia_com_gpu", 1)], owner=("ReplicaSet", "api-5d9f7c"))
pod(s, "shop", "nightly-29001-abc", "n1", [("nvidia_com_gpu", 1)], owner=("Job", "nightly-29001"),
    labels=[("team", "data")])
pod(s, "shop", "db-0", "n1", [("nvidia_com_gpu", 1)], owner=("StatefulSet", "db"))
pod(s, "shop", "agent-q7", "n1", [("nvidia_com_gpu", 1)], owner=("DaemonSet", "agent"))
pod(s, "shop", "oneoff", "n1", [("nvidia_com_gpu", 1)])
pod(s, "lab", "scratch", "n1", [("nvidia_com_gpu", 1)])
p = 6.0
case("workload_identity_and_team", """Workload identity and team. Pods owned by a ReplicaSet (of Deployment api),
a Job (of CronJob nightly), a StatefulSet, a DaemonSet, and two bare pods. Namespace shop carries
label team=commerce; the nightly pod carries its own label team=data; namespace lab has no team
label. Proves owner chains resolve to the top controller, the team comes from the pod label,
then the namespace label, then the namespace name. No dcgm data: effective is null.""", s,
     f"{WINDOW_ARGS} --by workload_kind,workload,team --price-per-gpu-hour 6",
     expect(["workload_kind", "workload", "team"],
            [row({"workload_kind": k, "workload": w, "team": t}, H, p * H, None, unmeasured=H)
             for k, w, t in [("Deployment", "api", "commerce"), ("CronJob", "nightly", "data"),
                             ("StatefulSet", "db", "commerce"), ("DaemonSet", "agent", "commerce"),
                             ("Pod", "oneoff", "commerce"), ("Pod", "scratch", "lab")]]))

# Same data as whole_gpu, with idle shared proportionally within the node.
s = Scrape()
node(s, "n1", 2, "NVIDIA-A100-SXM4-80GB")
pod(s, "ml", "train-0", "n1", [("nvidia_com_gpu", 1)])
pod(s, "web", "serve-0", "n1", [("nvidia_com_gpu", 1)], times=SCRAPES[:5])
dcgm(s, "DCGM_FI_PROF_GR_ENGINE_ACTIVE", "n1", 0, "GPU-aaaa0000-0000-4000-8000-000000000000", A100_80, 1.0,
     pod_labels=podlabels("ml", "train-0"))
p = 6.0
case("idle_shared_proportionally", """Idle shared proportionally by node. n1 has two GPUs at $6/GPU-hour; ml
holds one for the whole window, web holds one for the first half (then it is idle). With
`--idle proportional --idle-scope node`, the idle half-GPU-window ($0.50) is shared in proportion
to allocated cost ($1 : $0.50), so ml receives $1/3 and web $1/6; there is no `__idle__` row and
the totals still add up to the node's cost ($2).""", s,
     f"{WINDOW_ARGS} --by namespace --price-per-gpu-hour 6 --idle proportional --idle-scope node",
     {"by": ["namespace"], "rows": [{"namespace": "ml", "idle_usd": 0.5 * 2 / 3},
                                    {"namespace": "web", "idle_usd": 0.5 / 3}],
      "totals": {"cost_usd": 2 * p * H}})


# dcgm-exporter >= 4.9 names, in OpenMetrics (second timestamps, # EOF).
s = Scrape()
node(s, "n1", 2, "NVIDIA-H100-80GB-HBM3")
pod(s, "ml", "a", "n1", [("nvidia_com_gpu", 1)])
pod(s, "ml", "b", "n1", [("nvidia_com_gpu", 1)])
h100 = "NVIDIA H100 80GB HBM3"
dcgm(s, "DCGM_FI_PROF_GR_ENGINE_UTIL_RATIO", "n1", 0, "GPU-abab0000-0000-4000-8000-000000000000", h100, 0.25,
     pod_labels=podlabels("ml", "a"), host_label="hostname")
s.families["DCGM_FI_PROF_GR_ENGINE_UTIL_RATIO"][1] = "Ratio of time the graphics engine is active (0.0-1.0)."
dcgm(s, "DCGM_FI_DEV_GPU_UTIL_RATIO", "n1", 1, "GPU-abab0000-0000-4000-8000-000000000001", h100, 0.65,
     pod_labels=podlabels("ml", "b"), host_label="hostname")
s.families["DCGM_FI_DEV_GPU_UTIL_RATIO"][1] = "GPU utilization ratio (0.0-1.0)."
p = 8.0
case("dcgm_4_9_names_openmetrics", """dcgm-exporter 4.9 metric names, read from an OpenMetrics file. The exporter
renames `DCGM_FI_PROF_GR_ENGINE_ACTIVE` to `DCGM_FI_PROF_GR_ENGINE_UTIL_RATIO` and
`DCGM_FI_DEV_GPU_UTIL` (a percent) to `DCGM_FI_DEV_GPU_UTIL_RATIO` (a ratio, per its HELP text),
and labels the node `hostname`. The file is OpenMetrics with timestamps in seconds and `# EOF`, as
`promtool tsdb create-blocks-from openmetrics` takes it. Proves both new names are read, the new
GPU_UTIL ratio is not divided by 100 (0.65, not 0.0065), and second timestamps line up with the
window exactly as millisecond ones do.""", s,
     f"{WINDOW_ARGS} --by pod --price-per-gpu-hour 8",
     expect(["pod"], [row({"pod": "b"}, H, p * H, 0.65 * p * H), row({"pod": "a"}, H, p * H, 0.25 * p * H)]),
     openmetrics=True)

# Idle shared evenly across the cluster.
s = Scrape()
node(s, "n1", 2, "NVIDIA-A100-SXM4-80GB")
node(s, "n2", 2, "NVIDIA-A100-SXM4-80GB")
pod(s, "ml", "big", "n1", [("nvidia_com_gpu", 2)])
pod(s, "web", "small", "n2", [("nvidia_com_gpu", 1)])
p = 6.0
case("idle_shared_evenly", """Idle shared evenly across the cluster. Two nodes with two GPUs each at
$6/GPU-hour ($1 per GPU per window). ml/big holds both GPUs of n1, web/small one GPU of n2; one GPU
is idle. With `--idle even --idle-scope cluster` the idle $1 is split equally between the two
holders ($0.50 each, whatever their size), so ml is charged $2.50 and web $1.50; there is no
`__idle__` row and the total is the cluster's cost ($4). No dcgm data: effective is null.""", s,
     f"{WINDOW_ARGS} --by namespace --price-per-gpu-hour 6 --idle even --idle-scope cluster",
     {"by": ["namespace"], "rows": [{"namespace": "ml", "gpu_hours": 2 * H, "allocated_usd": 2.5, "idle_usd": 0.5},
                                    {"namespace": "web", "gpu_hours": H, "allocated_usd": 1.5, "idle_usd": 0.5}],
      "totals": {"cost_usd": 4 * p * H}})


# A GPU's dcgm series loses its pod labels while the GPU is free.
s = Scrape()
node(s, "n1", 1, "NVIDIA-A100-SXM4-80GB")
half = SCRAPES[5:]
pod(s, "ml", "late", "n1", [("nvidia_com_gpu", 1)], times=half)
uuid = "GPU-cdcd0000-0000-4000-8000-000000000000"
dcgm(s, "DCGM_FI_PROF_GR_ENGINE_ACTIVE", "n1", 0, uuid, A100_80, 0.0, times=SCRAPES[:5])
dcgm(s, "DCGM_FI_PROF_GR_ENGINE_ACTIVE", "n1", 0, uuid, A100_80, 0.8, pod_labels=podlabels("ml", "late"),
     times=half)
p = 6.0
case("dcgm_labels_come_and_go", """dcgm-exporter labels a GPU's series with the pod that holds it and drops the
labels while the GPU is free, so one device has two series over time. The GPU is free (unlabelled
series, activity 0) for the first five minutes; then ml/late holds it and its labelled series shows
0.8. Proves the two series are read as one device timeline: the pod's five minutes are 80 % busy
(the last idle sample does not stand in for them, and nothing is unmeasured) and the first five
minutes are idle.""", s,
     f"{WINDOW_ARGS} --by namespace --price-per-gpu-hour 6",
     expect(["namespace"], [row({"namespace": "ml"}, H / 2, p * H / 2, 0.8 * p * H / 2)],
            idle_row(["namespace"], H / 2, p * H / 2)))


# ----------------------------------------------------------------------------- Slurm

s = Scrape()
g0 = "GPU-51a0c000-0000-4000-8000-000000000000"
g1 = "GPU-51a0c000-0000-4000-8000-000000000001"
# gpu01 runs dcgm-exporter with --hpc-job-mapping-dir: job 701 holds GPU 1 for the first five
# minutes (its series carry hpc_job="701", activity 0.9); GPU 0 is free all along (0.1).
dcgm(s, "DCGM_FI_PROF_GR_ENGINE_ACTIVE", "gpu01", 0, g0, A100_80, 0.1)
dcgm(s, "DCGM_FI_PROF_GR_ENGINE_ACTIVE", "gpu01", 1, g1, A100_80, 0.9, extra=[("hpc_job", "701")],
     times=SCRAPES[:5])
dcgm(s, "DCGM_FI_PROF_GR_ENGINE_ACTIVE", "gpu01", 1, g1, A100_80, 0.0, times=SCRAPES[5:])
SACCT = """JobID|JobIDRaw|Cluster|User|Account|Partition|QOS|JobName|AllocTRES|Start|End|Elapsed|State|NodeList|NTasks|TRESUsageInTot
701|701|hpc1|alice|physics|gpu|normal|train|billing=8,cpu=8,gres/gpu:a100=1,gres/gpu=1,mem=64G,node=1|2026-10-01T00:00:00|2026-10-01T00:05:00|00:05:00|COMPLETED|gpu01||
701.batch|701.batch|hpc1||physics||||cpu=8,gres/gpu:a100=1,gres/gpu=1,mem=64G,node=1|2026-10-01T00:00:00|2026-10-01T00:05:00|00:05:00|COMPLETED|gpu01|1|cpu=00:04:10,gres/gpumem=20480M,gres/gpuutil=30,mem=2000000K
702|702|hpc1|bob|chemistry|gpu|normal|md|billing=6,cpu=4,gres/gpu=1,mem=32G,node=1|2026-09-30T23:50:00|2026-10-01T00:10:00|00:20:00|COMPLETED|gpu02||
702.batch|702.batch|hpc1||chemistry||||cpu=4,gres/gpu=1,mem=32G,node=1|2026-09-30T23:50:00|2026-10-01T00:10:00|00:20:00|COMPLETED|gpu02|1|cpu=00:19:00,gres/gpumem=8192M,gres/gpuutil=40,mem=900000K
702.extern|702.extern|hpc1||chemistry||||billing=6,cpu=4,gres/gpu=1,mem=32G,node=1|2026-09-30T23:50:00|2026-10-01T00:10:00|00:20:00|COMPLETED|gpu02|1|cpu=00:00:00,energy=0,fs/disk=5329,mem=0,pages=0,vmem=0
703|703|hpc1|carol|bio|debug|normal|align|billing=8,cpu=8,gres/gpu=1,mem=16G,node=1|2026-10-01T00:00:00|Unknown|00:12:00|RUNNING|gpu02||
"""
PARTITIONS = """PartitionName=gpu
   AllowGroups=ALL AllowAccounts=ALL AllowQos=ALL
   Nodes=gpu[01-02]
   State=UP TotalCPUs=128 TotalNodes=2 SelectTypeParameters=NONE
   TRES=cpu=128,mem=1000G,node=2,billing=96,gres/gpu=4
   TRESBillingWeights=CPU=0.5,GRES/gpu=4.0

PartitionName=debug
   AllowGroups=ALL AllowAccounts=ALL AllowQos=ALL
   Nodes=gpu02
   State=UP TotalCPUs=64 TotalNodes=1 SelectTypeParameters=NONE
   TRES=cpu=64,mem=500G,node=1,billing=64,gres/gpu=2
"""
p = 4.0
# Billing from the weights: 701 8x0.5 + 1x4 = 8; 702 4x0.5 + 1x4 = 6; 703 in debug (no
# weights) bills its 8 CPUs. Billing units = billing x hours held in the window.
rows = [row({"team": "physics"}, H / 2, p * H / 2, 0.9 * p * H / 2),
        row({"team": "chemistry"}, H, p * H, 0.4 * p * H),
        row({"team": "bio"}, H, p * H, None, unmeasured=H)]
for r, billing in zip(rows, [8 * H / 2, 6 * H, 8 * H]):
    r["billing_units"] = billing
doc = expect(["team"], rows, idle_row(["team"], 1.5 * H, p * 1.5 * H))
doc["rows"][-1]["billing_units"] = None
doc["totals"]["billing_units"] = 8 * H / 2 + 6 * H + 8 * H
case("slurm_utilization_and_billing", """A Slurm cluster measured two ways, with billing units. gpu01 runs dcgm-exporter
with HPC job mapping: its GPU 1 carries `hpc_job="701"` (activity 0.9) while job 701 holds one GPU
for five minutes; GPU 0 is free (0.1). gpu02 has no dcgm-exporter: job 702 (one GPU, all window)
reports `gres/gpuutil=40` in its batch step's TRESUsageInTot, job 703 (one GPU, running) nothing.
Proves: the dcgm-only node is taken over by the Slurm node of the same name (2 real GPUs, not 2
more); job 701 is pinned to the labelled GPU (drawn from the pool it would get GPU 0 at 0.1) so its
utilization is 0.9, not its step's gres/gpuutil 30; 702's utilization is 40/100 per GPU; 703 is
unmeasured (null effective, 1/6 h unmeasured); billing units are the partition's
TRESBillingWeights (CPU=0.5, GRES/gpu=4; debug without weights bills CPUs) x hours held; idle is
GPU 0 all window plus GPU 1's last five minutes, and allocated + idle = 4 GPUs x $4 x 1/6 h.""", s,
     f"{WINDOW_ARGS} --by team --price-per-gpu-hour 4 --slurm-sacct {{case}}/sacct.txt "
     "--slurm-time-zone UTC --slurm-gpus-per-node 2 --slurm-billing-weights {case}/partitions.txt",
     doc, extra_files={"sacct.txt": SACCT, "partitions.txt": PARTITIONS})


# ----------------------------------------------------------------------------- prices
# Catalog numbers below are the built-in catalog's (data/price-catalog.yaml), written out here
# from the reference's published prices, not read from the catalog file.

P4D_HR = 21.957642  # p4d.24xlarge, us-east-1, since 2025-06-01, 8 GPUs
P5_HR = 55.04       # p5.48xlarge, us-east-1, since 2025-06-01, 8 GPUs
G6_HR = 0.8048      # g6.xlarge, us-east-1, 1 GPU
AWS_TYPICAL_SPOT = 0.45


def cloud_node(s, name, gpus, product, instance_type, capacity="on-demand", region="us-east-1",
               provider_id=None):
    node(s, name, gpus, product, extra=[("label_node_kubernetes_io_instance_type", instance_type),
                                        ("label_topology_kubernetes_io_region", region),
                                        ("label_karpenter_sh_capacity_type", capacity)])
    if provider_id:
        s.add("kube_node_info", [("node", name), ("provider_id", provider_id)], 1)


def one_pod_per_node(s, nodes):
    """A pod holding one GPU on each node, at 50 % activity; the node's other GPUs are idle."""
    for i, (name, gpus, model) in enumerate(nodes):
        pod(s, name, "p", name, [("nvidia_com_gpu", 1)])
        for g in range(gpus):
            dcgm(s, "DCGM_FI_PROF_GR_ENGINE_ACTIVE", name, g,
                 f"GPU-{i:08d}-0000-4000-8000-{g:012d}", model, 0.5 if g == 0 else 0.0,
                 pod_labels=podlabels(name, "p") if g == 0 else ())


def priced_rows(prices, gpus):
    """One row per namespace (= node) holding one GPU, and the idle of the other GPUs."""
    rows = [row({"namespace": n}, H, prices[n] * H, 0.5 * prices[n] * H) for n in prices]
    idle_hours = sum(gpus[n] - 1 for n in prices) * H
    idle_usd = sum((gpus[n] - 1) * prices[n] for n in prices) * H
    return rows, idle_row(["namespace"], idle_hours, idle_usd)


PRECEDENCE_PRICES = """overrides:
  - match: {node: special}
    usd_per_gpu_hour: 1.25
prices:
  - match: {instance_type: p4d.24xlarge}
    usd_per_gpu_hour: 2.10
commitments:
  - match: {instance_type: p5.48xlarge}
    name: 1-yr compute savings plan
    discount: 0.31
default_usd_per_gpu_hour: 0.75
"""

s = Scrape()
H100 = "NVIDIA H100 80GB HBM3"
L4 = "NVIDIA L4"
nodes = [("special", 8, A100_40), ("ruled", 8, A100_40), ("cat", 1, L4), ("spotty", 1, L4),
         ("committed", 8, H100), ("onprem", 2, A100_80)]
cloud_node(s, "special", 8, "NVIDIA-A100-SXM4-40GB", "p4d.24xlarge")
cloud_node(s, "ruled", 8, "NVIDIA-A100-SXM4-40GB", "p4d.24xlarge")
cloud_node(s, "cat", 1, "NVIDIA-L4", "g6.xlarge")
cloud_node(s, "spotty", 1, "NVIDIA-L4", "g6.xlarge", capacity="spot")
cloud_node(s, "committed", 8, "NVIDIA-H100-80GB-HBM3", "p5.48xlarge")
cloud_node(s, "onprem", 2, "NVIDIA-A100-SXM4-80GB", "dgx-a100")
one_pod_per_node(s, nodes)
prices = {"special": 1.25, "ruled": 2.10, "cat": G6_HR, "spotty": G6_HR * (1 - AWS_TYPICAL_SPOT),
          "committed": P5_HR / 8 * (1 - 0.31), "onprem": 0.75}
rows, idle = priced_rows(prices, {n: g for n, g, _ in nodes})
case("prices_precedence", """The price book's sources in order. Six nodes, each with one pod (its
namespace is the node's name) holding one GPU at 50 % activity:
`special` (p4d) has an override ($1.25) that beats the rate-card rule matching it; `ruled` (p4d)
gets the rule ($2.10) instead of the catalog; `cat` (g6.xlarge, on demand) gets the catalog
($0.8048); `spotty` (g6.xlarge, spot) the catalog less AWS's typical spot discount (45 %);
`committed` (p5.48xlarge) the catalog's $55.04/8 less a 31 % savings plan; `onprem` (an instance
type the catalog does not know) the file's default ($0.75). Idle GPUs are priced the same way, and
allocated + idle is every node's GPU cost.""", s,
     f"{WINDOW_ARGS} --by namespace --prices ${{CASE}}/prices.yaml",
     expect(["namespace"], rows, idle), extra_files={"prices.yaml": PRECEDENCE_PRICES})

DATED_PRICES = """prices:
  - match: {instance_type: p4d.24xlarge}
    usd_per_gpu_hour: 2.00
    until: 2026-10-01T00:05:00Z
"""
s = Scrape()
cloud_node(s, "ruled", 8, "NVIDIA-A100-SXM4-40GB", "p4d.24xlarge")
one_pod_per_node(s, [("ruled", 8, A100_40)])
p_avg = (2.00 + P4D_HR / 8) / 2  # five minutes at each price
rows, idle = priced_rows({"ruled": p_avg}, {"ruled": 8})
case("prices_dated_rule", """A price that changes inside the window. A rate-card rule prices the
p4d.24xlarge at $2.00/GPU-hour until 00:05; from then on the catalog's $21.957642/8 applies. The
window is ten minutes, so each price covers half of it (the same mechanism prices a window across
AWS's June 2025 cut from the catalog's two dated prices).""", s,
     f"{WINDOW_ARGS} --by namespace --prices ${{CASE}}/prices.yaml",
     expect(["namespace"], rows, idle), extra_files={"prices.yaml": DATED_PRICES})

with open(os.path.join(HERE, "..", "billing", "data", "legacy_cur.csv")) as f:
    CUR_HEADER = f.readline()
    CUR_ROW = f.readline()
BILLED_ROW = (CUR_ROW.replace("i-0a1b2c3d4e5f60718", "i-0b111ed000000001")
              .replace("55.0400000000,55.0400000000,$55.04", "44.0000000000,44.0000000000,$44.00"))
s = Scrape()
cloud_node(s, "billed", 8, "NVIDIA-H100-80GB-HBM3", "p5.48xlarge",
           provider_id="aws:///us-east-1a/i-0b111ed000000001")
one_pod_per_node(s, [("billed", 8, H100)])
rows, idle = priced_rows({"billed": 44.00 / 8}, {"billed": 8})
case("prices_bill", """A node priced from its bill. The AWS CUR (legacy columns) charges instance
i-0b111ed000000001, a p5.48xlarge, $44.00 for the hour 00:00-01:00 (a negotiated rate; the
public on-demand cost column still says $55.04). The node's `kube_node_info` provider ID names the
instance, so the bill beats the catalog: $44.00 / 8 GPUs per GPU-hour, and the ten-minute window
gets its sixth of the hour.""", s,
     f"{WINDOW_ARGS} --by namespace --bill ${{CASE}}/bill.csv",
     expect(["namespace"], rows, idle), extra_files={"bill.csv": CUR_HEADER + BILLED_ROW})

# ----------------------------------------------------------------------------- AWS Neuron
# Neuron devices per instance and cores per device: the AWS Neuron documentation (Trn1/Trn1n: 16
# Trainium of two NeuronCore-v2; Inferentia2: two NeuronCore-v2). Prices are the catalog's, from
# Karpenter's us-east-1 price file (2026-01-19): the instance price over its devices.
TRN1_32_HR = 21.50    # trn1.32xlarge, 16 devices
INF2_X_HR = 0.7582    # inf2.xlarge, 1 device


def neuron_node(s, name, instance_type, capacity):
    """A Neuron node as kube-state-metrics shows it: no NVIDIA labels, the device plugin's
    resources in kube_node_status_capacity (KSM-sanitized names)."""
    s.add("kube_node_labels", [("node", name), ("label_node_kubernetes_io_instance_type", instance_type),
                               ("label_topology_kubernetes_io_region", "us-east-1"),
                               ("label_karpenter_sh_capacity_type", "on-demand")], 1)
    for res, amount in capacity:
        s.add("kube_node_status_capacity", [("node", name), ("resource", res), ("unit", "integer")], amount)


s = Scrape()
neuron_node(s, "trn1-a", "trn1.32xlarge", [("aws_amazon_com_neuroncore", 32), ("aws_amazon_com_neurondevice", 16),
                                            ("aws_amazon_com_neuron", 16)])
neuron_node(s, "inf2-b", "inf2.xlarge", [("aws_amazon_com_neuroncore", 2)])
pod(s, "train", "trainer-0", "trn1-a", [("aws_amazon_com_neurondevice", 4)])
pod(s, "infer", "server-0", "trn1-a", [("aws_amazon_com_neuroncore", 1)])
pod(s, "infer", "server-1", "trn1-a", [("aws_amazon_com_neuron", 1)])
pod(s, "infer", "small-0", "inf2-b", [("aws_amazon_com_neuroncore", 1)])
p1 = TRN1_32_HR / 16
p2 = INF2_X_HR / 1
# Shares in Neuron devices: 4 devices; one core of a two-core device; one device (the older
# resource name); one core of inf2.xlarge's single device.
train_dev = 4.0
infer_trn = 0.5 + 1.0
infer_inf = 0.5
idle_dev_trn = 16 - train_dev - infer_trn
idle_dev_inf = 1 - infer_inf
case("neuron_cores_and_devices", """AWS Neuron requests. A trn1.32xlarge node (16 Trainium devices of two
NeuronCores; the device plugin advertises `aws.amazon.com/neuroncore: 32`, `neurondevice: 16` and the
older `neuron: 16`) and an inf2.xlarge node that advertises only `neuroncore: 2` (its one device is
taken from the cores and the instance type), both priced from the built-in catalog: the instance's
price over its devices ($21.50/16 and $0.7582 per accelerator-hour). train/trainer-0 requests 4
`neurondevice` (every core of 4 devices: 4 device-equivalents), infer/server-0 one `neuroncore` (half
a device), infer/server-1 one `neuron` (a device), infer/small-0 one core of the inf2 device. Proves
device and core requests become shares of a device, node capacity is devices (not devices + cores +
legacy devices), the unheld 10.5 + 0.5 devices are idle, allocated + idle is both instances' price
for the window, the report counts 17 device-hours x 1/6 h as accelerator-hours (`unit_kind_hours`),
and with no neuron-monitor series the time is unmeasured (effective and waste null, never zero).""", s,
     f"{WINDOW_ARGS} --by namespace",
     expect(["namespace"], [row({"namespace": "train"}, train_dev * H, train_dev * p1 * H, None, unmeasured=train_dev * H),
                            row({"namespace": "infer"}, (infer_trn + infer_inf) * H,
                                (infer_trn * p1 + infer_inf * p2) * H, None,
                                unmeasured=(infer_trn + infer_inf) * H)],
            idle_row(["namespace"], (idle_dev_trn + idle_dev_inf) * H, (idle_dev_trn * p1 + idle_dev_inf * p2) * H),
            cost=(16 * p1 + 1 * p2) * H) | {"unit_kind_hours": {"neuron_device": 17 * H}})


def neuron_series(s, metric, instance_id, instance_type, extra, values, times=SCRAPES, node_label=None):
    """A neuron-monitor-prometheus.py series: the instance's labels, then the metric's own."""
    labels = [("availability_zone", "us-east-1a"), ("instance_id", instance_id), ("instance_name", ""),
              ("instance_type", instance_type)]
    if node_label:
        labels.append(("node", node_label))
    labels += [("region", "us-east-1"), ("subnet_id", "subnet-0a1b2c3d")] + list(extra)
    help_ = {"neuroncore_utilization_ratio": "NeuronCore utilization ratio",
             "neuron_hardware_info": "Neuron Hardware Information"}[metric]
    s.add(metric, labels, values, times=times, help_=help_)


TRN1_2X_HR = 1.34375  # trn1.2xlarge, 1 device of two cores
s = Scrape()
neuron_node(s, "inf2-m", "inf2.xlarge", [("aws_amazon_com_neuroncore", 2), ("aws_amazon_com_neurondevice", 1)])
s.add("kube_node_info", [("node", "inf2-m"), ("provider_id", "aws:///us-east-1a/i-0aaa1111bbbb2222c")], 1)
neuron_node(s, "trn1-u", "trn1.2xlarge", [("aws_amazon_com_neuroncore", 2), ("aws_amazon_com_neurondevice", 1)])
pod(s, "serve", "llm-0", "inf2-m", [("aws_amazon_com_neurondevice", 1)])
pod(s, "train", "small-0", "trn1-u", [("aws_amazon_com_neurondevice", 1)])
# inf2-m: the monitor runs (neuron_hardware_info every scrape); runtime 1 uses core 0 at 0.8, and a
# second runtime reports the same core at 0.3 (never summed: the core's value is 0.8); core 1 has
# no runtime, so no series: measured idle (0).
neuron_series(s, "neuron_hardware_info", "i-0aaa1111bbbb2222c", "inf2.xlarge",
              [("neuron_device_count", "1"), ("neuroncore_per_device_count", "2")], 1)
neuron_series(s, "neuroncore_utilization_ratio", "i-0aaa1111bbbb2222c", "inf2.xlarge",
              [("neuroncore", "0"), ("runtime_tag", "1")], 0.8)
neuron_series(s, "neuroncore_utilization_ratio", "i-0aaa1111bbbb2222c", "inf2.xlarge",
              [("neuroncore", "0"), ("runtime_tag", "2")], 0.3)
# trn1-u: only core 0's series, matched by the node label a scrape added; no neuron_hardware_info,
# so core 1 is unmeasured, not idle.
neuron_series(s, "neuroncore_utilization_ratio", "i-0ccc3333dddd4444e", "trn1.2xlarge",
              [("neuroncore", "0"), ("runtime_tag", "7")], 0.6, node_label="trn1-u")
pa = INF2_X_HR
pb = TRN1_2X_HR
case("neuron_monitor_utilization", """NeuronCore utilization from the Neuron monitor (neuron-monitor-prometheus.py's
`neuroncore_utilization_ratio`, a ratio, one series per core a runtime uses, labelled with the EC2
instance). serve/llm-0 holds the one device of inf2.xlarge `inf2-m` (matched to its monitor by the
instance id in the node's provider ID): core 0 runs at 0.8 (a second runtime's 0.3 for the same core
is not added), core 1 has no series while the monitor reports the instance (`neuron_hardware_info`),
so it is measured idle; u = (0.8 + 0) / 2 = 0.4. train/small-0 holds the device of trn1.2xlarge
`trn1-u` (matched by a `node` label): core 0 at 0.6, core 1 with neither a series nor the monitor is
unmeasured, so half the hours are unmeasured and the measured half has u = 0.6. Proves per-core
activity (each core f = 1/2 of a device), copies never summed, monitor-present-but-no-series as 0 and
no-monitor as unmeasured; allocated = the whole of each instance's price (no idle).""", s,
     f"{WINDOW_ARGS} --by namespace",
     expect(["namespace"], [row({"namespace": "serve"}, H, pa * H, 0.5 * 0.8 * pa * H),
                            row({"namespace": "train"}, H, pb * H, 0.5 * 0.6 * pb * H, unmeasured=0.5 * H)],
            cost=(pa + pb) * H))


s = Scrape()
cloud_node(s, "gpu-a", 8, "NVIDIA-A100-SXM4-40GB", "p4d.24xlarge")
pod(s, "ml", "train-0", "gpu-a", [("nvidia_com_gpu", 1)])
dcgm(s, "DCGM_FI_PROF_GR_ENGINE_ACTIVE", "gpu-a", 0, "GPU-abcd0000-0000-4000-8000-000000000000", A100_40, 0.5,
     pod_labels=podlabels("ml", "train-0"))
neuron_node(s, "inf-b", "inf2.xlarge", [("aws_amazon_com_neuroncore", 2), ("aws_amazon_com_neurondevice", 1)])
pod(s, "ml", "embed-0", "inf-b", [("aws_amazon_com_neuroncore", 1)])
pg = P4D_HR / 8
pn = INF2_X_HR
case("neuron_and_gpu_by_unit_kind", """GPU-hours and accelerator-hours kept apart. A p4d.24xlarge (8 A100s) where
ml/train-0 holds one GPU at 50 % activity, and an inf2.xlarge (one Inferentia2 device of two cores)
where ml/embed-0 holds one NeuronCore with no monitor data, both priced from the catalog. Grouped by
`unit_kind`: the GPU row counts GPU-hours at $21.957642/8, the `neuron_device` row half a device's
accelerator-hours at $0.7582, each kind has its own idle row (7 GPUs, half a device), and
`unit_kind_hours` gives the capacity of each kind: 8 GPU-hours and 1 device-hour per hour.""", s,
     f"{WINDOW_ARGS} --by unit_kind",
     {"by": ["unit_kind"],
      "unit_kind_hours": {"gpu": 8 * H, "neuron_device": 1 * H},
      "rows": [row({"unit_kind": "gpu"}, H, pg * H, 0.5 * pg * H),
               row({"unit_kind": "neuron_device"}, 0.5 * H, 0.5 * pn * H, None, unmeasured=0.5 * H),
               {"unit_kind": "gpu", "idle": True, "gpu_hours": 7 * H, "idle_usd": 7 * pg * H},
               {"unit_kind": "neuron_device", "idle": True, "gpu_hours": 0.5 * H, "idle_usd": 0.5 * pn * H}],
      "totals": {"allocated_usd": (pg + 0.5 * pn) * H, "idle_usd": (7 * pg + 0.5 * pn) * H,
                 "cost_usd": (8 * pg + pn) * H}})


# ----------------------------------------------------------------------------- AMD Instinct
# Partitions per GPU: MI300X has 8 XCDs, so CPX cuts it into 8 partitions (AMD's partitioning
# guides); the AMD GPU device plugin advertises partitions as amd.com/gpu under single naming and
# as amd.com/<compute>_<memory> under mixed naming (ROCm/k8s-device-plugin README).

def amd_node(s, name, capacity, partition_label=None):
    labels = [("node", name), ("label_amd_com_gpu_product_name", "AMD_Instinct_MI300X_OAM")]
    if partition_label:
        labels.append(("label_amd_com_compute_memory_partition", partition_label))
    s.add("kube_node_labels", labels, 1)
    for res, amount in capacity:
        s.add("kube_node_status_capacity", [("node", name), ("resource", res), ("unit", "integer")], amount)


s = Scrape()
amd_node(s, "mi-single", [("amd_com_gpu", 16)], partition_label="cpx_nps4")
amd_node(s, "mi-mixed", [("amd_com_spx_nps1", 1), ("amd_com_cpx_nps1", 8)])
pod(s, "vision", "a", "mi-single", [("amd_com_gpu", 2)])
pod(s, "llm", "b", "mi-single", [("amd_com_gpu", 8)])
pod(s, "vision", "c", "mi-mixed", [("amd_com_cpx_nps1", 3)])
pod(s, "llm", "d", "mi-mixed", [("amd_com_spx_nps1", 1)])
p = 5.0
vision = 2 / 8 + 3 / 8
llm = 8 / 8 + 1
case("amd_partitions", """AMD Instinct MI300X compute partitions, $5/GPU-hour. `mi-single` runs its GPUs
in CPX-NPS4 under the device plugin's single naming: `amd.com/gpu: 16` with the node labeller's
`amd.com/compute-memory-partition=cpx_nps4` is 2 GPUs of 8 partitions (f = 1/8), not 16 GPUs;
vision/a requests 2 (2/8 of a GPU) and llm/b 8 (one GPU's worth). `mi-mixed` uses mixed naming:
`amd.com/spx_nps1: 1` (a whole GPU) and `amd.com/cpx_nps1: 8` (one GPU of 8 partitions); vision/c
requests 3 `cpx_nps1` (3/8), llm/d the `spx_nps1` GPU. Proves partitions are units with their
fraction of the physical GPU, capacity is 4 GPUs, the 11/8 unheld GPUs are idle, allocated + idle
is 4 GPUs x $5 x 1/6 h, and with no exporter data the time is unmeasured.""", s,
     f"{WINDOW_ARGS} --by namespace --price-per-gpu-hour 5",
     expect(["namespace"], [row({"namespace": "llm"}, llm * H, llm * p * H, None, unmeasured=llm * H),
                            row({"namespace": "vision"}, vision * H, vision * p * H, None, unmeasured=vision * H)],
            idle_row(["namespace"], (4 - llm - vision) * H, (4 - llm - vision) * p * H),
            cost=4 * p * H))


def amd_gfx(s, gpu_id, uuid, percent, pod_labels=()):
    """rocm/device-metrics-exporter's gpu_gfx_activity (percent, unpartitioned GPUs): its mandatory
    pod, namespace and container labels are empty while no pod holds the GPU."""
    labels = [("card_model", "102-G30211-0C"), ("card_series", "AMD Instinct MI300X OAM"), ("card_vendor", "AMD"),
              ("gpu_compute_partition_type", "spx"), ("gpu_id", str(gpu_id)),
              ("gpu_memory_partition_type", "nps1"), ("gpu_partition_id", "0"), ("gpu_uuid", uuid),
              ("hostname", "mi-1"), ("serial_number", f"69240900{gpu_id}")]
    pl = dict(pod_labels)
    labels += [("container", pl.get("container", "")), ("namespace", pl.get("namespace", "")),
               ("pod", pl.get("pod", ""))]
    s.add("gpu_gfx_activity", labels, percent, help_="Graphics engine usage percentage")


s = Scrape()
amd_node(s, "mi-1", [("amd_com_gpu", 2)])
pod(s, "ml", "train-0", "mi-1", [("amd_com_gpu", 1)])
amd_gfx(s, 0, "ccff74a1-0000-1000-80e0-c6d49f5b0d86", 0)
amd_gfx(s, 1, "c3ff74a1-0000-0000-80ff-88426fc31c9e", 75, podlabels("ml", "train-0"))
p = 3.0
case("amd_exporter_utilization", """AMD utilization from rocm/device-metrics-exporter. Two unpartitioned
MI300X at $3/GPU-hour; ml/train-0 requests one `amd.com/gpu`. The exporter's `gpu_gfx_activity`
(percent) labels GPU 1 with the pod (75 %) and leaves GPU 0's pod labels empty (0 %). Proves the
percent is divided by 100 (u = 0.75, never 75), the pod labels pin the GPU the pod holds (not the
idle one), the free GPU is idle, and allocated + idle = 2 GPUs x $3 x 1/6 h.""", s,
     f"{WINDOW_ARGS} --by namespace --price-per-gpu-hour 3",
     expect(["namespace"], [row({"namespace": "ml"}, H, p * H, 0.75 * p * H)],
            idle_row(["namespace"], H, p * H), cost=2 * p * H))


def amd_busy(s, host, gpu_id, serial, mode, partition, xcc, percent, pod_labels=()):
    """rocm/device-metrics-exporter's gpu_gfx_busy_instantaneous on a partitioned GPU: each
    partition is a device of its own (gpu_id, gpu_partition_id) carrying its GPU's serial_number,
    one series per XCC of the partition (xcc_index), percent; the pod labels name the pod holding
    the partition."""
    labels = [("card_model", "102-G30211-0C"), ("gpu_compute_partition_type", mode), ("gpu_id", str(gpu_id)),
              ("gpu_memory_partition_type", "nps4" if mode == "cpx" else "nps1"),
              ("gpu_partition_id", str(partition)), ("hostname", host), ("serial_number", serial),
              ("xcc_index", str(xcc))]
    pl = dict(pod_labels)
    labels += [("container", pl.get("container", "")), ("namespace", pl.get("namespace", "")),
               ("pod", pl.get("pod", ""))]
    s.add("gpu_gfx_busy_instantaneous", labels, percent, help_="GFX busy of one XCC of a compute partition")


s = Scrape()
amd_node(s, "mi-cpx", [("amd_com_gpu", 8)], partition_label="cpx_nps4")
amd_node(s, "mi-dpx", [("amd_com_dpx_nps1", 2)])
pod(s, "vision", "a", "mi-cpx", [("amd_com_gpu", 2)])
pod(s, "llm", "b", "mi-cpx", [("amd_com_gpu", 1)])
pod(s, "llm", "c", "mi-dpx", [("amd_com_dpx_nps1", 1)])
# mi-cpx: one GPU in CPX, a partition per XCD and one XCC each; the exporter numbers partition p
# as gpu_id p. vision/a holds partitions 0 and 1, llm/b partition 2; 5 is free but busy.
cpx_busy = {0: (60, podlabels("vision", "a")), 1: (20, podlabels("vision", "a")),
            2: (90, podlabels("llm", "b")), 5: (30, ())}
for part in range(8):
    pct, labels = cpx_busy.get(part, (0, ()))
    amd_busy(s, "mi-cpx", part, "692409001", "cpx", part, 0, pct, labels)
# The primary partition's gpu_gfx_activity is the whole GPU's figure, not partition 0's: not read.
s.add("gpu_gfx_activity", [("card_model", "102-G30211-0C"), ("gpu_compute_partition_type", "cpx"),
                           ("gpu_id", "0"), ("gpu_partition_id", "0"), ("hostname", "mi-cpx"),
                           ("serial_number", "692409001"), ("container", ""), ("namespace", ""),
                           ("pod", "")], 25, help_="Graphics engine usage percentage")
# mi-dpx: one GPU in DPX, two partitions of four XCCs; llm/c holds partition 1, whose XCCs are
# 40/50/60/70 % busy (the partition 55 %); partition 0 is free.
for x in range(4):
    amd_busy(s, "mi-dpx", 0, "692409002", "dpx", 0, x, 10)
    amd_busy(s, "mi-dpx", 1, "692409002", "dpx", 1, x, 40 + 10 * x, podlabels("llm", "c"))
p = 4.0
u_a = (0.60 + 0.20) / 2  # vision/a's two partitions, each measured alone
u_b = 0.90
u_c = (0.40 + 0.50 + 0.60 + 0.70) / 4
held = 2 / 8 + 1 / 8 + 1 / 2
case("amd_partition_activity", """AMD partition activity from rocm/device-metrics-exporter's
`gpu_gfx_busy_instantaneous` (percent, per XCC of each compute partition), $4/GPU-hour. `mi-cpx`:
one MI300X in CPX-NPS4 (single naming, 8 partitions of f = 1/8); the exporter reports each partition
as a device with its GPU's `serial_number` and `gpu_partition_id`, and its pod labels pin vision/a to
partitions 0 and 1 (60 % and 20 %) and llm/b to partition 2 (90 %); free partition 5 is busy (30 %)
but idle; partition 0's `gpu_gfx_activity` (the whole GPU's figure) is not read. `mi-dpx`: one
MI300X in DPX (mixed naming `amd.com/dpx_nps1`, 2 partitions of f = 1/2), llm/c holds partition 1,
whose four XCCs are 40/50/60/70 % busy: its activity is their mean, 55 %. Proves each partition
unit gets its own activity (percent / 100), the XCCs of a partition are averaged, nothing is
unmeasured, and allocated + idle = 2 GPUs x $4 x 1/6 h.""", s,
     f"{WINDOW_ARGS} --by namespace,pod --price-per-gpu-hour 4",
     expect(["namespace", "pod"],
            [row({"namespace": "vision", "pod": "a"}, 2 / 8 * H, 2 / 8 * p * H, u_a * 2 / 8 * p * H),
             row({"namespace": "llm", "pod": "b"}, 1 / 8 * H, 1 / 8 * p * H, u_b * 1 / 8 * p * H),
             row({"namespace": "llm", "pod": "c"}, 1 / 2 * H, 1 / 2 * p * H, u_c * 1 / 2 * p * H)],
            idle_row(["namespace", "pod"], (2 - held) * H, (2 - held) * p * H), cost=2 * p * H))


# ----------------------------------------------------------------------------- Dynamic Resource Allocation
# The Kubernetes API's objects as `kubectl get nodes,pods,resourceslices,resourceclaims,deviceclasses
# -A -o json` lists them (resource.k8s.io/v1), read with `--kube-objects` as a snapshot taken at the
# window's end (`--kube-objects-at`): a pod the API shows running holds its claims until then.

KUBE_AT = "2026-10-01T00:10:00Z"
KUBE_ARGS = f"--kube-objects {{case}}/objects.json --kube-objects-at {KUBE_AT}"
H100 = "NVIDIA H100 80GB HBM3"


def iso(t):
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


def kube_list(items):
    return json.dumps({"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""},
                       "items": items}, indent=1) + "\n"


def api_node(name, instance_type):
    """A node whose status gives no GPU capacity: only DRA's ResourceSlices name its GPUs."""
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "uid": f"uid-node-{name}", "creationTimestamp": iso(T0 - 86400),
                         "labels": {"kubernetes.io/hostname": name,
                                    "node.kubernetes.io/instance-type": instance_type}},
            "status": {"capacity": {"cpu": "96", "memory": "1056Gi", "pods": "110"},
                       "allocatable": {"cpu": "95", "memory": "1000Gi", "pods": "110"}}}


def dra_node_labels(s, name, instance_type):
    """kube-state-metrics' series of a DRA node: labels, and no GPU capacity."""
    s.add("kube_node_labels", [("node", name), ("label_kubernetes_io_hostname", name),
                               ("label_node_kubernetes_io_instance_type", instance_type)], 1)


def nv_device(name, type_, product, uuid=None, parent=None, profile=None, memory="81559Mi",
              multiple=False):
    """A device of NVIDIA's DRA driver (gpu.nvidia.com) as its ResourceSlice publishes it."""
    attrs = {"type": {"string": type_}, "productName": {"string": product},
             "driverVersion": {"version": "570.124.6"}}
    for key, value in [("uuid", uuid), ("parentUUID", parent), ("profile", profile)]:
        if value:
            attrs[key] = {"string": value}
    d = {"name": name, "attributes": attrs, "capacity": {"memory": {"value": memory}}}
    if multiple:
        d["allowMultipleAllocations"] = True
    return d


def resource_slice(node_name, devices, generation=1, driver="gpu.nvidia.com"):
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
            "metadata": {"name": f"{node_name}-{driver}-g{generation}",
                         "creationTimestamp": iso(T0 - 3600 * (3 - generation))},
            "spec": {"driver": driver, "nodeName": node_name,
                     "pool": {"name": node_name, "generation": generation, "resourceSliceCount": 1},
                     "devices": devices}}


def resource_claim(ns, name, node_name, device, reserved_for, consumed=None, share_id=None,
                   device_class="gpu.nvidia.com"):
    """An allocated claim of one device of `node_name`'s pool, reserved for the pods named."""
    request = {"name": "gpu", "exactly": {"deviceClassName": device_class, "count": 1}}
    result = {"request": "gpu", "driver": "gpu.nvidia.com", "pool": node_name, "device": device}
    if consumed:
        request["exactly"]["capacity"] = {"requests": consumed}
        result["consumedCapacity"] = consumed
        result["shareID"] = share_id
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {"namespace": ns, "name": name, "uid": f"uid-claim-{ns}-{name}",
                         "creationTimestamp": iso(T0 - 7200)},
            "spec": {"devices": {"requests": [request]}},
            "status": {"allocation": {"devices": {"results": [result]}},
                       "reservedFor": [{"resource": "pods", "name": pod_name, "uid": f"uid-{ns}-{pod_name}"}
                                       for pod_name in reserved_for]}}


def api_pod(ns, name, node_name, scheduled=T0 - 7200, finished=None, claim=None, template=None,
            limits=None, extended_claim=None):
    """A pod whose container main uses pod claim "gpu": ResourceClaim `claim`, or the claim made
    from a ResourceClaimTemplate (`template`: its name and the generated claim's); or asks for
    extended resources (`limits`) that the scheduler's claim `extended_claim` serves. Running
    until the snapshot, or Succeeded with its container finished at `finished`."""
    container = {"name": "main", "image": "nvcr.io/nvidia/pytorch:25.01-py3",
                 "resources": {"requests": {"cpu": "2"}}}
    spec = {"nodeName": node_name, "containers": [container]}
    status = {"phase": "Running" if finished is None else "Succeeded", "startTime": iso(scheduled),
              "conditions": [{"type": "PodScheduled", "status": "True",
                              "lastTransitionTime": iso(scheduled)}]}
    if claim or template:
        ref = {"name": "gpu"}
        if claim:
            ref["resourceClaimName"] = claim
        else:
            ref["resourceClaimTemplateName"] = template[0]
            status["resourceClaimStatuses"] = [{"name": "gpu", "resourceClaimName": template[1]}]
        spec["resourceClaims"] = [ref]
        container["resources"]["claims"] = [{"name": "gpu"}]
    if limits:
        container["resources"]["limits"] = dict(limits)
        container["resources"]["requests"].update(limits)
    if extended_claim:
        status["extendedResourceClaimStatus"] = {
            "resourceClaimName": extended_claim,
            "requestMappings": [{"containerName": "main", "resourceName": r,
                                 "requestName": f"container-0-request-{i}"} for i, r in enumerate(limits)]}
    if finished is None:
        state = {"running": {"startedAt": iso(scheduled)}}
    else:
        state = {"terminated": {"exitCode": 0, "reason": "Completed", "startedAt": iso(scheduled),
                                "finishedAt": iso(finished)}}
    status["containerStatuses"] = [{"name": "main", "ready": finished is None, "restartCount": 0,
                                    "containerID": "containerd://" + container_id(f"{ns}/{name}"),
                                    "state": state}]
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"namespace": ns, "name": name, "uid": f"uid-{ns}-{name}",
                         "creationTimestamp": iso(scheduled)},
            "spec": spec, "status": status}


def device_class(name, expression, extended=None):
    spec = {"selectors": [{"cel": {"expression": expression}}]}
    if extended:
        spec["extendedResourceName"] = extended
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
            "metadata": {"name": name, "creationTimestamp": iso(T0 - 30 * 86400)}, "spec": spec}


def split_rows(p, gpus):
    """Rows of the holders of whole GPUs that nothing measures per pod. gpus: [(the GPU's activity
    per step, {dims: share per step})]. In each step the GPU's activity is split among the holders
    present in proportion to their shares, a = A x s / sum(s), u = min(1, a / s); a row is
    estimated where another holder shared its GPU in some step."""
    acc = {}
    for device, holders in gpus:
        for k, activity in enumerate(device):
            total = sum(shares[k] for shares in holders.values())
            for dims, shares in holders.items():
                s = shares[k]
                r = acc.setdefault(dims, [0.0, 0.0, False])
                if s == 0:
                    continue
                r[0] += s * STEP_H
                r[1] += s * p * STEP_H * min(1.0, activity * s / total / s)
                r[2] = r[2] or total > s * (1 + 1e-9)
    return [row(dict(dims), gh, gh * p, eff, estimated=est) for dims, (gh, eff, est) in acc.items()]


def pod_dims(ns, name):
    return (("namespace", ns), ("pod", name))


def dra_uuid(node_index, gpu):
    return f"GPU-d7a{node_index}{gpu:04d}-0000-4000-8000-00000000000{gpu}"


# Case dra_claims: node dra-1, five H100s that only NVIDIA's DRA driver names to the API.
s = Scrape()
dra_node_labels(s, "dra-1", "p5.48xlarge")
U = [dra_uuid(1, i) for i in range(6)]
mig_3g, mig_1g = "MIG-d7a10003-0000-4000-8000-000000000031", "MIG-d7a10003-0000-4000-8000-000000000039"
devices = [nv_device("gpu-0", "gpu", H100, uuid=U[0]),
           nv_device("gpu-1", "gpu", H100, uuid=U[1]),
           nv_device("gpu-2", "gpu", H100, uuid=U[2], multiple=True),
           nv_device("gpu-3-mig-3g40gb-1", "mig", H100, uuid=mig_3g, parent=U[3], profile="3g.40gb",
                     memory="40448Mi"),
           nv_device("gpu-3-mig-1g10gb-9", "mig", H100, uuid=mig_1g, parent=U[3], profile="1g.10gb",
                     memory="9856Mi"),
           nv_device("gpu-4", "gpu", H100, uuid=U[4])]
# The pool's previous generation, which the driver is replacing, still names a sixth GPU.
stale = [nv_device(f"gpu-{i}", "gpu", H100, uuid=U[i]) for i in (0, 1, 2, 4, 5)]
NB_SMALL, NB_LARGE = "20Gi", "40Gi"
objects = [api_node("dra-1", "p5.48xlarge"),
           resource_slice("dra-1", stale, generation=1),
           resource_slice("dra-1", devices, generation=2),
           resource_claim("ml", "train-gpu-x7k2p", "dra-1", "gpu-0", ["train"]),
           resource_claim("serving", "shared-gpu", "dra-1", "gpu-1", ["serve-a"]),
           resource_claim("notebooks", "nb-small-gpu", "dra-1", "gpu-2", ["nb-small"],
                          consumed={"memory": NB_SMALL}, share_id="3c1f8a52-6d0e-4b7a-9e21-5f4c8d2b1a01"),
           resource_claim("notebooks", "nb-large-gpu", "dra-1", "gpu-2", ["nb-large"],
                          consumed={"memory": NB_LARGE}, share_id="9b7e2d14-0c3a-4f58-a6e9-2d1b7c4f8e02"),
           resource_claim("ml", "infer-mig", "dra-1", "gpu-3-mig-3g40gb-1", ["infer"],
                          device_class="mig.nvidia.com"),
           api_pod("ml", "train", "dra-1", template=("one-gpu", "train-gpu-x7k2p")),
           api_pod("serving", "serve-a", "dra-1", scheduled=T0 - 3600, claim="shared-gpu"),
           api_pod("serving", "serve-b", "dra-1", scheduled=T0 - 3600, finished=T0 + 300, claim="shared-gpu"),
           api_pod("notebooks", "nb-small", "dra-1", claim="nb-small-gpu"),
           api_pod("notebooks", "nb-large", "dra-1", claim="nb-large-gpu"),
           api_pod("ml", "infer", "dra-1", claim="infer-mig")]
# kube-state-metrics shows the pods (CPU requests only: it has no series for claims); serve-b
# runs for the first five minutes.
for ns, name in [("ml", "train"), ("serving", "serve-a"), ("notebooks", "nb-small"),
                 ("notebooks", "nb-large"), ("ml", "infer")]:
    pod(s, ns, name, "dra-1", [])
pod(s, "serving", "serve-b", "dra-1", [], phase=lambda t: "Running" if t < T0 + 300 else "Succeeded")
ACT_TRAIN = 0.7
ACT_SHARED = [0.6] * 5 + [0.3] * 5
ACT_NB = 0.45
ACT_MIG_3G, ACT_MIG_1G = 0.5, 0.9
GR = "DCGM_FI_PROF_GR_ENGINE_ACTIVE"
dcgm(s, GR, "dra-1", 0, U[0], H100, ACT_TRAIN)
dcgm(s, GR, "dra-1", 1, U[1], H100, ACT_SHARED)
dcgm(s, GR, "dra-1", 2, U[2], H100, ACT_NB)
dcgm(s, GR, "dra-1", 3, U[3], H100, ACT_MIG_3G, gi=1, profile="3g.40gb")
dcgm(s, GR, "dra-1", 3, U[3], H100, ACT_MIG_1G, gi=9, profile="1g.10gb")
# gpu-4 has no dcgm-exporter series: DRA's slice is all that names it.
p = 4.0
gib, capacity_mib = 1024, 81559
nb_small, nb_large = 20 * gib / capacity_mib, 40 * gib / capacity_mib
mig_f = 3 / 7
ones = [1.0] * 10
rows = split_rows(p, [
    ([ACT_TRAIN] * 10, {pod_dims("ml", "train"): ones}),
    (ACT_SHARED, {pod_dims("serving", "serve-a"): [0.5] * 5 + [1.0] * 5,
                  pod_dims("serving", "serve-b"): [0.5] * 5 + [0.0] * 5}),
    ([ACT_NB] * 10, {pod_dims("notebooks", "nb-small"): [nb_small] * 10,
                     pod_dims("notebooks", "nb-large"): [nb_large] * 10})])
# A MIG instance's activity is its own: u = the instance's activity.
rows.append(row({"namespace": "ml", "pod": "infer"}, mig_f * H, mig_f * p * H, ACT_MIG_3G * mig_f * p * H,
                estimated=False))
idle_gpus = 1 + (1 - nb_small - nb_large) + (1 - mig_f)  # gpu-4, gpu-2's rest, gpu-3's other slices
node_cost = 5 * p * H
assert abs(sum(r["allocated_usd"] for r in rows) + idle_gpus * p * H - node_cost) < 1e-12
case("dra_claims", """Dynamic Resource Allocation claims (docs/k8s.md "Dynamic Resource Allocation"),
from the API's objects (`objects.json`, `--kube-objects`, a snapshot at the window's end) and
dcgm-exporter, at $4/GPU-hour. Node dra-1 has no `nvidia.com/gpu` capacity: its five H100s are
the devices of NVIDIA's DRA driver's ResourceSlice (generation 2; the pool's generation-1 slice,
which still names a sixth GPU, is stale). ml/train holds gpu-0 alone through a claim made from a
ResourceClaimTemplate (0.7 active). serving/serve-a and serve-b share claim shared-gpu on gpu-1;
serve-b finishes at T0+300 s (the claim's `reservedFor` no longer lists it), so each holds 1/2
for five minutes and serve-a all of it after; the GPU is 0.6 active, then 0.3. gpu-2 allows
multiple allocations: notebooks/nb-small and nb-large consume 20 GiB and 40 GiB of its
81559 MiB. gpu-3 is in MIG mode: ml/infer claims its static 3g.40gb device (3/7, 0.5 active);
its 1g.10gb device is unclaimed though 0.9 active. gpu-4 is unclaimed and has no dcgm-exporter
series. kube-state-metrics shows the pods with CPU requests only (it has no series for claims).
Proves: each claim holds its device's part (1, 1/2 then 1 as pods come and go, consumed/capacity
= 20480/81559 and 40960/81559, 3/7) while its pod runs; a GPU several holders share without
per-pod measurement has its activity split by share (rows `estimated`; serve-a and serve-b
u = 0.6 for the first five minutes, serve-a 0.3 after; the notebooks u = 0.45 / (61440/81559));
exclusive claims and the MIG device are measured exactly (not estimated); the unclaimed MIG
device, the rest of gpu-2 and gpu-4 are idle; and allocated + idle = 5 GPUs x $4 x 1/6 h.""", s,
     f"{WINDOW_ARGS} --by namespace,pod --price-per-gpu-hour 4 {KUBE_ARGS}",
     expect(["namespace", "pod"], rows, idle_row(["namespace", "pod"], idle_gpus * H, idle_gpus * p * H),
            cost=node_cost, totals={"oversubscribed": False}),
     extra_files={"objects.json": kube_list(objects)})

# Case dra_device_class_history: node dra-2, four A100s named by DRA; pods ask for devices by
# DeviceClass extended resources.
s = Scrape()
dra_node_labels(s, "dra-2", "p4de.24xlarge")
U = [dra_uuid(2, i) for i in range(4)]
objects = [api_node("dra-2", "p4de.24xlarge"),
           resource_slice("dra-2", [nv_device(f"gpu-{i}", "gpu", A100_80, uuid=U[i]) for i in range(4)]),
           device_class("gpu.nvidia.com",
                        "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'",
                        extended="nvidia.com/gpu"),
           device_class("mig.nvidia.com",
                        "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'mig'"),
           device_class("a100",
                        'device.driver == "gpu.nvidia.com" && device.attributes["gpu.nvidia.com"].type == "gpu" && '
                        'device.attributes["gpu.nvidia.com"].productName == "NVIDIA A100-SXM4-80GB"',
                        extended="example.com/a100"),
           resource_claim("ml", "live-extended-resources-q8n2v", "dra-2", "gpu-3", ["live"]),
           api_pod("ml", "live", "dra-2", limits={"nvidia.com/gpu": "1"},
                   extended_claim="live-extended-resources-q8n2v")]
pod(s, "ml", "live", "dra-2", [("nvidia_com_gpu", 1)])
# The API no longer shows these pods (nor the claims the scheduler made for them).
pod(s, "ml", "by-class", "dra-2", [("deviceclass_resource_kubernetes_io_gpu_nvidia_com", 1)],
    times=SCRAPES[:5])
pod(s, "research", "by-name", "dra-2", [("example_com_a100", 2)])
pod(s, "ml", "late", "dra-2", [("deviceclass_resource_kubernetes_io_a100", 1)], times=SCRAPES[7:])
ACT_POOL, ACT_LIVE = 0.4, 0.8
for i in range(3):
    dcgm(s, GR, "dra-2", i, U[i], A100_80, ACT_POOL)
dcgm(s, GR, "dra-2", 3, U[3], A100_80, ACT_LIVE)
p = 3.0
late_h = 180 / 3600.0
rows = [row({"namespace": "ml", "pod": "live"}, H, p * H, ACT_LIVE * p * H, estimated=False),
        row({"namespace": "ml", "pod": "by-class"}, H / 2, p * H / 2, ACT_POOL * p * H / 2, estimated=False),
        row({"namespace": "research", "pod": "by-name"}, 2 * H, 2 * p * H, ACT_POOL * 2 * p * H,
            estimated=False),
        row({"namespace": "ml", "pod": "late"}, late_h, p * late_h, ACT_POOL * p * late_h, estimated=False)]
idle_h = 4 * H - sum(r["gpu_hours"] for r in rows)  # one GPU over [T0+300, T0+420)
assert abs(idle_h - 120 / 3600.0) < 1e-12
case("dra_device_class_history", """DRA devices asked for by DeviceClass (docs/k8s.md "Device classes"),
at $3/GPU-hour. Node dra-2's four A100s are the devices of NVIDIA's DRA driver's ResourceSlice
(no `nvidia.com/gpu` capacity). `objects.json` holds the cluster's DeviceClasses: `gpu.nvidia.com`
(type gpu, extendedResourceName `nvidia.com/gpu`), `mig.nvidia.com`, and the cluster's own `a100`
(type gpu and a productName clause, extendedResourceName `example.com/a100`). ml/live, which the
API still shows, asks for `nvidia.com/gpu: 1`, served by the scheduler's claim on gpu-3
(`status.extendedResourceClaimStatus`; kube-state-metrics shows it as a plain `nvidia_com_gpu`
request). The API no longer shows ml/by-class (one device of class gpu.nvidia.com, as
`deviceclass.resource.kubernetes.io/gpu.nvidia.com`, for the first five minutes), research/by-name
(two by `example.com/a100`, all window) or ml/late (one by `deviceclass.resource.kubernetes.io/a100`
from T0+420 s): their kube-state-metrics series are all that is left. gpu-0..2 are 0.4 active, gpu-3
0.8. Proves: a forgotten pod's class request holds that many whole GPUs of the class while its
series run (0.5, 2 and 0.05 GPU-hours), drawn from the GPUs no claim holds (which ones is an estimate
of placement; each pod is alone on its GPUs, so its activity is not split and the row is not
`estimated`); the live pod's claim holds exactly gpu-3 (u = 0.8) and its series is not counted
again; one GPU is idle from T0+300 s to T0+420 s; and allocated + idle = 4 GPUs x $3 x 1/6 h.""", s,
     f"{WINDOW_ARGS} --by namespace,pod --price-per-gpu-hour 3 {KUBE_ARGS}",
     expect(["namespace", "pod"], rows, idle_row(["namespace", "pod"], idle_h, idle_h * p), cost=4 * p * H,
            totals={"oversubscribed": False}),
     extra_files={"objects.json": kube_list(objects)})

# Case dra_dynamic_mig: node dra-3, two A100-40GB under NVIDIA's driver's DynamicMIG.
A100_40_DRA = "NVIDIA A100-SXM4-40GB"
# The MIG placements DynamicMIG lists per GPU (profile, its id, starting slices), overlapping.
DYNMIG_PLACEMENTS = [("1g.5gb", 19, range(7)), ("2g.10gb", 14, (0, 2, 4)), ("3g.20gb", 9, (0, 4)),
                     ("4g.20gb", 5, (0,)), ("7g.40gb", 0, (0,))]


def dynamic_mig_devices(gpu, uuid):
    """A DynamicMIG GPU as the driver publishes it: the GPU, and every MIG device it could make
    (no UUID), each consuming the GPU's shared counters."""
    out = [nv_device(f"gpu-{gpu}", "gpu", A100_40_DRA, uuid=uuid, memory="40Gi")]
    for profile, profile_id, starts in DYNMIG_PLACEMENTS:
        slices, memory = int(profile[0]), profile.split(".")[1].upper().replace("GB", "Gi")
        for start in starts:
            d = nv_device(f"gpu-{gpu}-mig-{profile.replace('.', '')}-{profile_id}-{start}", "mig",
                          A100_40_DRA, parent=uuid, profile=profile, memory=memory)
            d["consumesCounters"] = [{"counterSet": f"gpu-{gpu}-counter-set",
                                      "counters": {"memory": {"value": memory},
                                                   "multiprocessors": {"value": str(14 * slices)}}}]
            out.append(d)
    return out


s = Scrape()
dra_node_labels(s, "dra-3", "p4d.24xlarge")
U = [dra_uuid(3, i) for i in range(2)]
slice_ = resource_slice("dra-3", dynamic_mig_devices(0, U[0]) + dynamic_mig_devices(1, U[1]))
slice_["spec"]["sharedCounters"] = [
    {"name": f"gpu-{g}-counter-set", "counters": {"memory": {"value": "40Gi"}, "multiprocessors": {"value": "98"}}}
    for g in range(2)]
objects = [api_node("dra-3", "p4d.24xlarge"), slice_,
           resource_claim("ml", "small-mig", "dra-3", "gpu-0-mig-1g5gb-19-0", ["small"],
                          device_class="mig.nvidia.com"),
           resource_claim("ml", "medium-mig", "dra-3", "gpu-0-mig-3g20gb-9-4", ["medium"],
                          device_class="mig.nvidia.com"),
           resource_claim("ml", "whole-gpu", "dra-3", "gpu-1", ["whole"]),
           api_pod("ml", "small", "dra-3", claim="small-mig"),
           api_pod("ml", "medium", "dra-3", scheduled=T0 + 300, claim="medium-mig"),
           api_pod("ml", "whole", "dra-3", claim="whole-gpu")]
pod(s, "ml", "small", "dra-3", [])
pod(s, "ml", "medium", "dra-3", [], times=SCRAPES[5:])
pod(s, "ml", "whole", "dra-3", [])
# dcgm-exporter watches whole GPUs (-d g): no MIG instance series.
ACT_DYN = [0.1] * 5 + [0.3] * 5
ACT_WHOLE = 0.9
dcgm(s, GR, "dra-3", 0, U[0], A100_40_DRA, ACT_DYN)
dcgm(s, GR, "dra-3", 1, U[1], A100_40_DRA, ACT_WHOLE)
p = 2.0
rows = split_rows(p, [
    (ACT_DYN, {pod_dims("ml", "small"): [1 / 7] * 10, pod_dims("ml", "medium"): [0.0] * 5 + [3 / 7] * 5}),
    ([ACT_WHOLE] * 10, {pod_dims("ml", "whole"): [1.0] * 10})])
idle_gpus = (6 / 7 + 3 / 7) / 2  # gpu-0: 6/7 for five minutes, 3/7 after
node_cost = 2 * p * H
assert abs(sum(r["allocated_usd"] for r in rows) + idle_gpus * p * H - node_cost) < 1e-12
case("dra_dynamic_mig", """NVIDIA's DRA driver with DynamicMIG (docs/k8s.md "DynamicMIG"), at $2/GPU-hour.
Node dra-3 has two A100-40GB; its ResourceSlice lists each GPU and all 14 MIG devices it could make
(1g.5gb x7, 2g.10gb x3, 3g.20gb x2, 4g.20gb, 7g.40gb: overlapping placements, no UUIDs, consuming
the GPU's shared counters), 30/7 of a GPU each if read as static MIG. ml/small claims a 1g.5gb
device of gpu-0 all window, ml/medium a 3g.20gb device of gpu-0 from T0+300 s, ml/whole claims
gpu-1 itself. dcgm-exporter watches whole GPUs (`-d g`): gpu-0 is 0.1 active for five minutes,
then 0.3; gpu-1 0.9. Proves: a DynamicMIG GPU is one whole unit of which a claimed MIG device
holds its profile's fraction (1/7, 3/7) while its pod runs, and a claim of the GPU all of it;
placements nobody claims cost nothing of their own (the node costs 2 GPUs, not 2 x 30/7); gpu-0's
activity is split among its claims by share (small u = 0.7 while alone, not estimated then; both
u = 0.525 and `estimated` once medium runs); gpu-1's claim is measured exactly (u = 0.9); gpu-0's
unclaimed 6/7 then 3/7 is idle; and allocated + idle = 2 GPUs x $2 x 1/6 h.""", s,
     f"{WINDOW_ARGS} --by namespace,pod --price-per-gpu-hour 2 {KUBE_ARGS}",
     expect(["namespace", "pod"], rows, idle_row(["namespace", "pod"], idle_gpus * H, idle_gpus * p * H),
            cost=node_cost, totals={"oversubscribed": False}),
     extra_files={"objects.json": kube_list(objects)})


def main():
    root = os.path.join(HERE, "cases")
    for name, readme, scrape, args, expected, openmetrics, extra in CASES:
        d = os.path.join(root, name)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(os.path.join(d, "input"))
        ext = "om" if openmetrics else "prom"
        with open(os.path.join(d, "input", f"scrape.{ext}"), "w") as f:
            f.write(scrape.render(openmetrics))
        for fname, content in extra.items():
            with open(os.path.join(d, fname), "w") as f:
                f.write(content)
        with open(os.path.join(d, "args"), "w") as f:
            f.write(args.replace("{case}", "${CASE}") + "\n")
        with open(os.path.join(d, "README.md"), "w") as f:
            f.write(f"# {name}\n\n{readme}\n\nInput: `input/`. Flags: `args`. Expected: `expected.json` "
                    "(computed by `../generate.py` from the model's formulas).\n")
        with open(os.path.join(d, "expected.json"), "w") as f:
            json.dump(expected, f, indent=2)
            f.write("\n")
    print(f"wrote {len(CASES)} cases")


if __name__ == "__main__":
    main()
