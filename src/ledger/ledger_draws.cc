#include "ledger/ledger_draws.h"

#include <algorithm>
#include <map>
#include <optional>
#include <tuple>

namespace gpucost::ledger {

Result<std::vector<KeyedDraw>> DrawsHeldBefore(Ledger& ledger, Instant start, Duration step,
                                               std::span<const std::string> clusters) {
  std::vector<KeyedDraw> out;
  GPUCOST_ASSIGN_OR_RETURN(const std::optional<Window> span, ledger.Span());
  if (!span || step.count() <= 0 || start - step < span->start || start > span->end) return out;
  ReadOptions options;
  options.clusters.assign(clusters.begin(), clusters.end());
  // A step of another length, or off the ledger's grid: nothing to carry.
  Result<LedgerWindow> read = ledger.Read(Window{start - step, start}, options);
  if (!read.ok()) return out;
  if (read->step != step) return out;
  const Inventory& inv = read->inventory;
  // (holder, node, resource) -> units, in unit order as the pool lists them.
  std::map<std::tuple<HolderIndex, NodeIndex, std::string>, std::vector<UnitIndex>> held;
  for (const CostRecord& r : read->records) {
    if (r.is_idle() || r.holder >= inv.holders.size() || r.unit >= inv.units.size()) continue;
    const GpuUnit& unit = inv.units[r.unit];
    held[{r.holder, unit.node, unit.resource}].push_back(r.unit);
  }
  for (auto& [key, units] : held) {
    const auto& [holder, node, resource] = key;
    KeyedDraw d{HolderIdentity(inv.holders[holder]), NodeIdentity(inv.nodes[node]), resource, {}};
    std::sort(units.begin(), units.end());
    units.erase(std::unique(units.begin(), units.end()), units.end());
    for (UnitIndex u : units) d.units.push_back(UnitIdentity(inv.nodes[node], inv.units[u]));
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace gpucost::ledger
