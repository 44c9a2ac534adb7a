#include "ledger/ledger_draws.h"

#include <algorithm>
#include <map>
#include <optional>
#include <tuple>

#include "core/strings.h"

namespace gpucost::ledger {
namespace {

// What a holder held in one step: per (holder, node, resource) identity, its units' identities in
// order, and the holder's name to show.
struct Held {
  std::vector<std::string> units;
  std::string name;  // "namespace/pod" (a Slurm job's account/job)
};
using HeldKey = std::tuple<std::string, std::string, std::string>;

// The ledger's step [start - step, start) of `clusters`; nullopt when it holds no such step (the
// ledger begins later or ends earlier, a step of another length or grid).
Result<std::optional<std::map<HeldKey, Held>>> HeldIn(Ledger& ledger, Instant start, Duration step,
                                                      std::span<const std::string> clusters) {
  GPUCOST_ASSIGN_OR_RETURN(const std::optional<Window> span, ledger.Span());
  if (!span || step.count() <= 0 || start - step < span->start || start > span->end) {
    return std::optional<std::map<HeldKey, Held>>();
  }
  ReadOptions options;
  options.clusters.assign(clusters.begin(), clusters.end());
  Result<LedgerWindow> read = ledger.Read(Window{start - step, start}, options);
  // Off the ledger's grid or of another step length: nothing to carry. Anything else (the disk,
  // the server, damage) is the caller's error.
  if (!read.ok() && read.status().code() == StatusCode::kInvalidArgument) {
    return std::optional<std::map<HeldKey, Held>>();
  }
  if (!read.ok()) return read.status();
  if (read->step != step) return std::optional<std::map<HeldKey, Held>>();
  const Inventory& inv = read->inventory;
  std::map<std::tuple<HolderIndex, NodeIndex, std::string>, std::vector<UnitIndex>> by_index;
  for (const CostRecord& r : read->records) {
    if (r.is_idle() || r.holder >= inv.holders.size() || r.unit >= inv.units.size()) continue;
    const GpuUnit& unit = inv.units[r.unit];
    by_index[{r.holder, unit.node, unit.resource}].push_back(r.unit);
  }
  std::map<HeldKey, Held> out;
  for (auto& [key, units] : by_index) {
    const auto& [holder, node, resource] = key;
    std::sort(units.begin(), units.end());
    units.erase(std::unique(units.begin(), units.end()), units.end());
    const Holder& h = inv.holders[holder];
    Held& held = out[{HolderIdentity(h), NodeIdentity(inv.nodes[node]), resource}];
    held.name = StrCat(h.namespace_name, "/", h.pod);
    for (UnitIndex u : units) held.units.push_back(UnitIdentity(inv.nodes[node], inv.units[u]));
  }
  return std::optional<std::map<HeldKey, Held>>(std::move(out));
}

}  // namespace

Result<std::vector<KeyedDraw>> DrawsHeldBefore(Ledger& ledger, Instant start, Duration step,
                                               std::span<const std::string> clusters) {
  std::vector<KeyedDraw> out;
  GPUCOST_ASSIGN_OR_RETURN(const auto held, HeldIn(ledger, start, step, clusters));
  if (!held) return out;
  for (const auto& [key, h] : *held) {
    const auto& [holder, node, resource] = key;
    out.push_back(KeyedDraw{holder, node, resource, h.units});
  }
  return out;
}

Result<std::vector<std::string>> MovedAcross(Ledger& ledger, Instant t, Duration step,
                                             std::span<const std::string> clusters) {
  std::vector<std::string> out;
  GPUCOST_ASSIGN_OR_RETURN(const auto before, HeldIn(ledger, t, step, clusters));
  GPUCOST_ASSIGN_OR_RETURN(const auto after, HeldIn(ledger, t + step, step, clusters));
  if (!before || !after) return out;
  for (const auto& [key, h] : *before) {
    const auto it = after->find(key);
    if (it != after->end() && it->second.units != h.units) out.push_back(h.name);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace gpucost::ledger
