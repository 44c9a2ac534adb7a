#include "report/focus_export.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <tuple>

#include "core/money.h"
#include "core/strings.h"

namespace gpucost {
namespace {

constexpr uint32_t kNoSpan = 0xffffffffu;

Instant NextMonthStart(Instant t) {
  const std::chrono::year_month_day ymd(std::chrono::floor<std::chrono::days>(t));
  const std::chrono::year_month next = ymd.year() / ymd.month() + std::chrono::months(1);
  return Instant(std::chrono::sys_days(next / 1));
}

}  // namespace

std::string_view FocusVersionName(FocusVersion v) {
  return v == FocusVersion::k1_4 ? "1.4" : "1.3";
}

std::optional<FocusVersion> ParseFocusVersion(std::string_view s) {
  if (s == "1.3") return FocusVersion::k1_3;
  if (s == "1.4") return FocusVersion::k1_4;
  return std::nullopt;
}

size_t FocusExporter::KeyHash::operator()(const Key& k) const {
  uint64_t h = static_cast<uint64_t>(k.bucket) * 0x9E3779B97F4A7C15ull;
  h ^= (static_cast<uint64_t>(k.segment) << 32 | k.node) + 0x7F4A7C159E3779B9ull + (h << 6) +
       (h >> 2);
  h ^= static_cast<uint64_t>(k.holder) * 0xC2B2AE3D27D4EB4Full + (h << 6) + (h >> 2);
  return static_cast<size_t>(h);
}

Result<FocusExporter> FocusExporter::Create(const Inventory& inventory, const PriceFn& price,
                                            FocusOptions options) {
  if (options.window.empty()) return Status::InvalidArgument("FOCUS export: empty window");
  if (options.engine_step.count() <= 0) {
    return Status::InvalidArgument("FOCUS export: the step must be positive");
  }
  if (options.idle.policy != IdlePolicy::kSeparate && options.idle.scope != IdleScope::kNode) {
    return Status::InvalidArgument(StrCat(
        "FOCUS export shares idle within a node only (each node's GPU cost in a charge period "
        "is one origin charge, and FOCUS allocated charges carry their origin's ResourceId): "
        "use --idle-scope node with --idle ",
        IdlePolicyName(options.idle.policy), ", or --idle separate"));
  }
  FocusExporter e;
  e.inventory_ = &inventory;
  e.options_ = std::move(options);
  const Window w = e.options_.window;
  const size_t nodes = inventory.nodes.size();
  e.prices_.resize(nodes);
  e.segments_.resize(nodes);
  e.unpriced_.assign(nodes, false);
  e.slurm_node_.assign(nodes, false);

  std::vector<bool> has_units(nodes, false);
  for (const GpuUnit& u : inventory.units) {
    if (u.node < nodes) has_units[u.node] = true;
  }
  for (const Holding& h : inventory.holdings) {
    if (h.node < nodes && h.holder < inventory.holders.size() &&
        inventory.holders[h.holder].kind == HolderKind::kSlurmJob) {
      e.slurm_node_[h.node] = true;
    }
  }

  // Calendar cuts shared by every node: UTC month starts, and UTC day starts unless per step.
  std::vector<Instant> calendar;
  for (Instant t = NextMonthStart(w.start); t < w.end; t = NextMonthStart(t)) {
    calendar.push_back(t);
  }
  if (!e.options_.per_step) {
    const Instant first_day = Instant(std::chrono::floor<std::chrono::days>(w.start)) +
                              std::chrono::days(1);
    for (Instant t = first_day; t < w.end; t += std::chrono::days(1)) calendar.push_back(t);
  }

  for (NodeIndex n = 0; n < nodes; ++n) {
    if (!has_units[n]) continue;
    for (PricePeriod p : price(inventory.nodes[n], w)) {
      p.interval.start = std::max(p.interval.start, w.start);
      p.interval.end = std::min(p.interval.end, w.end);
      if (p.interval.end > p.interval.start) e.prices_[n].push_back(std::move(p));
    }
    std::sort(e.prices_[n].begin(), e.prices_[n].end(),
              [](const PricePeriod& a, const PricePeriod& b) {
                return a.interval.start < b.interval.start;
              });
    std::vector<Instant> bounds = calendar;
    bounds.push_back(w.start);
    bounds.push_back(w.end);
    for (const PricePeriod& p : e.prices_[n]) {
      bounds.push_back(p.interval.start);
      bounds.push_back(p.interval.end);
    }
    std::sort(bounds.begin(), bounds.end());
    bounds.erase(std::unique(bounds.begin(), bounds.end()), bounds.end());
    size_t span = 0;
    for (size_t i = 0; i + 1 < bounds.size(); ++i) {
      Segment s{bounds[i], bounds[i + 1], kNoSpan};
      const auto& ps = e.prices_[n];
      while (span < ps.size() && ps[span].interval.end <= s.start) ++span;
      if (span < ps.size() && ps[span].interval.start <= s.start) {
        s.span = static_cast<uint32_t>(span);
      }
      e.segments_[n].push_back(s);
    }
  }
  return e;
}

void FocusExporter::Add(const CostRecord& r, NodeIndex node, int64_t bucket, uint32_t segment,
                        double hours_f, double cost_f, double list_f) {
  const Key key{bucket, segment, node, r.holder};
  auto [it, inserted] = index_.try_emplace(key, static_cast<uint32_t>(charges_.size()));
  if (inserted) {
    const Segment& seg = segments_[node][segment];
    FocusCharge c;
    c.node = node;
    c.holder = r.holder;
    c.span = seg.span;
    c.period_start = seg.start;
    c.period_end = seg.end;
    if (options_.per_step) {
      const Instant step_start = options_.window.start + bucket * options_.engine_step;
      c.period_start = std::max(c.period_start, step_start);
      c.period_end = std::min(c.period_end, step_start + options_.engine_step);
    }
    charges_.push_back(std::move(c));
  }
  FocusCharge& c = charges_[it->second];
  c.held_gpu_hours += r.gpu_hours * hours_f;
  c.cost_usd += r.allocated_usd * cost_f;
  c.list_usd += (std::isnan(r.list_usd) ? r.allocated_usd : r.list_usd) * list_f;
  if (!r.is_idle()) {
    if (!std::isnan(r.effective_usd)) {
      c.utilized_usd += r.effective_usd * cost_f;
      c.measured_cost_usd += r.allocated_usd * cost_f;
    }
    c.unmeasured_gpu_hours += r.unmeasured_gpu_hours * hours_f;
    c.estimated = c.estimated || r.estimated;
  }
  if (std::find(c.units.begin(), c.units.end(), r.unit) == c.units.end()) c.units.push_back(r.unit);
}

void FocusExporter::Consume(std::span<const CostRecord> records) {
  const Window w = options_.window;
  const Duration step = options_.engine_step;
  for (const CostRecord& r : records) {
    if (r.unit >= inventory_->units.size()) continue;
    const NodeIndex node = inventory_->units[r.unit].node;
    if (node >= segments_.size() || segments_[node].empty()) continue;
    if (!(r.gpu_hours > 0) && !(r.allocated_usd > 0)) continue;
    if (!r.price_known) {
      unpriced_[node] = true;
      continue;
    }
    const Instant a = w.start + r.step * step;
    const Instant b = std::min(a + step, w.end);
    const int64_t bucket = options_.per_step ? r.step : 0;
    const std::vector<Segment>& segs = segments_[node];
    auto it = std::upper_bound(segs.begin(), segs.end(), a,
                               [](Instant t, const Segment& s) { return t < s.start; });
    const size_t first = it == segs.begin() ? 0 : static_cast<size_t>(it - segs.begin()) - 1;
    if (segs[first].end >= b) {
      Add(r, node, bucket, static_cast<uint32_t>(first), 1, 1, 1);
      continue;
    }
    // The step crosses a day, month or price boundary (its grid is not aligned with UTC
    // midnight): split the record in proportion to time, money weighted by each side's price.
    double wt = 0, wc = 0, wl = 0;
    size_t last = first;
    for (size_t i = first; i < segs.size() && segs[i].start < b; ++i) {
      last = i;
      const double ms = static_cast<double>(
          (std::min(b, segs[i].end) - std::max(a, segs[i].start)).count());
      wt += ms;
      if (segs[i].span != kNoSpan) {
        const PricePeriod& p = prices_[node][segs[i].span];
        wc += ms * p.usd_per_gpu_hour;
        wl += ms * p.list_or_price();
      }
    }
    for (size_t i = first; i <= last; ++i) {
      const double ms = static_cast<double>(
          (std::min(b, segs[i].end) - std::max(a, segs[i].start)).count());
      double p = 0, lp = 0;
      if (segs[i].span != kNoSpan) {
        p = prices_[node][segs[i].span].usd_per_gpu_hour;
        lp = prices_[node][segs[i].span].list_or_price();
      }
      const double ft = ms / wt;
      Add(r, node, bucket, static_cast<uint32_t>(i), ft, wc > 0 ? ms * p / wc : ft,
          wl > 0 ? ms * lp / wl : ft);
    }
  }
}

Result<FocusTable> FocusExporter::Finish() const {
  const Inventory& inv = *inventory_;
  std::vector<std::string> missing;
  for (NodeIndex n = 0; n < unpriced_.size(); ++n) {
    if (unpriced_[n]) missing.push_back(inv.nodes[n].name);
  }
  if (!missing.empty()) {
    std::sort(missing.begin(), missing.end());
    std::string names;
    for (size_t i = 0; i < missing.size() && i < 20; ++i) {
      if (i > 0) names += ", ";
      names += missing[i];
    }
    if (missing.size() > 20) names += StrCat(" and ", missing.size() - 20, " more");
    return Status::InvalidArgument(StrCat(
        "FOCUS export: no price for the GPU time of ", missing.size() == 1 ? "node " : "nodes ",
        names,
        "; FOCUS costs cannot be null and gpucost never writes an unknown cost as zero (give "
        "--price-per-gpu-hour, or a --prices rule that matches ",
        missing.size() == 1 ? "it" : "them", ")"));
  }

  FocusTable t;
  t.inventory = inventory_;
  t.options = options_;
  t.prices = prices_;
  t.slurm_node = slurm_node_;
  t.charges = charges_;

  // Rows: by period, cluster, node; within an origin charge the holders by name, idle last.
  std::vector<uint32_t> order(t.charges.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  const auto holder_key = [&](HolderIndex h) {
    const Holder& x = inv.holders[h];
    return std::tie(x.namespace_name, x.pod, x.container);
  };
  std::sort(order.begin(), order.end(), [&](uint32_t ia, uint32_t ib) {
    const FocusCharge& a = t.charges[ia];
    const FocusCharge& b = t.charges[ib];
    if (a.period_start != b.period_start) return a.period_start < b.period_start;
    const Node& na = inv.nodes[a.node];
    const Node& nb = inv.nodes[b.node];
    if (std::tie(na.cluster, na.name) != std::tie(nb.cluster, nb.name)) {
      return std::tie(na.cluster, na.name) < std::tie(nb.cluster, nb.name);
    }
    if (a.node != b.node) return a.node < b.node;
    const bool ai = a.holder == kNoIndex, bi = b.holder == kNoIndex;
    if (ai != bi) return bi;
    if (ai) return false;
    if (holder_key(a.holder) != holder_key(b.holder)) {
      return holder_key(a.holder) < holder_key(b.holder);
    }
    return a.holder < b.holder;
  });
  std::vector<FocusCharge> sorted;
  sorted.reserve(order.size());
  for (uint32_t i : order) sorted.push_back(std::move(t.charges[i]));

  // Origin charges are runs of (period start, node); share idle and compute the ratios.
  std::vector<FocusCharge> out;
  out.reserve(sorted.size());
  CompensatedSum total;
  for (size_t begin = 0; begin < sorted.size();) {
    size_t end = begin + 1;
    while (end < sorted.size() && sorted[end].period_start == sorted[begin].period_start &&
           sorted[end].node == sorted[begin].node) {
      ++end;
    }
    const bool has_idle = sorted[end - 1].holder == kNoIndex;
    const size_t holders_end = has_idle ? end - 1 : end;
    bool idle_shared = false;
    if (has_idle && holders_end > begin && options_.idle.policy != IdlePolicy::kSeparate) {
      double weight = 0;
      for (size_t i = begin; i < holders_end; ++i) {
        weight += options_.idle.policy == IdlePolicy::kEven ? 1.0 : sorted[i].cost_usd;
      }
      if (weight > 0) {
        const FocusCharge& idle = sorted[end - 1];
        for (size_t i = begin; i < holders_end; ++i) {
          const double f =
              (options_.idle.policy == IdlePolicy::kEven ? 1.0 : sorted[i].cost_usd) / weight;
          sorted[i].idle_gpu_hours = idle.held_gpu_hours * f;
          sorted[i].idle_usd = idle.cost_usd * f;
          sorted[i].idle_list_usd = idle.list_usd * f;
        }
        idle_shared = true;
      }
    }
    const size_t kept_end = idle_shared ? holders_end : end;
    double origin_cost = 0, origin_hours = 0;
    for (size_t i = begin; i < kept_end; ++i) {
      origin_cost += sorted[i].effective_usd();
      origin_hours += sorted[i].pricing_gpu_hours();
    }
    for (size_t i = begin; i < kept_end; ++i) {
      FocusCharge& c = sorted[i];
      if (origin_cost > 0) {
        c.held_ratio = c.cost_usd / origin_cost;
        c.idle_ratio = c.idle_usd / origin_cost;
      } else if (origin_hours > 0) {  // a price of zero: split by hours
        c.held_ratio = c.held_gpu_hours / origin_hours;
        c.idle_ratio = c.idle_gpu_hours / origin_hours;
      }
      total.Add(c.effective_usd());
      out.push_back(std::move(c));
    }
    begin = end;
  }
  t.charges = std::move(out);
  t.effective_cost_usd = total.value();
  return t;
}

}  // namespace gpucost
