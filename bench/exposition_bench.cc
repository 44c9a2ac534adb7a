// Exposition parsing throughput on generated, realistic data: dcgm-exporter series for every
// GPU of a cluster plus kube-state-metrics pod and node series, with HELP/TYPE lines, several
// scrapes with millisecond timestamps, each family's samples together (so promtool accepts it).
//
//   exposition_bench                              Google Benchmark run (bytes/s per case)
//   exposition_bench --generate=FILE --mb=200     write a file of about that size and exit
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "ingest/exposition.h"

namespace gpucost {
namespace {

struct Family {
  const char* name;
  const char* type;
  const char* help;
  int value_kind;  // 0 small integer, 1 float "%.6f", 2 large %g, 3 ratio
};

constexpr Family kDcgm[] = {
    {"DCGM_FI_DEV_SM_CLOCK", "gauge", "SM clock frequency (in MHz).", 0},
    {"DCGM_FI_DEV_MEM_CLOCK", "gauge", "Memory clock frequency (in MHz).", 0},
    {"DCGM_FI_DEV_MEMORY_TEMP", "gauge", "Memory temperature (in C).", 0},
    {"DCGM_FI_DEV_GPU_TEMP", "gauge", "GPU temperature (in C).", 0},
    {"DCGM_FI_DEV_POWER_USAGE", "gauge", "Power draw (in W).", 1},
    {"DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "counter", "Total energy consumption since boot (in mJ).", 0},
    {"DCGM_FI_DEV_PCIE_REPLAY_COUNTER", "counter", "Total number of PCIe retries.", 0},
    {"DCGM_FI_DEV_GPU_UTIL", "gauge", "GPU utilization (in %).", 0},
    {"DCGM_FI_DEV_MEM_COPY_UTIL", "gauge", "Memory utilization (in %).", 0},
    {"DCGM_FI_DEV_ENC_UTIL", "gauge", "Encoder utilization (in %).", 0},
    {"DCGM_FI_DEV_DEC_UTIL", "gauge", "Decoder utilization (in %).", 0},
    {"DCGM_FI_DEV_XID_ERRORS", "gauge", "Value of the last XID error encountered.", 0},
    {"DCGM_FI_DEV_FB_FREE", "gauge", "Framebuffer memory free (in MiB).", 0},
    {"DCGM_FI_DEV_FB_USED", "gauge", "Framebuffer memory used (in MiB).", 0},
    {"DCGM_FI_PROF_GR_ENGINE_ACTIVE", "gauge", "Ratio of time the graphics engine is active.", 3},
    {"DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", "gauge", "Ratio of cycles the tensor (HMMA) pipe is active.", 3},
    {"DCGM_FI_PROF_DRAM_ACTIVE", "gauge", "Ratio of cycles the device memory interface is active.", 3},
    {"DCGM_FI_PROF_PCIE_TX_BYTES", "gauge", "The rate of data transmitted over the PCIe bus.", 2},
    {"DCGM_FI_PROF_PCIE_RX_BYTES", "gauge", "The rate of data received over the PCIe bus.", 2},
};

constexpr int kGpusPerNode = 8;
constexpr int kPodsPerNode = 12;
constexpr int kScrapes = 4;
constexpr int64_t kStartMs = 1790000000000;

std::string Uuid(int node, int gpu) {
  char b[64];
  std::snprintf(b, sizeof(b), "GPU-%08x-%04x-%04x-%04x-%012x", node * 2654435761u, gpu * 40503u & 0xffff,
                (node * 7 + gpu) & 0xffff, 0x8c65, node * 1000 + gpu);
  return b;
}

std::string PodName(int node, int pod) {
  char b[96];
  std::snprintf(b, sizeof(b), "train-job-%d-%d-worker-%05x-%x", node % 37, pod, node * 31 + pod, node);
  return b;
}

void AppendValue(std::string& out, int kind, uint64_t seed) {
  char b[48];
  switch (kind) {
    case 0: std::snprintf(b, sizeof(b), "%llu", static_cast<unsigned long long>(seed % 2000)); break;
    case 1: std::snprintf(b, sizeof(b), "%.6f", static_cast<double>(seed % 70000) / 100.0); break;
    case 2: std::snprintf(b, sizeof(b), "%g", static_cast<double>(seed % 900000) * 1234.5); break;
    default: std::snprintf(b, sizeof(b), "%.6f", static_cast<double>(seed % 1000) / 1000.0); break;
  }
  out += b;
}

void AppendTimestamp(std::string& out, int scrape) {
  out += ' ';
  out += std::to_string(kStartMs + scrape * 30000);
}

// One scrape's worth of a family for all nodes, `scrapes` times.
void GenerateDcgm(std::string& out, int nodes) {
  for (const Family& f : kDcgm) {
    out.append("# HELP ").append(f.name).append(" ").append(f.help).append("\n");
    out.append("# TYPE ").append(f.name).append(" ").append(f.type).append("\n");
    for (int s = 0; s < kScrapes; ++s) {
      for (int n = 0; n < nodes; ++n) {
        for (int g = 0; g < kGpusPerNode; ++g) {
          char pci[32];
          std::snprintf(pci, sizeof(pci), "00000000:%02X:00.0", 0x1a + g * 16);
          out.append(f.name).append("{gpu=\"").append(std::to_string(g)).append("\",UUID=\"");
          out.append(Uuid(n, g)).append("\",pci_bus_id=\"").append(pci).append("\",device=\"nvidia");
          out.append(std::to_string(g)).append("\",modelName=\"NVIDIA H100 80GB HBM3\",Hostname=\"gpu-node-");
          out.append(std::to_string(n)).append("\",DCGM_FI_DRIVER_VERSION=\"535.129.03\"");
          if (g % 4 != 3) {  // most GPUs are allocated to a pod
            out.append(",container=\"main\",namespace=\"team-").append(std::to_string(n % 23));
            out.append("\",pod=\"").append(PodName(n, g)).append("\"");
          }
          out.append("} ");
          AppendValue(out, f.value_kind, static_cast<uint64_t>(n) * 131 + static_cast<uint64_t>(g) * 17 + static_cast<uint64_t>(s));
          AppendTimestamp(out, s);
          out += '\n';
        }
      }
    }
  }
}

void GenerateKsm(std::string& out, int nodes) {
  auto pod_prefix = [](std::string& o, int n, int p) {
    o.append("{namespace=\"team-").append(std::to_string(n % 23)).append("\",pod=\"").append(PodName(n, p));
    o.append("\",uid=\"").append(Uuid(n + 7, p).substr(4)).append("\"");
  };
  struct Res {
    const char* resource;
    const char* unit;
    const char* value;
  };
  constexpr Res kResources[] = {{"cpu", "core", "0.5"}, {"memory", "byte", "1.6e+10"},
                                {"nvidia_com_gpu", "integer", "1"}};
  for (const char* fam : {"kube_pod_container_resource_requests", "kube_pod_container_resource_limits"}) {
    out.append("# HELP ").append(fam).append(" The number of requested resource by a container.\n");
    out.append("# TYPE ").append(fam).append(" gauge\n");
    for (int s = 0; s < kScrapes; ++s) {
      for (int n = 0; n < nodes; ++n) {
        for (int p = 0; p < kPodsPerNode; ++p) {
          for (const Res& r : kResources) {
            out.append(fam);
            pod_prefix(out, n, p);
            out.append(",container=\"main\",node=\"gpu-node-").append(std::to_string(n));
            out.append("\",resource=\"").append(r.resource).append("\",unit=\"").append(r.unit);
            out.append("\"} ").append(r.value);
            AppendTimestamp(out, s);
            out += '\n';
          }
        }
      }
    }
  }
  out.append("# HELP kube_pod_status_phase The pods current phase.\n# TYPE kube_pod_status_phase gauge\n");
  for (int s = 0; s < kScrapes; ++s) {
    for (int n = 0; n < nodes; ++n) {
      for (int p = 0; p < kPodsPerNode; ++p) {
        for (const char* phase : {"Pending", "Running", "Succeeded", "Failed", "Unknown"}) {
          out.append("kube_pod_status_phase");
          pod_prefix(out, n, p);
          out.append(",phase=\"").append(phase).append("\"} ").append(phase[0] == 'R' ? "1" : "0");
          AppendTimestamp(out, s);
          out += '\n';
        }
      }
    }
  }
  out.append("# HELP kube_pod_created Unix creation timestamp\n# TYPE kube_pod_created gauge\n");
  for (int s = 0; s < kScrapes; ++s) {
    for (int n = 0; n < nodes; ++n) {
      for (int p = 0; p < kPodsPerNode; ++p) {
        out.append("kube_pod_created");
        pod_prefix(out, n, p);
        out.append("} 1.789990417e+09");
        AppendTimestamp(out, s);
        out += '\n';
      }
    }
  }
  out.append("# HELP kube_node_status_capacity The capacity for different resources of a node.\n");
  out.append("# TYPE kube_node_status_capacity gauge\n");
  for (int s = 0; s < kScrapes; ++s) {
    for (int n = 0; n < nodes; ++n) {
      for (const Res& r : kResources) {
        out.append("kube_node_status_capacity{node=\"gpu-node-").append(std::to_string(n));
        out.append("\",resource=\"").append(r.resource).append("\",unit=\"").append(r.unit).append("\"} ");
        out.append(r.resource[0] == 'n' ? "8" : r.value);
        AppendTimestamp(out, s);
        out += '\n';
      }
    }
  }
}

std::string Generate(size_t target_bytes) {
  std::string one;
  GenerateDcgm(one, 1);
  GenerateKsm(one, 1);
  const size_t nodes = std::max<size_t>(1, target_bytes / one.size());
  std::string out;
  out.reserve(target_bytes + target_bytes / 8);
  GenerateDcgm(out, static_cast<int>(nodes));
  GenerateKsm(out, static_cast<int>(nodes));
  return out;
}

class CountingHandler final : public ExpositionHandler {
 public:
  void OnSample(const SampleView& s) override {
    ++samples;
    labels += s.labels.size();
    sum += s.value;
  }
  uint64_t samples = 0;
  uint64_t labels = 0;
  double sum = 0;
};

const std::string& Data() {
  static const std::string data = Generate(32u << 20);
  return data;
}

void BM_ParseExposition(benchmark::State& state) {
  const std::string& data = Data();
  ParseOptions options;
  options.format = static_cast<ExpositionFormat>(state.range(0));
  for (auto _ : state) {
    CountingHandler h;
    auto src = StringByteSource(data);  // one copy per run; memcpy-speed, small next to parsing
    auto stats = ParseExposition(*src, options, h);
    if (!stats.ok() || stats->errors != 0 || h.samples == 0) {
      state.SkipWithError("parse failed");
      break;
    }
    benchmark::DoNotOptimize(h.sum);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(data.size()));
}
BENCHMARK(BM_ParseExposition)->Arg(static_cast<int>(ExpositionFormat::kAuto))
    ->Arg(static_cast<int>(ExpositionFormat::kText))->Unit(benchmark::kMillisecond);

// One line of `state.range(0)` labels (a hostile or broken exporter): the duplicate-label check
// must stay near linear (it was quadratic: 200,000 labels took 20 s).
void BM_ParseManyLabels(benchmark::State& state) {
  std::string line = "m{";
  for (int64_t i = 0; i < state.range(0); ++i)
    line += (i ? ",l" : "l") + std::to_string(i) + "=\"v\"";
  line += "} 1\n";
  for (auto _ : state) {
    CountingHandler h;
    auto src = StringByteSource(line);
    auto stats = ParseExposition(*src, ParseOptions{}, h);
    if (!stats.ok() || h.labels != static_cast<uint64_t>(state.range(0))) {
      state.SkipWithError("parse failed");
      break;
    }
  }
  state.SetComplexityN(state.range(0));
}
BENCHMARK(BM_ParseManyLabels)
    ->RangeMultiplier(4)
    ->Range(1 << 10, 1 << 18)
    ->Complexity()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace gpucost

int main(int argc, char** argv) {
  std::string path;
  size_t mb = 200;
  std::vector<char*> rest;
  for (int i = 0; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a.starts_with("--generate=")) {
      path = std::string(a.substr(11));
    } else if (a.starts_with("--mb=")) {
      mb = std::stoul(std::string(a.substr(5)));
    } else {
      rest.push_back(argv[i]);
    }
  }
  if (!path.empty()) {
    const std::string data = gpucost::Generate(mb << 20);
    std::ofstream(path, std::ios::binary).write(data.data(), static_cast<std::streamsize>(data.size()));
    std::printf("wrote %s: %zu bytes\n", path.c_str(), data.size());
    return 0;
  }
  int n = static_cast<int>(rest.size());
  benchmark::Initialize(&n, rest.data());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
