#include "attribution/inventory_union.h"

#include <charconv>
#include <string_view>
#include <unordered_set>
#include <utility>

#include "attribution/engine_common.h"
#include "core/strings.h"

namespace gpucost {
namespace {

template <typename Index, typename T>
Index Intern(std::unordered_map<std::string, Index>& ids, std::string key, std::vector<T>& into,
             const T& value) {
  auto [it, added] = ids.try_emplace(std::move(key), static_cast<Index>(into.size()));
  if (added) into.push_back(value);
  return it->second;
}

// Maps every index of `draw` through the three tables; false when one has no entry.
template <typename MapNode, typename MapUnit, typename MapHolder>
bool MapDraw(const PoolDraw& draw, PoolDraw& out, MapNode node, MapUnit unit, MapHolder holder) {
  out.resource = draw.resource;
  out.node = node(draw.node);
  out.holder = holder(draw.holder);
  if (out.node == kNoIndex || out.holder == kNoIndex) return false;
  out.units.clear();
  for (UnitIndex u : draw.units) {
    out.units.push_back(unit(u));
    if (out.units.back() == kNoIndex) return false;
  }
  return true;
}

template <typename Index>
Index At(const std::vector<Index>& v, uint32_t i) {
  return i < v.size() ? v[i] : kNoIndex;
}

// The union index -> segment index tables of `to`, for the entries `draws` name.
template <typename Index>
std::unordered_map<uint32_t, Index> Inverse(const std::vector<Index>& to) {
  std::unordered_map<uint32_t, Index> out;
  out.reserve(to.size());
  for (size_t i = 0; i < to.size(); ++i) out.emplace(to[i], static_cast<Index>(i));
  return out;
}

template <typename Index>
Index Find(const std::unordered_map<uint32_t, Index>& m, uint32_t i) {
  auto it = m.find(i);
  return it == m.end() ? kNoIndex : it->second;
}

constexpr std::string_view kMorePrefix = "... and ";

}  // namespace

SegmentIndexes InventoryUnion::Add(const Inventory& segment) {
  SegmentIndexes out;
  out.nodes.reserve(segment.nodes.size());
  for (const Node& n : segment.nodes) {
    Node kept = n;
    kept.present.clear();  // when it existed is the segments' business
    out.nodes.push_back(Intern(nodes_, NodeIdentity(n), inventory_.nodes, kept));
  }
  out.units.reserve(segment.units.size());
  for (const GpuUnit& u : segment.units) {
    if (u.node >= segment.nodes.size()) {  // not an inventory the engine attributes
      out.units.push_back(kNoIndex);
      continue;
    }
    GpuUnit kept = u;
    kept.node = out.nodes[u.node];
    kept.present.clear();
    out.units.push_back(
        Intern(units_, UnitIdentity(segment.nodes[u.node], u), inventory_.units, kept));
  }
  out.holders.reserve(segment.holders.size());
  for (const Holder& h : segment.holders) {
    out.holders.push_back(Intern(holders_, HolderIdentity(h), inventory_.holders, h));
  }
  return out;
}

std::vector<PoolDraw> InventoryUnion::ToUnion(std::span<const PoolDraw> draws,
                                              const SegmentIndexes& from) const {
  std::vector<PoolDraw> out;
  PoolDraw mapped;
  for (const PoolDraw& d : draws) {
    if (MapDraw(
            d, mapped, [&](uint32_t i) { return At(from.nodes, i); },
            [&](uint32_t i) { return At(from.units, i); },
            [&](uint32_t i) { return At(from.holders, i); })) {
      out.push_back(mapped);
    }
  }
  return out;
}

std::vector<PoolDraw> InventoryUnion::ToSegment(std::span<const PoolDraw> draws,
                                                const SegmentIndexes& to) const {
  std::vector<PoolDraw> out;
  if (draws.empty()) return out;
  const auto nodes = Inverse(to.nodes);
  const auto units = Inverse(to.units);
  const auto holders = Inverse(to.holders);
  PoolDraw mapped;
  for (const PoolDraw& d : draws) {
    if (MapDraw(
            d, mapped, [&](uint32_t i) { return Find(nodes, i); },
            [&](uint32_t i) { return Find(units, i); },
            [&](uint32_t i) { return Find(holders, i); })) {
      out.push_back(mapped);
    }
  }
  return out;
}

std::vector<KeyedDraw> KeyDraws(const Inventory& inventory, std::span<const PoolDraw> draws) {
  std::vector<KeyedDraw> out;
  out.reserve(draws.size());
  for (const PoolDraw& d : draws) {
    if (d.holder >= inventory.holders.size() || d.node >= inventory.nodes.size()) continue;
    KeyedDraw k{HolderIdentity(inventory.holders[d.holder]),
                NodeIdentity(inventory.nodes[d.node]),
                d.resource,
                {}};
    for (UnitIndex u : d.units) {
      if (u < inventory.units.size()) {
        const GpuUnit& unit = inventory.units[u];
        k.units.push_back(UnitIdentity(inventory.nodes[d.node], unit));
      }
    }
    if (k.units.size() == d.units.size()) out.push_back(std::move(k));
  }
  return out;
}

std::vector<PoolDraw> FindDraws(const Inventory& inventory, std::span<const KeyedDraw> draws) {
  std::vector<PoolDraw> out;
  if (draws.empty()) return out;
  std::unordered_map<std::string, HolderIndex> holders;
  for (HolderIndex h = 0; h < inventory.holders.size(); ++h) {
    holders.emplace(HolderIdentity(inventory.holders[h]), h);
  }
  std::unordered_map<std::string, NodeIndex> nodes;
  for (NodeIndex n = 0; n < inventory.nodes.size(); ++n) {
    nodes.emplace(NodeIdentity(inventory.nodes[n]), n);
  }
  std::unordered_map<std::string, UnitIndex> units;
  for (UnitIndex u = 0; u < inventory.units.size(); ++u) {
    const GpuUnit& unit = inventory.units[u];
    if (unit.node >= inventory.nodes.size()) continue;
    units.emplace(UnitIdentity(inventory.nodes[unit.node], unit), u);
  }
  for (const KeyedDraw& k : draws) {
    const auto h = holders.find(k.holder);
    const auto n = nodes.find(k.node);
    if (h == holders.end() || n == nodes.end()) continue;
    PoolDraw d{h->second, n->second, k.resource, {}};
    for (const std::string& key : k.units) {
      const auto u = units.find(key);
      if (u == units.end()) break;
      d.units.push_back(u->second);
    }
    if (d.units.size() == k.units.size()) out.push_back(std::move(d));
  }
  return out;
}

void SegmentSink::Consume(std::span<const CostRecord> records) {
  batch_.assign(records.begin(), records.end());
  for (CostRecord& r : batch_) {
    r.step += first_step_;
    r.unit = At(indexes_.units, r.unit);
    if (!r.is_idle()) r.holder = At(indexes_.holders, r.holder);
  }
  sink_.Consume(batch_);
}

void AddSegmentSummary(AttributionSummary& whole, AttributionSummary segment) {
  whole.steps += segment.steps;
  whole.records += segment.records;
  whole.node_cost_usd += segment.node_cost_usd;
  whole.allocated_usd += segment.allocated_usd;
  whole.idle_usd += segment.idle_usd;
  whole.unpriced_gpu_hours += segment.unpriced_gpu_hours;
  whole.unplaced_request_gpu_hours += segment.unplaced_request_gpu_hours;
  whole.oversubscribed_unit_steps += segment.oversubscribed_unit_steps;
  whole.open_draws = std::move(segment.open_draws);

  // "... and N more warnings" closes a capped list: counted, then said once at the end.
  int64_t more = 0;
  const auto take_more = [&more](std::vector<std::string>& list) {
    if (list.empty() || !list.back().starts_with(kMorePrefix)) return;
    const std::string_view rest = std::string_view(list.back()).substr(kMorePrefix.size());
    int64_t n = 0;
    std::from_chars(rest.data(), rest.data() + rest.size(), n);
    more += n;
    list.pop_back();
  };
  take_more(whole.warnings);
  take_more(segment.warnings);
  std::unordered_set<std::string> seen(whole.warnings.begin(), whole.warnings.end());
  for (std::string& w : segment.warnings) {
    if (!seen.insert(w).second) continue;
    if (whole.warnings.size() >= attribution::Warnings::kMax) {
      ++more;
      continue;
    }
    whole.warnings.push_back(std::move(w));
  }
  if (more > 0) whole.warnings.push_back(attribution::MoreWarnings(more));
}

}  // namespace gpucost
