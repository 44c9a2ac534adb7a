#!/usr/bin/env python3
"""Writes this golden case (input/, sacct.txt, args, README.md, expected.json) with the helpers of
../../generate.py, which writes the other cases. Expected values come from the attribution model's
formulas (docs/engine.md), independently of the C++ code. Run it after changing the case."""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))
import generate as g  # noqa: E402  (the shared helpers; importing writes nothing)

NAME = "slurm_agent_jobs"
A100_80 = g.A100_80
S = g.SCRAPES  # one sample a minute, T0 .. T0+540
H = g.H        # the window, 1/6 h


def uuid(node, gpu):
    return f"GPU-a9e{int(node[-1]):05d}-0000-4000-8000-{gpu:012d}"


def agent_job(s, node_name, gpu_uuid, job, value, times):
    """A Slurm job's part of a GPU's activity: the agent found the job in its processes' cgroups."""
    s.add("gpucost_agent_holder_activity_ratio",
          [("node", node_name), ("gpu_uuid", gpu_uuid), ("slurm_job", job)], value, times=times)


s = g.Scrape()
# gpu01: GPU 0 at 0.6, GPU 1 at 0.2 (GPM), every process measured. Job 801 runs on GPU 1 at
# 0.15 for five minutes, then has no GPU process for five (measured idle). Array task 802_3
# (JobIDRaw 805) runs on GPU 0 at 0.5 for the first five minutes; the agent names it by the
# cgroup's job_805.
# gpu02: GPU 0 at 0.9 runs het-job component 810+0 (JobIDRaw 810) at 0.9; GPU 1 at 0.3 runs job 812,
# which has no series of its own, and a job 999 sacct does not know (0.3).
for n in ("gpu01", "gpu02"):
    for gpu in range(2):
        g.agent_gpu(s, n, uuid(n, gpu), gpu, A100_80)
g.agent_unit(s, "gpu01", uuid("gpu01", 0), 0.6)
g.agent_unit(s, "gpu01", uuid("gpu01", 1), 0.2)
g.agent_unit(s, "gpu02", uuid("gpu02", 0), 0.9)
g.agent_unit(s, "gpu02", uuid("gpu02", 1), 0.3)
agent_job(s, "gpu01", uuid("gpu01", 1), "801", 0.15, S[:5])
agent_job(s, "gpu01", uuid("gpu01", 0), "805", 0.5, S[:5])
agent_job(s, "gpu02", uuid("gpu02", 0), "810", 0.9, S)
agent_job(s, "gpu02", uuid("gpu02", 1), "999", 0.3, S)

SACCT = """JobID|JobIDRaw|Cluster|User|Account|Partition|QOS|JobName|AllocTRES|Start|End|Elapsed|State|NodeList|NTasks|TRESUsageInTot
801|801|hpc1|alice|physics|gpu|normal|train|billing=8,cpu=8,gres/gpu:a100=1,gres/gpu=1,mem=64G,node=1|2026-10-01T00:00:00|2026-10-01T00:10:00|00:10:00|COMPLETED|gpu01||
801.batch|801.batch|hpc1||physics||||cpu=8,gres/gpu:a100=1,gres/gpu=1,mem=64G,node=1|2026-10-01T00:00:00|2026-10-01T00:10:00|00:10:00|COMPLETED|gpu01|1|cpu=00:09:10,gres/gpumem=20480M,gres/gpuutil=70,mem=2000000K
802_3|805|hpc1|bob|chemistry|gpu|normal|sweep|billing=6,cpu=4,gres/gpu=1,mem=32G,node=1|2026-10-01T00:00:00|2026-10-01T00:05:00|00:05:00|COMPLETED|gpu01||
810+0|810|hpc1|carol|bio|gpu|normal|pipeline|billing=6,cpu=4,gres/gpu=1,mem=32G,node=1|2026-10-01T00:00:00|Unknown|00:12:00|RUNNING|gpu02||
810+1|811|hpc1|carol|bio|gpu|normal|pipeline|billing=2,cpu=4,mem=32G,node=1|2026-10-01T00:00:00|Unknown|00:12:00|RUNNING|gpu03||
812|812|hpc1|dave|astro|gpu|normal|sim|billing=6,cpu=4,gres/gpu=1,mem=32G,node=1|2026-09-30T23:55:00|2026-10-01T00:15:00|00:20:00|COMPLETED|gpu02||
"""

