// A fake NVML: a shared library exporting the NVML symbols the agent uses, with NVML's names and
// ABI, driven by a script (GPUCOST_FAKE_NVML_SCRIPT, read by nvmlInit_v2). The agent loads it
// through its real dlopen path. Script lines (# comments):
//
//   frame                                   start the next frame (a copy of the last one, without
//                                           its processes); nvmlDeviceGetCount_v2 moves to the
//                                           next frame, so collection n sees frame n (the last
//                                           frame repeats)
//   gpu <i> uuid=.. name="..." util=<pct> mem_total=<B> mem_used=<B> energy=<mJ> mig=0|1
//           gpm=0|1 gpm_util=<pct> minor=<n> a GPU (fields merge into the previous frame's);
//                                           minor defaults to the index
//   mig <i> gi=<n> ci=<n> uuid=.. name="..." gpm_util=<pct>
//   proc <i> pid=<n> mem=<B>|na [gi=<n>]    a running compute process (in MIG instance gi)
//   sample <i> pid=<n> ts=<us> sm=<pct>     a process-utilization sample in the driver's buffer
//                                           from this frame on (returned while ts > lastSeen);
//                                           a GPU's samples must come in rising ts order
//   unsupported <i>|* <function>            the call answers NVML_ERROR_NOT_SUPPORTED
//   fail <i>|* <function> <code>            the call answers <code>
//
// Handles encode indexes: GPU i is (i+1)<<8, its MIG device j is ((i+1)<<8)|(j+1).
#include <dlfcn.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace {

using Return = int;
constexpr Return kSuccess = 0, kUninitialized = 1, kInvalidArgument = 2, kNotSupported = 3,
                 kNotFound = 6, kInsufficientSize = 7;

struct Mig {
  unsigned gi = 0, ci = 0;
  std::string uuid, name;
  double gpm_util = 0;
};
struct Proc {
  unsigned pid = 0;
  unsigned long long mem = ~0ULL;
  int gi = -1;
};
struct Gpu {
  std::string uuid, name = "NVIDIA Fake GPU";
  unsigned util = 0, mig = 0, gpm = 0;
  int minor = -1;
  double gpm_util = 0;
  unsigned long long mem_total = 0, mem_used = 0, energy = 0;
  std::vector<Mig> migs;
  std::vector<Proc> procs;
};
struct Sample {
  unsigned gpu = 0, pid = 0, sm = 0;
  unsigned long long ts = 0;
  size_t frame = 0;
};
struct Frame {
  std::map<unsigned, Gpu> gpus;
  std::map<std::pair<std::string, std::string>, Return> failures;  // (gpu or *, fn) -> code
};

struct State {
  bool initialised = false;
  std::vector<Frame> frames;
  std::map<unsigned, std::vector<Sample>> samples_by_gpu;  // in script order, ts rising
  size_t count_calls = 0;
  size_t frame() const { return count_calls == 0 ? 0 : std::min(count_calls - 1, frames.size() - 1); }
  const Frame& current() const { return frames[frame()]; }
};

State& S() {
  static State s;
  return s;
}

std::map<std::string, std::string> Fields(std::istringstream& in) {
  std::map<std::string, std::string> out;
  std::string rest;
  std::getline(in, rest);
  size_t i = 0;
  while (i < rest.size()) {
    while (i < rest.size() && rest[i] == ' ') ++i;
    const size_t eq = rest.find('=', i);
    if (eq == std::string::npos) break;
    const std::string key = rest.substr(i, eq - i);
    std::string value;
    i = eq + 1;
    if (i < rest.size() && rest[i] == '"') {
      const size_t close = rest.find('"', i + 1);
      value = rest.substr(i + 1, close - i - 1);
      i = close == std::string::npos ? rest.size() : close + 1;
    } else {
      const size_t end = std::min(rest.find(' ', i), rest.size());
      value = rest.substr(i, end - i);
      i = end;
    }
    out[key] = value;
  }
  return out;
}

