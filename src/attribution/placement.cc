#include "attribution/placement.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <string>
#include <string_view>
#include <tuple>

#include "core/strings.h"

namespace gpucost::attribution {
namespace {

Span Clip(Span s, Span window) {
  return {std::max(s.start, window.start), std::min(s.end, window.end)};
}

// Sorts, clips to the window and merges touching spans.
std::vector<Span> Normalise(const std::vector<Interval>& intervals, Span window) {
  std::vector<Span> out;
  out.reserve(intervals.size());
  for (const Interval& i : intervals) {
    Span s = Clip(ToSpan(i.start, i.end), window);
    if (!s.empty()) out.push_back(s);
  }
  std::sort(out.begin(), out.end(), [](Span a, Span b) { return a.start < b.start; });
  std::vector<Span> merged;
  for (Span s : out) {
    if (!merged.empty() && s.start <= merged.back().end) {
      merged.back().end = std::max(merged.back().end, s.end);
    } else {
      merged.push_back(s);
    }
  }
  return merged;
}

bool PresentAt(const std::vector<Span>& presence, int64_t t) {
  auto it = std::upper_bound(presence.begin(), presence.end(), t,
                             [](int64_t v, Span s) { return v < s.start; });
  return it != presence.begin() && t < std::prev(it)->end;
}

// Physical memory of one GPU of the node in MiB; 0 when unknown. The GFD label is per MIG
// device under the single strategy, so it is only trusted on non-MIG nodes.
double GpuMemoryMib(const Node& node) {
  if (node.gpu_memory_mib > 0) return static_cast<double>(node.gpu_memory_mib);
  if (node.mig_single || node.sharing == SharingMode::kMig) return 0;
  std::string_view label = node.labels.Get("nvidia.com/gpu.memory");
  int64_t mib = 0;
  auto [ptr, ec] = std::from_chars(label.data(), label.data() + label.size(), mib);
  if (ec != std::errc() || ptr != label.data() + label.size() || mib <= 0) return 0;
  return static_cast<double>(mib);
}

double ClampFraction(double f) { return std::clamp(f, 0.0, 1.0); }

std::string RequestText(const Request& r) {
  std::string text = StrCat(r.resource.empty() ? "nvidia.com/gpu" : r.resource, " x", r.count);
  if (r.hami_cores_percent >= 0) text += StrCat(" gpucores=", r.hami_cores_percent);
  if (r.hami_mem_percent >= 0) text += StrCat(" gpumem-percentage=", r.hami_mem_percent);
  if (r.hami_mem_mib >= 0) text += StrCat(" gpumem=", r.hami_mem_mib);
  return text;
}

struct ActiveLoad {
  int64_t end;
  double share;
};

// Draws pool requests of one node, in order of start time (ties by holding index), so that a
// holding sees exactly the holdings that started before it: the load of a unit at the holding's
// start is then the highest load the unit will carry from already-placed holdings. Requests
// running from the window's start that were drawn in the window before (`prior`, this node's
// options.prior_draws) keep their units and are placed first: in one attribution over both
// windows they started before every other request of this window.
void DrawFromPool(const Inventory& inv, const AttributionOptions& options, Span window, NodeIndex n,
                  const std::vector<const PoolDraw*>& prior,
                  const std::vector<UnitIndex>& node_units,
                  std::vector<std::pair<Span, uint32_t>>& requests,
                  const std::vector<std::vector<Span>>& presence,
                  const std::vector<std::pair<uint32_t, bool>>& exact_claims, Warnings& warnings,
                  std::vector<ClaimSpan>& claims, std::vector<PoolDraw>* open_draws,
                  double& unplaced_gpu_hours) {
  const auto by_start = [](const auto& a, const auto& b) {
    return std::tie(a.first.start, a.second) < std::tie(b.first.start, b.second);
  };
  std::sort(requests.begin(), requests.end(), by_start);
  // The holdable units of each resource, with the loads of the holdings drawn so far and the
  // exact assignments on them (known for their whole span: a pool draw avoids a unit that is
  // pinned to someone at any time the new holding runs, not only at its start).
  struct Pool {
    std::vector<UnitIndex> units;
    std::vector<std::vector<ActiveLoad>> loads;  // parallel to units
    std::vector<std::vector<std::pair<Span, double>>> pinned;  // parallel to units
    std::vector<std::vector<Span>> claimed;  // parallel to units: when DRA claims hold each
  };
  std::map<std::string, Pool, std::less<>> by_resource;
  for (UnitIndex u : node_units) {
    if (inv.units[u].holdable) by_resource[inv.units[u].resource].units.push_back(u);
  }
  for (auto& [resource, pool] : by_resource) {
    pool.loads.resize(pool.units.size());
    pool.pinned.resize(pool.units.size());
    pool.claimed.resize(pool.units.size());
  }
  for (const auto& [c, dra] : exact_claims) {
    const GpuUnit& unit = inv.units[claims[c].unit];
    auto it = by_resource.find(unit.resource);
    if (it == by_resource.end()) continue;
    Pool& pool = it->second;
    const auto pos = std::find(pool.units.begin(), pool.units.end(), claims[c].unit);
    if (pos == pool.units.end()) continue;
    const auto at = static_cast<size_t>(pos - pool.units.begin());
    pool.pinned[at].push_back({claims[c].span, claims[c].share});
    if (dra) pool.claimed[at].push_back(claims[c].span);
  }
  const Node& node = inv.nodes[n];
  // What a request asks of the pool: the resource (HAMi pods may leave nvidia.com/gpu implicit)
  // and how many units; 0 with a warning when it cannot be drawn. `missing`: the units asked for
  // that the pool does not have (all of them when no unit matches).
  struct Ask {
    std::string_view resource;
    Pool* pool = nullptr;
    size_t want = 0;
    double missing = 0;
    bool hami = false;
  };
  const auto ask = [&](const Holding& holding, bool warn) {
    const Request& req = holding.request;
    Ask a;
    a.hami = IsHamiRequest(req);
    a.resource = req.resource.empty() && a.hami ? std::string_view("nvidia.com/gpu")
                                                : std::string_view(req.resource);
    auto it = by_resource.find(a.resource);
    if (it == by_resource.end()) {
      if (a.hami && req.count <= 0) {
        a.missing = 1;
      } else if (req.count > 0 && std::isfinite(req.count)) {
        a.missing = std::ceil(req.count - 1e-9);
      }
      if (warn) {
        warnings.Add(StrCat("node ", node.name, ": request ", RequestText(req), " by ",
                            HolderName(inv, holding.holder), ": no such unit"));
      }
      return a;
    }
    if (a.hami && req.count <= 0) {
      a.want = 1;  // HAMi pods may leave nvidia.com/gpu implicit: one GPU
    } else if (req.count <= 0 || !std::isfinite(req.count)) {
      if (warn) {
        warnings.Add(StrCat("node ", node.name, ": request ", RequestText(req), " by ",
                            HolderName(inv, holding.holder),
                            ": count is not positive, nothing held"));
      }
      return a;
    } else {
      // Past the pool's size the count only says "all of them" (and past 2^64 it would not fit
      // a size_t): one more than the pool is enough to hold every unit and warn below.
      const double cap = static_cast<double>(it->second.units.size()) + 1;
      a.want = static_cast<size_t>(std::min(std::ceil(req.count - 1e-9), cap));
    }
    a.pool = &it->second;
    if (a.want > a.pool->units.size()) {
      // As asked, not as capped above: a count of 1e20 on an 8-GPU node misses 1e20 - 8.
      a.missing = std::ceil(req.count - 1e-9) - static_cast<double>(a.pool->units.size());
      if (warn) {
        warnings.Add(StrCat("node ", node.name, ": request ", RequestText(req), " by ",
                            HolderName(inv, holding.holder), ": only ", a.pool->units.size(),
                            " matching units, holding those"));
      }
      a.want = a.pool->units.size();
    }
    return a;
  };
  // The part of each unit drawn that the holding holds: all of it, or a HAMi request's fraction.
  const auto fraction_of = [&](const Holding& holding, const Ask& a) {
    return a.hami ? HamiFraction(holding.request, node, options.hami_share,
                                 HolderName(inv, holding.holder), warnings)
                  : 1.0;
  };
  // Claims `units` (positions in the pool) for the holding over `span`.
  std::vector<UnitIndex> drawn_units;
  const auto take = [&](const Holding& holding, Span span, const Ask& a,
                        const std::vector<uint32_t>& positions) {
    const double fraction = fraction_of(holding, a);
    drawn_units.clear();
    for (uint32_t pos : positions) {
      const UnitIndex u = a.pool->units[pos];
      const double share = inv.units[u].fraction * fraction;
      claims.push_back({u, holding.holder, span, share});
      a.pool->loads[pos].push_back({span.end, share});
      drawn_units.push_back(u);
    }
    if (open_draws != nullptr && span.end >= window.end) {
      open_draws->push_back({holding.holder, n, std::string(a.resource), drawn_units});
    }
  };

  // A GPU a DRA claim holds is its driver's, not the device plugin's to hand out (docs/k8s.md):
  // a request draws from the GPUs no claim holds while it runs. One that a claim's time on a GPU
  // of its pool begins or ends within is drawn in pieces cut there.
  const auto claimed_during = [](const Pool& pool, uint32_t pos, Span span) {
    return std::any_of(pool.claimed[pos].begin(), pool.claimed[pos].end(),
                       [&](const Span& c) { return c.start < span.end && span.start < c.end; });
  };
  if (std::any_of(by_resource.begin(), by_resource.end(), [](const auto& rp) {
        return std::any_of(rp.second.claimed.begin(), rp.second.claimed.end(),
                           [](const auto& c) { return !c.empty(); });
      })) {
    std::vector<std::pair<Span, uint32_t>> pieces;
    std::vector<int64_t> cuts;
    for (const auto& [span, hi] : requests) {
      cuts.clear();
      if (const Pool* pool = ask(inv.holdings[hi], false).pool; pool != nullptr) {
        for (const std::vector<Span>& spans : pool->claimed) {
          for (const Span& c : spans) {
            for (const int64_t t : {c.start, c.end}) {
              if (t > span.start && t < span.end) cuts.push_back(t);
            }
          }
        }
      }
      std::sort(cuts.begin(), cuts.end());
      cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
      int64_t from = span.start;
      for (const int64_t t : cuts) {
        pieces.push_back({Span{from, t}, hi});
        from = t;
      }
      pieces.push_back({Span{from, span.end}, hi});
    }
    if (pieces.size() != requests.size()) {
      requests = std::move(pieces);
      std::sort(requests.begin(), requests.end(), by_start);
    }
  }

  std::vector<bool> placed(requests.size(), false);
  std::vector<uint32_t> positions;
  if (!prior.empty()) {
    for (size_t r = 0; r < requests.size() && requests[r].first.start == window.start; ++r) {
      const Holding& holding = inv.holdings[requests[r].second];
      const Ask a = ask(holding, false);
      if (a.pool == nullptr || a.want == 0) continue;
      const auto draw = std::find_if(prior.begin(), prior.end(), [&](const PoolDraw* d) {
        return d->holder == holding.holder && d->resource == a.resource;
      });
      if (draw == prior.end() || (*draw)->units.size() != a.want) continue;
      positions.clear();
      for (UnitIndex u : (*draw)->units) {
        const auto pos = std::find(a.pool->units.begin(), a.pool->units.end(), u);
        if (pos == a.pool->units.end()) break;
        const auto at = static_cast<uint32_t>(pos - a.pool->units.begin());
        if (claimed_during(*a.pool, at, requests[r].first)) break;  // a claim's now: drawn anew
        positions.push_back(at);
      }
      if (positions.size() != a.want) continue;
      take(holding, requests[r].first, a, positions);
      placed[r] = true;
    }
  }

  struct Candidate {
    bool absent;
    double load;
    UnitIndex unit;
    uint32_t pos;  // in the pool
  };
  std::vector<Candidate> candidates;
  for (size_t r = 0; r < requests.size(); ++r) {
    if (placed[r]) continue;
    const auto& [span, hi] = requests[r];
    const Holding& holding = inv.holdings[hi];
    const Ask a = ask(holding, true);
    if (a.missing > 0) {
      // Requested GPU-equivalents no unit holds: charged to nobody (no evidence of a GPU), said.
      unplaced_gpu_hours +=
          a.missing * fraction_of(holding, a) * Hours(Duration(span.end - span.start));
    }
    if (a.pool == nullptr || a.want == 0) continue;
    Pool& pool = *a.pool;
    candidates.clear();
    for (uint32_t i = 0; i < pool.units.size(); ++i) {
      const UnitIndex u = pool.units[i];
      if (claimed_during(pool, i, span)) continue;  // a DRA claim's (above)
      std::vector<ActiveLoad>& l = pool.loads[i];
      const int64_t start = span.start;  // a structured binding cannot be captured (C++20)
      std::erase_if(l, [start](const ActiveLoad& x) { return x.end <= start; });
      double load = 0;
      for (const ActiveLoad& x : l) load += x.share;
      for (const auto& [pin_span, share] : pool.pinned[i]) {
        if (pin_span.start < span.end && span.start < pin_span.end) load += share;
      }
      candidates.push_back({!PresentAt(presence[u], span.start), load, u, i});
    }
    size_t want = a.want;
    if (candidates.size() < want) {
      // Requested GPUs the claims leave none of: no evidence of a GPU, charged to nobody.
      const size_t short_by = want - candidates.size();
      warnings.Add(StrCat("node ", node.name, ": request ", RequestText(holding.request), " by ",
                          HolderName(inv, holding.holder), ": ", short_by, " of its ", want,
                          " units would be GPUs that DRA claims hold; ",
                          candidates.empty() ? "nothing held" : "holding the others"));
      unplaced_gpu_hours += static_cast<double>(short_by) * fraction_of(holding, a) *
                            Hours(Duration(span.end - span.start));
      want = candidates.size();
      if (want == 0) continue;
    }
    std::partial_sort(candidates.begin(), candidates.begin() + static_cast<ptrdiff_t>(want),
                      candidates.end(), [](const Candidate& x, const Candidate& y) {
                        return std::tie(x.absent, x.load, x.unit) <
                               std::tie(y.absent, y.load, y.unit);
                      });
    positions.clear();
    for (size_t i = 0; i < want; ++i) positions.push_back(candidates[i].pos);
    take(holding, span, a, positions);
  }
}
}  // namespace

std::vector<Span> UnitPresence(const Inventory& inventory, UnitIndex u, Span window) {
  const GpuUnit& unit = inventory.units[u];
  if (!unit.present.empty()) return Normalise(unit.present, window);
  const Node& node = inventory.nodes[unit.node];
  if (!node.present.empty()) return Normalise(node.present, window);
  return {window};
}

std::string HolderName(const Inventory& inventory, HolderIndex h) {
  const Holder& holder = inventory.holders[h];
  if (holder.kind == HolderKind::kSlurmJob) return StrCat("slurm job ", holder.pod);
  return StrCat(holder.namespace_name, "/", holder.pod, "/", holder.container);
}

bool IsHamiRequest(const Request& r) {
  return r.hami_cores_percent >= 0 || r.hami_mem_percent >= 0 || r.hami_mem_mib >= 0;
}

double HamiFraction(const Request& r, const Node& node, AttributionOptions::HamiShare mode,
                    const std::string& who, Warnings& warnings) {
  // HAMi reads 0 (or absent) gpucores as "no compute limit", so only positive values count.
  const double cores = r.hami_cores_percent > 0 ? r.hami_cores_percent / 100.0 : -1;
  double memory = -1;
  bool memory_unknown = false;
  if (r.hami_mem_percent > 0) {
    memory = r.hami_mem_percent / 100.0;
  } else if (r.hami_mem_mib > 0) {
    const double gpu_mib = GpuMemoryMib(node);
    if (gpu_mib > 0) {
      memory = r.hami_mem_mib / gpu_mib;
    } else {
      memory_unknown = true;
    }
  }
  const bool want_memory = mode == AttributionOptions::HamiShare::kMemory;
  if (want_memory && memory > 0) return ClampFraction(memory);
  if (!want_memory && cores > 0) return ClampFraction(cores);
  if (memory_unknown) {
    warnings.Add(StrCat(
        "node ", node.name, ": HAMi request of ", who, " gives gpumem=", r.hami_mem_mib,
        " MiB but the GPU memory is unknown; using ", cores > 0 ? "gpucores" : "the whole GPU"));
  }
  if (cores > 0) return ClampFraction(cores);
  if (memory > 0) return ClampFraction(memory);
  return 1.0;
}

Result<std::vector<ClaimSpan>> PlaceHoldings(const Inventory& inv,
                                             const AttributionOptions& options, Span window,
                                             const std::vector<std::vector<Span>>& presence,
                                             Warnings& warnings, std::vector<PoolDraw>* open_draws,
                                             double* unplaced_gpu_hours) {
  std::vector<ClaimSpan> claims;
  std::vector<bool> from_dra;  // parallel to claims: held by a DRA claim
  double unplaced = 0;
  std::vector<std::vector<std::pair<Span, uint32_t>>> pool(inv.nodes.size());
  for (uint32_t i = 0; i < inv.holdings.size(); ++i) {
    const Holding& h = inv.holdings[i];
    if (h.holder >= inv.holders.size()) {
      return Status::InvalidArgument(StrCat("holding ", i, ": holder index ", h.holder,
                                            " out of range (", inv.holders.size(), " holders)"));
    }
    if (h.node != kNoIndex && h.node >= inv.nodes.size()) {
      return Status::InvalidArgument(StrCat("holding ", i, ": node index ", h.node,
                                            " out of range (", inv.nodes.size(), " nodes)"));
    }
    if (h.interval.end < h.interval.start) {
      return Status::InvalidArgument(StrCat("holding ", i, " (", HolderName(inv, h.holder),
                                            "): interval ends before it starts"));
    }
    for (UnitIndex u : h.units) {
      if (u >= inv.units.size()) {
        return Status::InvalidArgument(StrCat("holding ", i, ": unit index ", u, " out of range (",
                                              inv.units.size(), " units)"));
      }
    }
    if (h.units.empty() && h.node == kNoIndex) {
      return Status::InvalidArgument(
          StrCat("holding ", i, " (", HolderName(inv, h.holder), "): neither node nor units"));
    }
    const Span span = Clip(ToSpan(h.interval.start, h.interval.end), window);
    if (span.empty()) continue;
    if (h.units.empty()) {
      pool[h.node].push_back({span, i});
      continue;
    }
    const std::string who = HolderName(inv, h.holder);
    double fraction = 1.0;
    if (IsHamiRequest(h.request)) {
      const NodeIndex n = h.node != kNoIndex ? h.node : inv.units[h.units.front()].node;
      fraction = HamiFraction(h.request, inv.nodes[n], options.hami_share, who, warnings);
    }
    for (size_t k = 0; k < h.units.size(); ++k) {
      const UnitIndex u = h.units[k];
      if (std::find(h.units.begin(), h.units.begin() + static_cast<ptrdiff_t>(k), u) !=
          h.units.begin() + static_cast<ptrdiff_t>(k)) {
        continue;  // the same device listed twice is held once
      }
      const GpuUnit& unit = inv.units[u];
      if (h.node != kNoIndex && unit.node != h.node) {
        warnings.Add(StrCat("holding ", i, " (", who, ") on node ", inv.nodes[h.node].name,
                            " names unit ", unit.gpu_uuid, " ", unit.partition.ToString(),
                            " of node ", inv.nodes[unit.node].name, "; ignored"));
        unplaced +=
            unit.fraction * fraction * h.unit_share * Hours(Duration(span.end - span.start));
        continue;
      }
      if (!unit.holdable) {
        warnings.Add(StrCat("holding ", i, " (", who, ") names unit ", unit.gpu_uuid, " ",
                            unit.partition.ToString(), ", which cannot be held; ignored"));
        unplaced +=
            unit.fraction * fraction * h.unit_share * Hours(Duration(span.end - span.start));
        continue;
      }
      claims.push_back({u, h.holder, span, unit.fraction * fraction * h.unit_share});
      from_dra.push_back(h.request.resource.starts_with(kDraClaimPrefix));
    }
  }
  std::vector<std::vector<UnitIndex>> units_by_node(inv.nodes.size());
  for (UnitIndex u = 0; u < inv.units.size(); ++u) units_by_node[inv.units[u].node].push_back(u);
  std::vector<std::vector<std::pair<uint32_t, bool>>> exact_by_node(inv.nodes.size());
  for (uint32_t c = 0; c < claims.size(); ++c) {
    exact_by_node[inv.units[claims[c].unit].node].emplace_back(c, from_dra[c]);
  }
  std::vector<std::vector<const PoolDraw*>> prior_by_node(inv.nodes.size());
  for (const PoolDraw& d : options.prior_draws) {
    if (d.node < inv.nodes.size()) prior_by_node[d.node].push_back(&d);
  }
  for (NodeIndex n = 0; n < pool.size(); ++n) {
    if (!pool[n].empty()) {
      DrawFromPool(inv, options, window, n, prior_by_node[n], units_by_node[n], pool[n], presence,
                   exact_by_node[n], warnings, claims, open_draws, unplaced);
    }
  }
  if (unplaced_gpu_hours != nullptr) *unplaced_gpu_hours = unplaced;
  return claims;
}

}  // namespace gpucost::attribution