p = 4.0
rows = [
    # 801: pinned to GPU 1 (drawn from the pool it would get GPU 0 at 0.6); its own 0.15 for
    # five minutes and measured 0 for five, not GPU 1's 0.2 nor its step's gres/gpuutil 70.
    g.row({"team": "physics"}, H, p * H, p * (H / 2 * 0.15 + H / 2 * 0.0), estimated=False),
    # 802_3 by its JobIDRaw: GPU 0, its own 0.5 (GPU 0 reads 0.6).
    g.row({"team": "chemistry"}, H / 2, p * H / 2, p * H / 2 * 0.5, estimated=False),
    # 810+0 by its JobIDRaw (also the het job's id): GPU 0 of gpu02 at 0.9.
    g.row({"team": "bio"}, H, p * H, p * H * 0.9, estimated=False),
    # 812 has no series: it draws gpu02's free GPU 1 and gets its activity, 0.3.
    g.row({"team": "astro"}, H, p * H, p * H * 0.3, estimated=False),
]
# gpu01's GPU 0 is free for the last five minutes; gpu02's GPUs are held all window. 810+1 holds
# no GPU (CPU-only component), so gpu03 is not a GPU node.
doc = g.expect(["team"], rows, g.idle_row(["team"], H / 2, p * H / 2))
assert abs(doc["totals"]["cost_usd"] - 4 * p * H) < 1e-12  # 4 GPUs x $4 x 1/6 h
README = """A Slurm cluster whose GPUs are measured by the gpucost node agent and no dcgm-exporter. The
agent finds each GPU process's Slurm job in its cgroup (`job_<id>`) and reports its part of the GPU's
activity with `slurm_job="<id>"`. gpu01 (GPUs at 0.6 and 0.2): job 801 runs on GPU 1 at 0.15 for
five minutes and has no GPU process for the next five; array task 802_3 (JobIDRaw 805, labelled
805) runs on GPU 0 at 0.5 for five minutes. gpu02 (GPUs at 0.9 and 0.3): het-job component 810+0
(JobIDRaw 810) runs on GPU 0 at 0.9; job 812 has no series; a series names job 999, which sacct
does not know (a warning names it and node gpu02; it changes no row). Proves: the agent's nodes
are taken over by the Slurm nodes of the same name (2 real GPUs each); each job is pinned to the
GPU the agent saw it on (801 drawn from the pool would get GPU 0 at 0.6) and its utilization is its
own measured activity, not its GPU's: 801 is 0.15 x 5 min + measured idle 0 x 5 min (not unmeasured,
not GPU 1's 0.2, not its batch step's gres/gpuutil 70); 802_3 is 0.5 (GPU 0 reads 0.6); a job with
no series (812) keeps today's behaviour, its GPU's activity (0.3); rows are measured, not
estimated. Idle is gpu01's GPU 0 for its last five minutes, and allocated + idle = 4 GPUs x $4 x
1/6 h."""
ARGS = (f"{g.WINDOW_ARGS} --by team --price-per-gpu-hour 4 --slurm-sacct ${{CASE}}/sacct.txt "
        "--slurm-time-zone UTC --slurm-gpus-per-node 2")


def main():
    os.makedirs(os.path.join(HERE, "input"), exist_ok=True)
    with open(os.path.join(HERE, "input", "scrape.prom"), "w") as f:
        f.write(s.render(False))
    with open(os.path.join(HERE, "sacct.txt"), "w") as f:
        f.write(SACCT)
    with open(os.path.join(HERE, "args"), "w") as f:
        f.write(ARGS + "\n")
    with open(os.path.join(HERE, "README.md"), "w") as f:
        f.write(f"# {NAME}\n\n{README}\n\nInput: `input/`. Flags: `args`. Expected: `expected.json` "
                "(computed by `generate.py` beside it from the model's formulas, with the helpers "
                "of `../../generate.py`).\n")
    with open(os.path.join(HERE, "expected.json"), "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")


if __name__ == "__main__":
    main()