// Each nvmlInit_v2 starts over from the script, so a process can load several scripts.
void Load() {
  State& s = S();
  s = State{};
  s.frames.emplace_back();
  const char* path = std::getenv("GPUCOST_FAKE_NVML_SCRIPT");
  if (path == nullptr) return;
  std::ifstream file(path);
  std::string line;
  while (std::getline(file, line)) {
    std::istringstream in(line);
    std::string verb;
    in >> verb;
    if (verb.empty() || verb[0] == '#') continue;
    Frame& f = s.frames.back();
    if (verb == "frame") {
      Frame next = f;
      for (auto& [i, g] : next.gpus) g.procs.clear();
      s.frames.push_back(std::move(next));
      continue;
    }
    std::string target;
    in >> target;
    if (verb == "unsupported" || verb == "fail") {
      std::string fn;
      Return code = kNotSupported;
      in >> fn;
      if (verb == "fail") in >> code;
      f.failures[{target, fn}] = code;
      continue;
    }
    const unsigned gi = static_cast<unsigned>(std::stoul(target));
    auto kv = Fields(in);
    auto num = [&](const char* k, unsigned long long d) {
      return kv.contains(k) ? std::stoull(kv[k]) : d;
    };
    Gpu& g = f.gpus[gi];
    if (verb == "gpu") {
      if (kv.contains("uuid")) g.uuid = kv["uuid"];
      if (kv.contains("name")) g.name = kv["name"];
      g.util = static_cast<unsigned>(num("util", g.util));
      g.mig = static_cast<unsigned>(num("mig", g.mig));
      g.gpm = static_cast<unsigned>(num("gpm", g.gpm));
      if (kv.contains("minor")) g.minor = static_cast<int>(num("minor", 0));
      if (kv.contains("gpm_util")) g.gpm_util = std::stod(kv["gpm_util"]);
      g.mem_total = num("mem_total", g.mem_total);
      g.mem_used = num("mem_used", g.mem_used);
      g.energy = num("energy", g.energy);
    } else if (verb == "mig") {
      Mig m;
      m.gi = static_cast<unsigned>(num("gi", 0));
      m.ci = static_cast<unsigned>(num("ci", 0));
      auto it = std::find_if(g.migs.begin(), g.migs.end(),
                             [&](const Mig& x) { return x.gi == m.gi && x.ci == m.ci; });
      if (it == g.migs.end()) it = g.migs.insert(g.migs.end(), m);
      if (kv.contains("uuid")) it->uuid = kv["uuid"];
      if (kv.contains("name")) it->name = kv["name"];
      if (kv.contains("gpm_util")) it->gpm_util = std::stod(kv["gpm_util"]);
    } else if (verb == "proc") {
      Proc p;
      p.pid = static_cast<unsigned>(num("pid", 0));
      p.mem = kv["mem"] == "na" ? ~0ULL : num("mem", 0);
      p.gi = kv.contains("gi") ? static_cast<int>(num("gi", 0)) : -1;
      g.procs.push_back(p);
    } else if (verb == "sample") {
      Sample smp;
      smp.gpu = gi;
      smp.pid = static_cast<unsigned>(num("pid", 0));
      smp.ts = num("ts", 0);
      smp.sm = static_cast<unsigned>(num("sm", 0));
      smp.frame = s.frames.size() - 1;
      s.samples_by_gpu[gi].push_back(smp);
    }
  }
}

// Decoded handle: gpu index and MIG slot (-1 for the GPU itself); nullptr if invalid.
struct Handle {
  const Gpu* gpu = nullptr;
  unsigned index = 0;
  const Mig* mig = nullptr;
};
Handle Decode(const void* h) {
  const auto v = reinterpret_cast<uintptr_t>(h);
  Handle out;
  const unsigned gi = static_cast<unsigned>(v >> 8);
  const unsigned slot = static_cast<unsigned>(v & 0xff);
  if (gi == 0) return out;
  const auto& gpus = S().current().gpus;
  auto it = gpus.find(gi - 1);
  if (it == gpus.end()) return out;
  out.gpu = &it->second;
  out.index = gi - 1;
  if (slot != 0) {
    if (slot > it->second.migs.size()) return Handle{};
    out.mig = &it->second.migs[slot - 1];
  }
  return out;
}

// The scripted failure for a function on a GPU, or success.
Return Scripted(const Handle& h, const char* fn) {
  const auto& failures = S().current().failures;
  auto it = failures.find({std::to_string(h.index), fn});
  if (it == failures.end()) it = failures.find({"*", fn});
  return it == failures.end() ? kSuccess : it->second;
}

