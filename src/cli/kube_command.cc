// `gpucost kube`: what gpucost reads from a cluster's Kubernetes API and makes of it. It lists
// every kind once (or, with --watch, keeps watching for that long, as the server does), builds
// the inventory from the API alone and prints the GPU nodes (sharing mode, capacity, price
// metadata), the GPU pods by phase, and each resource's list/watch counters; with --watch also
// the process's CPU time and peak memory (the figures docs/perf.md records).
#include <sys/resource.h>

#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <tuple>

#include "cli/commands.h"
#include "cli/format_flag.h"
#include "cli/kube_flags.h"
#include "core/log.h"
#include "core/redact.h"
#include "core/strings.h"
#include "inventory/inventory_builder.h"

namespace gpucost::cli {
namespace {

struct KubeCommandFlags {
  KubeFlags kube;
  std::string cluster = "default";
  std::string watch;
  std::string format = "table";
  std::string label_allowlist;
  std::string team_labels = "pod:team,namespace:team";
};

double CpuSeconds(const rusage& u) {
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

Status Run(const KubeCommandFlags& f) {
  KubeFlags kf = f.kube;
  kf.kube = true;
  GPUCOST_ASSIGN_OR_RETURN(k8s::KubeConnection conn, ResolveKubeConnection(kf));
  const std::string server = RedactUri(conn.server);  // shown only
  const std::string context = conn.context;
  const std::vector<std::string> team_labels = SplitList(f.team_labels);
  const std::vector<std::string> allowlist = SplitList(f.label_allowlist);
  static const SystemClock clock;
  k8s::KubeSource source(std::move(conn), KubeSourceOptionsFor(kf, f.cluster, allowlist, team_labels),
                         clock);
  rusage before{};
  rusage synced{};
  rusage after{};
  getrusage(RUSAGE_SELF, &before);
  double watch_s = 0;
  if (f.watch.empty()) {
    GPUCOST_RETURN_IF_ERROR(source.List());
    getrusage(RUSAGE_SELF, &synced);
  } else {
    GPUCOST_ASSIGN_OR_RETURN(Duration d, ParseDuration(f.watch));
    source.Start();
    if (!source.WaitForSync(std::chrono::minutes(10))) {
      source.Stop();
      auto st = source.stats();
      std::string why;
      for (const auto& [name, s] : st.informers) {
        if (!s.last_error.empty()) why = StrCat(name, ": ", s.last_error);
      }
      return Status::Unavailable(StrCat("Kubernetes API ", server, ": no complete list in 10 minutes",
                                        why.empty() ? "" : StrCat(" (", why, ")")));
    }
    getrusage(RUSAGE_SELF, &synced);
    std::this_thread::sleep_for(d);
    source.Stop();
    watch_s = Seconds(d);
  }
  getrusage(RUSAGE_SELF, &after);
  const k8s::KubeSourceStats st = source.stats();

  TimelineOptions topts;
  topts.cluster = f.cluster;
  topts.team_labels = team_labels;
  topts.label_allowlist = allowlist;
  KubeState state = source.Snapshot();
  topts.window = Window{state.observed_at - std::chrono::hours(1), state.observed_at};
  std::map<std::string, int> pods_by_phase;
  for (const KubePod& p : state.pods) ++pods_by_phase[p.phase.empty() ? "Unknown" : p.phase];
  topts.kube_states.push_back(std::move(state));
  InventoryBuilder builder(topts);
  GPUCOST_ASSIGN_OR_RETURN(LoadedTimeline timeline, builder.Build());
  // GPU nodes grouped by what prices and shares them.
  using Group = std::tuple<std::string, std::string, std::string, std::string>;
  std::map<Group, std::pair<int, int>> groups;  // -> (nodes, GPUs)
  for (const Node& n : timeline.inventory.nodes) {
    if (n.physical_gpus <= 0) continue;
    auto& g = groups[{n.gpu_model, std::string(SharingModeName(n.sharing)), n.capacity_type,
                      n.instance_type}];
    ++g.first;
    g.second += n.physical_gpus;
  }

  const double list_cpu = CpuSeconds(synced) - CpuSeconds(before);
  const double watch_cpu = CpuSeconds(after) - CpuSeconds(synced);
  const double max_rss_mb = static_cast<double>(after.ru_maxrss) / 1024.0;
  if (f.format == "json") {
    nlohmann::json j;
    j["server"] = server;
    j["context"] = context;
    j["gpu_pods"] = st.gpu_pods;
    j["nodes"] = st.nodes;
    j["holders"] = timeline.inventory.holders.size();
    j["decode_errors"] = st.decode_errors;
    j["list_cpu_seconds"] = list_cpu;
    j["watch_seconds"] = watch_s;
    j["watch_cpu_seconds"] = watch_cpu;
    j["max_rss_mb"] = max_rss_mb;
    for (const auto& [name, s] : st.informers) {
      j["resources"][name] = {{"lists", s.lists},       {"pages", s.pages},
                              {"watches", s.watches},   {"events", s.events},
                              {"bookmarks", s.bookmarks}, {"relists", s.relists},
                              {"errors", s.errors},     {"resource_version", s.resource_version}};
    }
    for (const auto& [g, c] : groups) {
      j["gpu_nodes"].push_back({{"gpu_model", std::get<0>(g)}, {"sharing", std::get<1>(g)},
                                {"capacity_type", std::get<2>(g)}, {"instance_type", std::get<3>(g)},
                                {"nodes", c.first}, {"gpus", c.second}});
    }
    for (const auto& [phase, n] : pods_by_phase) j["gpu_pods_by_phase"][phase] = n;
    std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    return Status::Ok();
  }
  if (f.format != "table") return Status::InvalidArgument("--format: table or json");
  std::cout << "Kubernetes API " << server << (context.empty() ? "" : StrCat(" (context ", context, ")"))
            << "\n\n";
  std::cout << StrCat("GPU nodes: ", timeline.inventory.nodes.size(), " nodes known, ",
                      st.nodes, " listed\n");
  std::printf("  %-32s %-13s %-10s %-18s %6s %6s\n", "gpu_model", "sharing", "capacity",
              "instance_type", "nodes", "gpus");
  for (const auto& [g, c] : groups) {
    std::printf("  %-32s %-13s %-10s %-18s %6d %6d\n", std::get<0>(g).c_str(),
                std::get<1>(g).c_str(), std::get<2>(g).empty() ? "-" : std::get<2>(g).c_str(),
                std::get<3>(g).empty() ? "-" : std::get<3>(g).c_str(), c.first, c.second);
  }
  std::cout << "\nGPU pods: " << st.gpu_pods << " (";
  bool first = true;
  for (const auto& [phase, n] : pods_by_phase) {
    std::cout << (first ? "" : ", ") << phase << " " << n;
    first = false;
  }
  std::cout << "); holders (containers holding GPUs in the last hour): "
            << timeline.inventory.holders.size() << "\n\n";
  std::printf("  %-13s %6s %6s %8s %8s %9s %8s %7s\n", "resource", "lists", "pages", "watches",
              "events", "bookmarks", "relists", "errors");
  for (const auto& [name, s] : st.informers) {
    std::printf("  %-13s %6llu %6llu %8llu %8llu %9llu %8llu %7llu\n", name.c_str(),
                static_cast<unsigned long long>(s.lists), static_cast<unsigned long long>(s.pages),
                static_cast<unsigned long long>(s.watches), static_cast<unsigned long long>(s.events),
                static_cast<unsigned long long>(s.bookmarks),
                static_cast<unsigned long long>(s.relists), static_cast<unsigned long long>(s.errors));
  }
  if (st.decode_errors > 0) {
    std::cout << "\n" << st.decode_errors << " objects could not be read; the last: "
              << st.last_decode_error << "\n";
  }
  std::printf("\nCPU: %.2f s to list", list_cpu);
  if (watch_s > 0) {
    std::printf(", %.2f s over %.0f s of watching (%.2f%% of one core)", watch_cpu, watch_s,
                100.0 * watch_cpu / watch_s);
  }
  std::printf("; peak RSS %.1f MB\n", max_rss_mb);
  return Status::Ok();
}

}  // namespace

void AddKubeCommand(CLI::App& app, int& exit_code) {
  auto f = std::make_shared<KubeCommandFlags>();
  CLI::App* cmd = app.add_subcommand(
      "kube",
      "Read the Kubernetes API as `report --kube` does and show what gpucost makes of it: GPU "
      "nodes by model, sharing and capacity type, GPU pods, list/watch counters");
  AddKubeFlags(*cmd, f->kube);
  cmd->add_option("--cluster", f->cluster, "Cluster name")->capture_default_str();
  cmd->add_option("--watch", f->watch,
                  "Keep watching for this long after the first list (e.g. 60s), then report CPU "
                  "time and peak memory");
  cmd->add_option("--label-allowlist", f->label_allowlist,
                  "Pod and namespace labels kept, comma-separated; default: all");
  cmd->add_option("--team-labels", f->team_labels, "Team label chain")->capture_default_str();
  AddFormatOption(*cmd, f->format, {"table", "json"});
  cmd->footer("Exit status: 0 on success, 2 when the API cannot be read.");
  SetStatusCallback(*cmd, exit_code, [f] { return Run(*f); });
}

}  // namespace gpucost::cli
