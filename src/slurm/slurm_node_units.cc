// The GPU units of a Slurm node from what its jobs held (slurm_node_units.h).
#include "slurm/slurm_node_units.h"

#include <algorithm>
#include <cmath>
#include <iterator>

#include "core/strings.h"
#include "inventory/ksm_reader.h"
#include "inventory/resource_names.h"

namespace gpucost::slurm {
namespace {

// Most units of one class held at one time. Ends sort before starts at the same instant.
int PeakConcurrent(std::vector<std::pair<Instant, int>> events) {
  std::sort(events.begin(), events.end());
  int now = 0;
  int peak = 0;
  for (const auto& [t, delta] : events) {
    now += delta;
    peak = std::max(peak, now);
  }
  return peak;
}

struct MigSlot {
  std::string profile;  // as the jobs named it (canonical spelling)
  int slices = 1;
};

}  // namespace

// Builds the units of one node: MIG GPUs first (slots packed first-fit, largest profiles
// first), then whole GPUs. Returns the physical GPU count.
int AddUnits(Inventory& inv, NodeIndex n, const NodeDemand& d, const SlurmOptions& options,
             Diagnostics& diag) {
  Node& node = inv.nodes[n];
  const MigModel* model = DetectMigModel(node.gpu_model);
  if (model == nullptr && !d.mig_model_hint.empty()) model = DetectMigModel(d.mig_model_hint);
  const int gpu_slices = model != nullptr ? model->compute_slices : 7;

  int whole_needed = 0;
  std::vector<MigSlot> slots;
  for (const auto& [cls, events] : d.events) {
    const int peak = PeakConcurrent(events);
    if (cls.empty()) {
      whole_needed = peak;
      continue;
    }
    const auto parsed = ParseMigProfileName(cls);
    const int slices = parsed ? std::clamp(parsed->compute_slices, 1, gpu_slices) : 1;
    for (int k = 0; k < peak; ++k) slots.push_back({cls, slices});
  }
  // More than any node holds (rows each under the per-job bound, many at once: 148 jobs of 65,536
  // GPUs took all memory): the units stop there and the jobs share them, said.
  const int most = static_cast<int>(kMaxNodeDevices);
  if (static_cast<int64_t>(whole_needed) + static_cast<int64_t>(slots.size()) > most) {
    diag.Warn(StrCat("node ", node.name, ": jobs held ", whole_needed + slots.size(),
                     " GPUs and MIG slices at one time, more than a node has (at most ", most,
                     "); the node gets ", most, " and its jobs share them (damaged sacct rows?)"));
    if (static_cast<int>(slots.size()) > most) slots.resize(static_cast<size_t>(most));
    whole_needed = std::min(whole_needed, most - static_cast<int>(slots.size()));
  }
  std::stable_sort(slots.begin(), slots.end(),
                   [](const MigSlot& a, const MigSlot& b) { return a.slices > b.slices; });
  std::vector<std::vector<const MigSlot*>> mig_gpus;
  std::vector<int> free;
  for (const MigSlot& s : slots) {
    size_t g = 0;
    while (g < free.size() && free[g] < s.slices) ++g;
    if (g == free.size()) {
      free.push_back(gpu_slices);
      mig_gpus.emplace_back();
    }
    free[g] -= s.slices;
    mig_gpus[g].push_back(&s);
  }
  const int mig_count = static_cast<int>(mig_gpus.size());
  const int* configured_ptr = Find(options.gpus_per_node, node.name);
  const int configured =
      configured_ptr != nullptr ? *configured_ptr : options.default_gpus_per_node;
  int whole_count = whole_needed;
  if (configured > 0) {
    if (configured < mig_count + whole_needed) {
      diag.Warn(StrCat("node ", node.name, ": jobs held ", mig_count + whole_needed,
                       " GPUs at one time but the node is configured with ", configured, "; using ",
                       mig_count + whole_needed));
    } else {
      whole_count = configured - mig_count;
    }
  }

  int gpu_index = 0;
  for (const auto& gpu : mig_gpus) {
    const std::string uuid = StrCat(node.name, "-gpu", gpu_index++);
    int used = 0;
    int gi = 0;
    for (const MigSlot* s : gpu) {
      GpuUnit u;
      u.node = n;
      u.gpu_uuid = uuid;
      u.gpu_model = node.gpu_model;
      u.partition = {PartitionKind::kMig, gi};
      u.gpu_instance_id = gi++;
      u.resource = MigResourceName(s->profile);
      const MigProfile* p = model != nullptr ? FindMigProfile(*model, s->profile) : nullptr;
      if (p != nullptr) {
        u.mig_profile = p->name;
        u.fraction = MigFraction(*model, *p, options.mig_weight);
      } else {
        u.mig_profile = s->profile;
        u.fraction = MigFractionWithoutModel(s->profile, options.mig_weight)
                         .value_or(static_cast<double>(s->slices) / gpu_slices);
      }
      used += s->slices;
      inv.units.push_back(std::move(u));
    }
    if (used < gpu_slices) {
      GpuUnit rest;  // slices no job was seen to hold: capacity nobody can request
      rest.node = n;
      rest.gpu_uuid = uuid;
      rest.gpu_model = node.gpu_model;
      rest.fraction = static_cast<double>(gpu_slices - used) / gpu_slices;
      rest.holdable = false;
      inv.units.push_back(std::move(rest));
    }
  }
  for (int i = 0; i < whole_count; ++i) {
    GpuUnit u;
    u.node = n;
    u.gpu_uuid = StrCat(node.name, "-gpu", gpu_index++);
    u.gpu_model = node.gpu_model;
    u.resource = std::string(kWholeResource);
    inv.units.push_back(std::move(u));
  }
  node.sharing = mig_count > 0 ? SharingMode::kMig : SharingMode::kNone;
  return gpu_index;
}

// A node whose jobs named two GPU types or more (`Gres=gpu:a100:4,gpu:l4:2`): each type gets
// units of its own, as many as its jobs held at one time, with that type as their GPU model, and
// each typed holding is assigned its units over time (first free unit of its type; Slurm records
// no device indexes), so a job's hours go to the type it ran on. Jobs that named no single type
// draw from the node's pool. Returns the physical GPU count.
int AddTypedUnits(Inventory& inv, NodeIndex n, const NodeDemand& d, const SlurmOptions& options,
                  Diagnostics& diag) {
  const Node& node = inv.nodes[n];
  int gpu_index = 0;
  bool capped = false;
  for (const auto& [type, holdings] : d.typed_holdings) {
    // (time, +1 start / -1 end, holding); ends sort before starts at the same instant.
    std::vector<std::tuple<Instant, int, size_t>> events;
    for (size_t h : holdings) {
      events.emplace_back(inv.holdings[h].interval.start, 1, h);
      events.emplace_back(inv.holdings[h].interval.end, -1, h);
    }
    std::sort(events.begin(), events.end());
    std::vector<UnitIndex> free;  // this type's free units, lowest index last
    for (const auto& [t, delta, h] : events) {
      Holding& holding = inv.holdings[h];
      if (delta < 0) {
        free.insert(free.end(), holding.units.begin(), holding.units.end());
        std::sort(free.begin(), free.end(), std::greater<>());
        continue;
      }
      const int want = static_cast<int>(std::lround(holding.request.count));
      for (int k = 0; k < want; ++k) {
        if (free.empty() && gpu_index >= static_cast<int>(kMaxNodeDevices)) {
          if (!capped) {
            diag.Warn(StrCat("node ", node.name, ": jobs held more GPUs at one time than a node ",
                             "has (at most ", static_cast<int>(kMaxNodeDevices),
                             "); the rest of their GPUs are left out (damaged sacct rows?)"));
          }
          capped = true;
          break;
        }
        if (free.empty()) {
          GpuUnit u;
          u.node = n;
          u.gpu_uuid = StrCat(node.name, "-gpu", gpu_index++);
          u.gpu_model = type;
          u.resource = std::string(kWholeResource);
          free.push_back(static_cast<UnitIndex>(inv.units.size()));
          inv.units.push_back(std::move(u));
        }
        holding.units.push_back(free.back());
        free.pop_back();
      }
    }
  }
  // Untyped jobs on the node, and a configured count above what the typed jobs held: GPUs of no
  // known type.
  const int* configured_ptr = Find(options.gpus_per_node, node.name);
  const int configured =
      configured_ptr != nullptr ? *configured_ptr : options.default_gpus_per_node;
  int extra = PeakConcurrent(d.untyped_whole);
  if (configured > 0 && configured < gpu_index + extra) {
    diag.Warn(StrCat("node ", node.name, ": jobs held ", gpu_index + extra,
                     " GPUs at one time but the node is configured with ", configured, "; using ",
                     gpu_index + extra));
  } else if (configured > 0) {
    extra = configured - gpu_index;
  }
  for (int i = 0; i < extra; ++i) {
    GpuUnit u;
    u.node = n;
    u.gpu_uuid = StrCat(node.name, "-gpu", gpu_index++);
    u.resource = std::string(kWholeResource);
    inv.units.push_back(std::move(u));
  }
  inv.nodes[n].sharing = SharingMode::kNone;
  return gpu_index;
}

}  // namespace gpucost::slurm
