// `gpucost simulate`: a realistic GPU cluster's kube-state-metrics and dcgm-exporter telemetry,
// deterministic from --seed: timestamped OpenMetrics (or Prometheus text) for a window, to a
// file or stdout, or a live /metrics endpoint serving scrapes at the current time.
#include <signal.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <thread>

#include "cli/commands.h"
#include "cli/format_flag.h"
#include "cli/progress_flags.h"
#include "core/log.h"
#include "core/progress.h"
#include "core/strings.h"
#include "simulate/cluster_simulator.h"
#include "simulate/exposition_writer.h"
#include "simulate/gpu_catalog.h"
#include "simulate/metrics_server.h"

namespace gpucost::cli {
namespace {

using simulate::ClusterSimulator;
using simulate::ExpositionWriter;
using simulate::TextFormat;

constexpr int64_t kDefaultStartMs = 1790812800000;  // 2026-10-01T00:00:00Z

struct SimulateFlags {
  ProgressFlags progress;
  int nodes = 10;
  std::string gpu_models = "a100-80gb:3,h100-80gb:1,t4:1";
  std::string sharing = "whole:5,mig:2,time-slicing:1,mps:1,hami:1";
  bool sharing_given = false;  // without --sharing, a mix of AMD and Neuron models only is whole
  int gpus_per_node = 0;
  int replicas = 4;
  double spot_fraction = 0.3;
  int namespaces = 6;
  uint64_t seed = 1;
  std::string scrape_interval = "60s";
  std::string window;
  std::string duration = "1d";
  std::string format = "openmetrics";
  std::string out = "-";
  std::string serve;
  std::string serve_for;
  std::string cluster;
  bool list_nodes = false;
  std::string kube_objects_out;
};

Result<simulate::SimOptions> SimOptionsOf(const SimulateFlags& f) {
  simulate::SimOptions o;
  o.nodes = f.nodes;
  GPUCOST_ASSIGN_OR_RETURN(o.gpu_models, simulate::ParseMix(f.gpu_models, "--gpu-models"));
  GPUCOST_ASSIGN_OR_RETURN(o.sharing, simulate::ParseMix(f.sharing, "--sharing"));
  // AMD and Neuron nodes are simulated whole (their partitions are their units): the default mix
  // of sharing modes, meant for NVIDIA's, would refuse a cluster without NVIDIA GPUs.
  const bool nvidia = std::any_of(o.gpu_models.begin(), o.gpu_models.end(), [](const auto& w) {
    const simulate::GpuModelSpec* m = simulate::FindGpuModel(w.key);
    return m == nullptr || m->vendor == simulate::Vendor::kNvidia;
  });
  if (!f.sharing_given && !nvidia) o.sharing = {{"whole", 1}};
  o.gpus_per_node = f.gpus_per_node;
  o.replicas = f.replicas;
  o.spot_fraction = f.spot_fraction;
  o.namespaces = f.namespaces;
  o.seed = f.seed;
  GPUCOST_ASSIGN_OR_RETURN(o.scrape_interval, ParseDuration(f.scrape_interval));
  o.cluster = f.cluster;
  GPUCOST_RETURN_IF_ERROR(simulate::Validate(o));
  return o;
}

// Writes to a file, a gzip file (name ends in .gz) or stdout ("-").
class Output {
 public:
  ~Output() { (void)Close(); }
  Status Open(const std::string& path) {
    path_ = path;
    if (path == "-") {
      file_ = stdout;
    } else if (path.ends_with(".gz")) {
      gz_ = gzopen(path.c_str(), "wb1");
      if (gz_ == nullptr) return Status::IoError(StrCat("cannot write ", path));
    } else {
      file_ = std::fopen(path.c_str(), "wb");
      if (file_ == nullptr) return Status::IoError(StrCat("cannot write ", path));
    }
    return Status::Ok();
  }
  Status Write(std::string_view data) {
    if (gz_ != nullptr) {
      if (gzwrite(gz_, data.data(), static_cast<unsigned>(data.size())) !=
          static_cast<int>(data.size())) {
        return Status::IoError(StrCat("write to ", path_, " failed"));
      }
    } else if (std::fwrite(data.data(), 1, data.size(), file_) != data.size()) {
      return Status::IoError(StrCat("write to ", path_, " failed"));
    }
    return Status::Ok();
  }
  Status Close() {
    bool ok = true;
    if (gz_ != nullptr) ok = gzclose(gz_) == Z_OK;
    gz_ = nullptr;
    if (file_ != nullptr)
      ok = (file_ == stdout ? std::fflush(file_) : std::fclose(file_)) == 0 && ok;
    file_ = nullptr;
    return ok ? Status::Ok() : Status::IoError(StrCat("closing ", path_, " failed"));
  }

