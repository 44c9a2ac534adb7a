// One agent collection on a busy node: 8 GPUs (time-sliced), 200 GPU processes in 200 pods,
// every process with a new utilization sample each collection, through the fake NVML (loaded by
// dlopen as the real one is), a fake /proc tree and a fake kubelet on a unix socket. CPU time
// per collection is the process's (the fakes' share included, so it is an upper bound); RSS is
// the whole benchmark process's peak. One untimed collection first checks the answer: 200
// holders measured, 200 assignments, 8 units. docs/perf.md records the numbers and the command.
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <cstdio>
#include <string>

#include "agent/agent.h"
#include "agent/fake_kubelet.h"
#include "agent/fake_nvml.h"
#include "agent/fake_proc.h"

namespace gpucost::agent {
namespace {

constexpr int kGpus = 8;
constexpr int kProcesses = 200;
constexpr int kFrames = 400;  // collections with fresh samples (the bench runs fewer)

std::string Uuid(int g) { return "GPU-00000000-0000-4000-8000-00000000000" + std::to_string(g); }
std::string PodUid(int p) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%08x-0000-4000-8000-%012x", p, p);
  return buf;
}

std::string Script() {
  std::string s;
  for (int f = 0; f < kFrames; ++f) {
    if (f > 0) s += "frame\n";
    for (int g = 0; g < kGpus; ++g) {
      s += "gpu " + std::to_string(g) + " uuid=" + Uuid(g) +
           " name=\"NVIDIA H100 80GB HBM3\" util=90 gpm=1 gpm_util=" + std::to_string(50 + f % 40) +
           " mem_total=85520809984 mem_used=40000000000 energy=" + std::to_string(1000000 + f) + "\n";
    }
    for (int p = 0; p < kProcesses; ++p) {
      const std::string gpu = std::to_string(p % kGpus);
      const std::string pid = std::to_string(10000 + p);
      s += "proc " + gpu + " pid=" + pid + " mem=100000000\n";
      s += "sample " + gpu + " pid=" + pid + " ts=" + std::to_string((f + 1) * 1000000) +
           " sm=" + std::to_string((p * 7 + f) % 30) + "\n";
    }
  }
  return s;
}

struct Node {
  testing_util::FakeProc proc;
  std::string socket;
  std::unique_ptr<testing_util::FakeKubelet> kubelet;

  Node() {
    testing_util::FakeKubelet::Script script;
    for (int p = 0; p < kProcesses; ++p) {
      const std::string uid = PodUid(p);
      std::string underscored = uid;
      for (char& c : underscored) c = c == '-' ? '_' : c;
      char cid[65];
      std::snprintf(cid, sizeof cid, "%064x", p + 1);
      proc.Add(static_cast<uint32_t>(10000 + p),
               "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" + underscored +
                   ".slice/cri-containerd-" + cid + ".scope\n",
               1000 + p);
      auto* pod = script.list.add_pod_resources();
      pod->set_name("pod-" + std::to_string(p));
      pod->set_namespace_("team-" + std::to_string(p % 10));
      auto* c = pod->add_containers();
      c->set_name("main");
      auto* d = c->add_devices();
      d->set_resource_name("nvidia.com/gpu");
      d->add_device_ids(Uuid(p % kGpus) + "::" + std::to_string(p / kGpus));
    }
    socket = (proc.root() / "kubelet.sock").string();
    kubelet = testing_util::FakeKubelet::Start(socket, std::move(script));
  }
};

void BM_AgentCollection(benchmark::State& state) {
  testing::UseFakeNvmlScript("bench", Script());
  Node node;
  AgentOptions o;
  o.node_name = "bench-node";
  o.nvml_library = testing::kFakeNvmlPath;
  o.pod_resources_socket = node.socket;
  o.proc_root = node.proc.root().string();
  Agent agent(o);
  agent.Collect();  // checked, untimed
  const AgentSnapshot s = agent.Snapshot();
  size_t measured = 0;
  for (const HolderActivity& h : s.holders) measured += h.activity ? 1 : 0;
  if (s.units.size() != kGpus || s.holders.size() != kProcesses || measured != kProcesses ||
      s.assignments.size() != kProcesses) {
    state.SkipWithError("wrong snapshot: units, holders, measured holders or assignments");
    return;
  }
  size_t bytes = 0;
  for (auto _ : state) {
    agent.Collect();
    bytes += agent.Metrics().size();
  }
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  state.counters["rss_mb"] = static_cast<double>(usage.ru_maxrss) / 1024.0;
  state.counters["metrics_bytes"] = static_cast<double>(bytes) / static_cast<double>(state.iterations());
}
BENCHMARK(BM_AgentCollection)->MeasureProcessCPUTime()->Unit(benchmark::kMillisecond)->Iterations(300);

}  // namespace
}  // namespace gpucost::agent

BENCHMARK_MAIN();