#define FAKE_CHECK(h, fn)                                 \
  if (!S().initialised) return kUninitialized;            \
  if ((h).gpu == nullptr) return kInvalidArgument;        \
  if (Return scripted = Scripted(h, fn); scripted != 0) return scripted

Return CopyString(const std::string& s, char* buf, unsigned len) {
  if (buf == nullptr || len <= s.size()) return kInsufficientSize;
  std::memcpy(buf, s.c_str(), s.size() + 1);
  return kSuccess;
}

struct GpmSampleImpl {
  const Gpu* gpu = nullptr;
  int gi = -1;
  size_t frame = 0;
};

}  // namespace

extern "C" {

struct FakeUtil {
  unsigned gpu, memory;
};
struct FakeMemory {
  unsigned long long total, free, used;
};
struct FakeProcUtil {
  unsigned pid;
  unsigned long long ts;
  unsigned sm, mem, enc, dec;
};
struct FakeProcInfo {
  unsigned pid;
  unsigned long long mem;
  unsigned gi, ci;
};
struct FakeGpmSupport {
  unsigned version, supported;
};
struct FakeGpmMetric {
  unsigned id;
  Return ret;
  double value;
  char* names[3];
};
struct FakeGpmGet {
  unsigned version, num;
  void* s1;
  void* s2;
  FakeGpmMetric metrics[1];
};

__attribute__((visibility("default"))) Return nvmlInit_v2() {
  Load();
  S().initialised = true;
  return kSuccess;
}
__attribute__((visibility("default"))) Return nvmlShutdown() {
  S().initialised = false;
  return kSuccess;
}
__attribute__((visibility("default"))) const char* nvmlErrorString(Return r) {
  switch (r) {
    case 0: return "Success";
    case 1: return "Uninitialized";
    case 2: return "Invalid Argument";
    case 3: return "Not Supported";
    case 4: return "Insufficient Permissions";
    case 6: return "Not Found";
    case 7: return "Insufficient Size";
    case 15: return "GPU is lost";
    default: return "Unknown Error";
  }
}
__attribute__((visibility("default"))) Return nvmlSystemGetDriverVersion(char* buf, unsigned len) {
  return CopyString("999.99-fake", buf, len);
}
__attribute__((visibility("default"))) Return nvmlDeviceGetCount_v2(unsigned* count) {
  if (!S().initialised) return kUninitialized;
  ++S().count_calls;
  *count = static_cast<unsigned>(S().current().gpus.size());
  return kSuccess;
}
__attribute__((visibility("default"))) Return nvmlDeviceGetHandleByIndex_v2(unsigned i, void** h) {
  if (!S().initialised) return kUninitialized;
  if (!S().current().gpus.contains(i)) return kInvalidArgument;
  *h = reinterpret_cast<void*>(static_cast<uintptr_t>(i + 1) << 8);
  return kSuccess;
}
__attribute__((visibility("default"))) Return nvmlDeviceGetUUID(void* dev, char* buf, unsigned len) {
  const Handle h = Decode(dev);
  FAKE_CHECK(h, "nvmlDeviceGetUUID");
  return CopyString(h.mig != nullptr ? h.mig->uuid : h.gpu->uuid, buf, len);
}
__attribute__((visibility("default"))) Return nvmlDeviceGetName(void* dev, char* buf, unsigned len) {
  const Handle h = Decode(dev);
  FAKE_CHECK(h, "nvmlDeviceGetName");
  return CopyString(h.mig != nullptr ? h.mig->name : h.gpu->name, buf, len);
}
// The device node's minor number: `minor=` of the gpu line, else its index.
__attribute__((visibility("default"))) Return nvmlDeviceGetMinorNumber(void* dev, unsigned* minor) {
  const Handle h = Decode(dev);
  FAKE_CHECK(h, "nvmlDeviceGetMinorNumber");
  *minor = h.gpu->minor >= 0 ? static_cast<unsigned>(h.gpu->minor) : h.index;
  return kSuccess;
}
__attribute__((visibility("default"))) Return nvmlDeviceGetIndex(void* dev, unsigned* i) {
  const Handle h = Decode(dev);
  FAKE_CHECK(h, "nvmlDeviceGetIndex");
  *i = h.index;
  return kSuccess;
}
__attribute__((visibility("default"))) Return nvmlDeviceGetMigMode(void* dev, unsigned* cur,
                                                                   unsigned* pending) {
  const Handle h = Decode(dev);
  FAKE_CHECK(h, "nvmlDeviceGetMigMode");
  *cur = *pending = h.gpu->mig;
  return kSuccess;
}
__attribute__((visibility("default"))) Return nvmlDeviceGetMaxMigDeviceCount(void* dev,
                                                                             unsigned* count) {
  const Handle h = Decode(dev);
  FAKE_CHECK(h, "nvmlDeviceGetMaxMigDeviceCount");
  *count = 7;
  return kSuccess;
}
__attribute__((visibility("default"))) Return nvmlDeviceGetMigDeviceHandleByIndex(void* dev,
                                                                                  unsigned i,
                                                                                  void** mig) {
  const Handle h = Decode(dev);
  FAKE_CHECK(h, "nvmlDeviceGetMigDeviceHandleByIndex");
  if (h.gpu->mig == 0) return kInvalidArgument;
  if (i >= h.gpu->migs.size()) return kNotFound;
  *mig = reinterpret_cast<void*>((static_cast<uintptr_t>(h.index + 1) << 8) | (i + 1));
  return kSuccess;
}
__attribute__((visibility("default"))) Return nvmlDeviceGetGpuInstanceId(void* dev, unsigned* id) {
  const Handle h = Decode(dev);
  FAKE_CHECK(h, "nvmlDeviceGetGpuInstanceId");
  if (h.mig == nullptr) return kInvalidArgument;
  *id = h.mig->gi;
  return kSuccess;
}
__attribute__((visibility("default"))) Return nvmlDeviceGetComputeInstanceId(void* dev,
                                                                             unsigned* id) {
  const Handle h = Decode(dev);
  FAKE_CHECK(h, "nvmlDeviceGetComputeInstanceId");
  if (h.mig == nullptr) return kInvalidArgument;
  *id = h.mig->ci;
  return kSuccess;
}
__attribute__((visibility("default"))) Return nvmlDeviceGetUtilizationRates(void* dev,
                                                                            FakeUtil* u) {
  const Handle h = Decode(dev);
  FAKE_CHECK(h, "nvmlDeviceGetUtilizationRates");
  if (h.mig != nullptr || h.gpu->mig != 0) return kNotSupported;
  u->gpu = h.gpu->util;
  u->memory = 0;
  return kSuccess;
}
__attribute__((visibility("default"))) Return nvmlDeviceGetMemoryInfo(void* dev, FakeMemory* m) {
  const Handle h = Decode(dev);
  FAKE_CHECK(h, "nvmlDeviceGetMemoryInfo");
  m->total = h.gpu->mem_total;
  m->used = h.gpu->mem_used;
  m->free = m->total - std::min(m->total, m->used);
  return kSuccess;
}
__attribute__((visibility("default"))) Return nvmlDeviceGetTotalEnergyConsumption(
    void* dev, unsigned long long* mj) {
  const Handle h = Decode(dev);
  FAKE_CHECK(h, "nvmlDeviceGetTotalEnergyConsumption");
  *mj = h.gpu->energy;
  return kSuccess;
}
__attribute__((visibility("default"))) Return nvmlDeviceGetProcessUtilization(
    void* dev, FakeProcUtil* out, unsigned* count, unsigned long long last_seen) {
  const Handle h = Decode(dev);
  FAKE_CHECK(h, "nvmlDeviceGetProcessUtilization");
  if (h.gpu->mig != 0) return kNotSupported;  // as NVML: not on MIG-enabled GPUs
  // Samples are kept per GPU in script order (timestamps rising), so the ones after
  // last_seen are a suffix: found by binary search, as a benchmark runs many collections.
  std::vector<FakeProcUtil> matching;
  auto it = S().samples_by_gpu.find(h.index);
  if (it != S().samples_by_gpu.end()) {
    const std::vector<Sample>& all = it->second;
    auto from = std::upper_bound(all.begin(), all.end(), last_seen,
                                 [](unsigned long long v, const Sample& x) { return v < x.ts; });
    for (; from != all.end() && from->frame <= S().frame(); ++from) {
      matching.push_back(FakeProcUtil{from->pid, from->ts, from->sm, 0, 0, 0});
    }
  }
  if (matching.empty()) return kNotFound;
  if (out == nullptr || *count < matching.size()) {
    *count = static_cast<unsigned>(matching.size());
    return kInsufficientSize;
  }
  std::copy(matching.begin(), matching.end(), out);
  *count = static_cast<unsigned>(matching.size());
  return kSuccess;
}
__attribute__((visibility("default"))) Return nvmlDeviceGetComputeRunningProcesses_v3(
    void* dev, unsigned* count, FakeProcInfo* out) {
  const Handle h = Decode(dev);
  FAKE_CHECK(h, "nvmlDeviceGetComputeRunningProcesses");
  std::vector<FakeProcInfo> matching;
  for (const Proc& p : h.gpu->procs) {
    if (h.mig != nullptr && p.gi != static_cast<int>(h.mig->gi)) continue;
    if (h.mig == nullptr && h.gpu->mig != 0) continue;  // as NVML without privileges
    const unsigned none = 0xFFFFFFFFu;
    matching.push_back(FakeProcInfo{p.pid, p.mem, p.gi < 0 ? none : static_cast<unsigned>(p.gi),
                                    h.mig != nullptr ? h.mig->ci : none});
  }
  if (*count < matching.size()) {
    *count = static_cast<unsigned>(matching.size());
    return kInsufficientSize;
  }
  if (!matching.empty()) std::copy(matching.begin(), matching.end(), out);
  *count = static_cast<unsigned>(matching.size());
  return kSuccess;
}
__attribute__((visibility("default"))) Return nvmlGpmQueryDeviceSupport(void* dev,
                                                                        FakeGpmSupport* s) {
  const Handle h = Decode(dev);
  FAKE_CHECK(h, "nvmlGpmQueryDeviceSupport");
  s->supported = h.gpu->gpm;
  return kSuccess;
}
__attribute__((visibility("default"))) Return nvmlGpmSampleAlloc(void** sample) {
  *sample = new GpmSampleImpl();
  return kSuccess;
}
__attribute__((visibility("default"))) Return nvmlGpmSampleFree(void* sample) {
  delete static_cast<GpmSampleImpl*>(sample);
  return kSuccess;
}
__attribute__((visibility("default"))) Return nvmlGpmSampleGet(void* dev, void* sample) {
  const Handle h = Decode(dev);
  FAKE_CHECK(h, "nvmlGpmSampleGet");
  *static_cast<GpmSampleImpl*>(sample) = GpmSampleImpl{h.gpu, -1, S().frame()};
  return kSuccess;
}
__attribute__((visibility("default"))) Return nvmlGpmMigSampleGet(void* dev, unsigned gi,
                                                                  void* sample) {
  const Handle h = Decode(dev);
  FAKE_CHECK(h, "nvmlGpmMigSampleGet");
  *static_cast<GpmSampleImpl*>(sample) = GpmSampleImpl{h.gpu, static_cast<int>(gi), S().frame()};
  return kSuccess;
}
// GRAPHICS_UTIL between two samples: the gpm_util of the later sample's frame.
__attribute__((visibility("default"))) Return nvmlGpmMetricsGet(FakeGpmGet* get) {
  if (get->version != 1) return 25;  // NVML_ERROR_ARGUMENT_VERSION_MISMATCH
  const auto* s1 = static_cast<const GpmSampleImpl*>(get->s1);
  const auto* s2 = static_cast<const GpmSampleImpl*>(get->s2);
  if (s1 == nullptr || s2 == nullptr || s2->frame < s1->frame) return kInvalidArgument;
  const Frame& f = S().frames[s2->frame];
  for (unsigned i = 0; i < get->num; ++i) {
    FakeGpmMetric& m = get->metrics[i];
    m.ret = kNotSupported;
    if (m.id != 1) continue;
    for (const auto& [idx, g] : f.gpus) {
      if (g.uuid != s2->gpu->uuid) continue;
      if (s2->gi < 0) {
        m.value = g.gpm_util;
        m.ret = kSuccess;
      }
      for (const Mig& mig : g.migs) {
        if (static_cast<int>(mig.gi) == s2->gi) {
          m.value = mig.gpm_util;
          m.ret = kSuccess;
        }
      }
    }
  }
  return kSuccess;
}

}  // extern "C"