 private:
  std::string path_;
  std::FILE* file_ = nullptr;
  gzFile gz_ = nullptr;
};

// The DRA nodes' Kubernetes objects as a kubectl List, dated (modification time) at the window's
// end: `--kube-objects` takes that as when the API showed them.
Status WriteKubeObjects(const ClusterSimulator& sim, const std::string& path, Instant at) {
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << sim.KubeObjectsJson();
    out.close();
    if (!out) return Status::IoError(StrCat("--kube-objects-out: cannot write ", path));
  }
  std::error_code ec;
  std::filesystem::last_write_time(
      path,
      std::chrono::file_clock::from_sys(
          std::chrono::sys_time<std::chrono::nanoseconds>(at.time_since_epoch())),
      ec);
  if (ec) return Status::IoError(StrCat("--kube-objects-out: ", path, ": ", ec.message()));
  return Status::Ok();
}

void PrintShape(const ClusterSimulator& sim, bool list_nodes) {
  const simulate::ClusterShape& s = sim.shape();
  std::fprintf(stderr, "nodes=%d\ngpus=%d\nunits=%d\nnamespaces=%d\nspot_nodes=%d\n", s.nodes,
               s.gpus, s.units, s.namespaces, s.spot_nodes);
  if (list_nodes) {
    for (const std::string& n : s.node_summaries) std::fprintf(stderr, "node=%s\n", n.c_str());
  }
}

Status WriteWindow(const SimulateFlags& f, const simulate::SimOptions& o) {
  Window w;
  if (!f.window.empty()) {
    GPUCOST_ASSIGN_OR_RETURN(w, ParseWindow(f.window));
  } else {
    GPUCOST_ASSIGN_OR_RETURN(Duration d, ParseDuration(f.duration));
    if (d <= Duration::zero()) return Status::InvalidArgument("--duration must be positive");
    w = Window{InstantFromUnixMs(kDefaultStartMs), InstantFromUnixMs(kDefaultStartMs) + d};
  }
  TextFormat format;
  if (f.format == "openmetrics") {
    format = TextFormat::kOpenMetrics;
  } else if (f.format == "text" || f.format == "prom") {
    format = TextFormat::kPromText;
  } else {
    return Status::InvalidArgument(StrCat("--format ", f.format, ": want openmetrics or text"));
  }
  GPUCOST_ASSIGN_OR_RETURN(auto sim, ClusterSimulator::Create(o, w.start));
  Output out;
  GPUCOST_RETURN_IF_ERROR(out.Open(f.out));
  ExpositionWriter writer(format, [&out](std::string_view s) { return out.Write(s); });
  // simulate::SimulateWindow, one scrape at a time, with the time covered on a progress line.
  const SystemClock clock;
  ProgressLine line(
      "simulate", ProgressUnit::kTime, w.length().count(), clock, std::cerr,
      f.progress.on || (f.progress.wanted() && !(f.out == "-" && ::isatty(STDOUT_FILENO))));
  int64_t scrapes = 0;
  for (Instant t = w.start; t < w.end; t += sim->scrape_interval(), ++scrapes) {
    sim->Scrape(t, writer);
    line.Set((t + sim->scrape_interval() - w.start).count());
  }
  line.Finish();
  GPUCOST_RETURN_IF_ERROR(writer.Finish());
  GPUCOST_RETURN_IF_ERROR(out.Close());
  if (!f.kube_objects_out.empty()) {
    GPUCOST_RETURN_IF_ERROR(WriteKubeObjects(*sim, f.kube_objects_out, w.end));
  }
  PrintShape(*sim, f.list_nodes);
  std::fprintf(
      stderr, "scrapes=%lld\ninterval_s=%lld\nstart=%lld\nend=%lld\nsamples=%llu\nbytes=%llu\n",
      static_cast<long long>(scrapes), static_cast<long long>(o.scrape_interval.count() / 1000),
      static_cast<long long>(UnixMs(w.start) / 1000),
      static_cast<long long>(UnixMs(w.start + scrapes * o.scrape_interval) / 1000),
      static_cast<unsigned long long>(writer.samples()),
      static_cast<unsigned long long>(writer.bytes()));
  return Status::Ok();
}

Status Serve(const SimulateFlags& f, const simulate::SimOptions& o) {
  GPUCOST_ASSIGN_OR_RETURN(auto address, ParseListenAddress(f.serve, "--serve"));
  Duration serve_for = Duration::zero();
  if (!f.serve_for.empty()) {
    GPUCOST_ASSIGN_OR_RETURN(serve_for, ParseDuration(f.serve_for));
  }
  // The cluster starts at the last whole scrape interval, so restarts line up with scrapes.
  const SystemClock clock;
  const int64_t now_ms = UnixMs(clock.Now());
  const int64_t step = o.scrape_interval.count();
  GPUCOST_ASSIGN_OR_RETURN(auto sim,
                           ClusterSimulator::Create(o, InstantFromUnixMs(now_ms / step * step)));

  // SIGINT/SIGTERM stop the server from a thread that waits for them (a handler may not).
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  simulate::MetricsServer server(*sim, clock);
  GPUCOST_ASSIGN_OR_RETURN(const int port, server.Bind(address.first, address.second));
  PrintShape(*sim, f.list_nodes);
  std::printf(
      "serving http://%s:%d/metrics (also /metrics/kube-state-metrics, /metrics/dcgm-exporter)\n",
      address.first.c_str(), port);
  std::fflush(stdout);
  std::thread waiter([&server, stop_signals, serve_for] {
    if (serve_for > Duration::zero()) {
      timespec ts{static_cast<time_t>(serve_for.count() / 1000),
                  static_cast<long>(serve_for.count() % 1000 * 1000000)};
      sigtimedwait(&stop_signals, nullptr, &ts);
    } else {
      int sig = 0;
      sigwait(&stop_signals, &sig);
    }
    // The server may not be listening yet when the wait ends at once.
    while (!server.running()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    server.Stop();
  });
  const Status run = server.Run();
  waiter.join();
  std::fprintf(stderr, "served %llu scrapes\n", static_cast<unsigned long long>(server.scrapes()));
  return run;
}

int RunSimulate(const SimulateFlags& f) {
  auto o = SimOptionsOf(f);
  Status s = o.status();
  if (s.ok() && !f.serve.empty() && !f.kube_objects_out.empty()) {
    s = Status::InvalidArgument("--kube-objects-out writes a window's objects: not with --serve");
  }
  if (s.ok()) s = f.serve.empty() ? WriteWindow(f, *o) : Serve(f, *o);
  if (!s.ok()) {
    LogError(s.ToString());
    return 2;
  }
  return 0;
}

}  // namespace

void AddSimulateCommand(CLI::App& app, int& exit_code) {
  auto f = std::make_shared<SimulateFlags>();
  CLI::App* cmd = app.add_subcommand(
      "simulate",
      "Generate a realistic GPU cluster's kube-state-metrics and dcgm-exporter telemetry "
      "(deterministic from --seed): timestamped OpenMetrics for a window, or a live /metrics "
      "endpoint (--serve)");
  cmd->add_option("--nodes", f->nodes, "GPU nodes")->capture_default_str();
  cmd->add_option("--gpu-models", f->gpu_models,
                  "GPU models with weights, MODEL:WEIGHT,... (a100-80gb, a100-40gb, h100-80gb, l4, "
                  "a10g, t4, mi300x, mi300x-cpx, trn1, inf2; handed out by a DRA driver, see "
                  "--kube-objects-out: h100-dra and h100-dynmig-dra (NVIDIA's, the latter with "
                  "DynamicMIG), mi300x-dra (AMD's), trn2-dra (AWS Neuron's))")
      ->capture_default_str();
  cmd->add_option(
         "--sharing", f->sharing,
         "Sharing modes with weights, MODE:WEIGHT,... (whole, mig, time-slicing, mps, hami); "
         "MIG nodes take a MIG-capable model")
      ->capture_default_str();
  cmd->add_option("--gpus-per-node", f->gpus_per_node,
                  "GPUs per node (0: the model's instance type)")
      ->capture_default_str();
  cmd->add_option("--replicas", f->replicas, "Time-slicing and MPS replicas per GPU")
      ->capture_default_str();
  cmd->add_option("--spot-fraction", f->spot_fraction,
                  "Share of nodes labelled karpenter.sh/capacity-type=spot")
      ->capture_default_str();
  cmd->add_option("--namespaces", f->namespaces, "Namespaces (teams) pods are spread over, 1..16")
      ->capture_default_str();
  cmd->add_option("--seed", f->seed, "Seed; the same flags and seed give the same output")
      ->capture_default_str();
  cmd->add_option("--scrape-interval", f->scrape_interval, "Time between scrapes")
      ->capture_default_str();
  cmd->add_option("--window", f->window, "START,END (RFC 3339 or unix seconds) to generate")
      ->check(WindowValue());
  cmd->add_option("--duration", f->duration, "Without --window: how long from 2026-10-01T00:00:00Z")
      ->capture_default_str();
  AddFormatOption(*cmd, f->format, {"openmetrics", "text"},
                  "openmetrics (second timestamps, # EOF: promtool imports it) or text "
                  "(Prometheus text 0.0.4, ms timestamps; also: prom)");
  cmd->add_option("--output,-o,--out", f->out, "Write to this file (.gz: gzip); - is stdout")
      ->capture_default_str();
  cmd->add_option(
      "--serve", f->serve,
      "Serve live scrapes at HOST:PORT (port 0: any free port) instead of writing a window");
  cmd->add_option("--serve-for", f->serve_for,
                  "With --serve: stop after this long (default: until SIGTERM)");
  cmd->add_option("--cluster", f->cluster, "Add a cluster=NAME label to every series");
  cmd->add_option("--kube-objects-out", f->kube_objects_out,
                  "Also write the DRA nodes' Kubernetes objects (ResourceSlices, ResourceClaims, "
                  "their pods, nodes, namespaces, owners) as `kubectl get -A -o json` would, for "
                  "`gpucost report --kube-objects`");
  cmd->add_flag("--list-nodes", f->list_nodes,
                "Also print each node (name, model, sharing, GPUs, capacity type) to stderr");
  AddProgressFlags(*cmd, f->progress);
  cmd->callback([f, cmd, &exit_code] {
    f->sharing_given = cmd->get_option("--sharing")->count() > 0;
    exit_code = RunSimulate(*f);
  });
}

}  // namespace gpucost::cli
