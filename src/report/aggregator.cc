#include "report/aggregator.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "core/strings.h"
#include "report/idle_sharing.h"

namespace gpucost {
namespace {

uint64_t PairKey(UnitIndex unit, HolderIndex holder) {
  return (static_cast<uint64_t>(unit) << 32) | holder;
}

// Row order: bucket, then idle rows last, sorted among themselves by values; other rows by
// allocated descending (null last), then values.
bool RowBefore(const ReportRow& a, const ReportRow& b) {
  if (a.bucket != b.bucket) return a.bucket < b.bucket;
  if (a.is_idle != b.is_idle) return !a.is_idle;
  if (a.is_idle) return a.values < b.values;
  const double x = std::isnan(a.allocated_usd) ? -INFINITY : a.allocated_usd;
  const double y = std::isnan(b.allocated_usd) ? -INFINITY : b.allocated_usd;
  if (x != y) return x > y;
  return a.values < b.values;
}

// Sums a column over rows, skipping nulls; null when every row is null.
template <typename Get>
double SumColumn(const std::vector<ReportRow>& rows, Get get) {
  CompensatedSum sum;
  bool any = false;
  for (const ReportRow& r : rows) {
    const double v = get(r);
    if (std::isnan(v)) continue;
    sum.Add(v);
    any = true;
  }
  return any ? sum.value() : NAN;
}

// The first instant of the UTC month after the one `t` is in.
Instant AggregatorMonthAfter(Instant t) {
  const std::chrono::year_month_day d{std::chrono::floor<std::chrono::days>(t)};
  const std::chrono::year_month next =
      std::chrono::year_month{d.year(), d.month()} + std::chrono::months(1);
  return Instant(std::chrono::sys_days{next / std::chrono::day{1}});
}

}  // namespace

size_t Aggregator::CellKeyHash::operator()(const std::pair<int64_t, uint64_t>& k) const {
  return HashCombine(static_cast<uint64_t>(k.first), k.second);
}

Aggregator::Aggregator(const Inventory& inventory, AggregatorOptions options)
    : inventory_(&inventory), options_(std::move(options)) {}

Result<Aggregator> Aggregator::Create(const Inventory& inventory, AggregatorOptions options) {
  if (options.by.empty()) return Status::InvalidArgument("report: no dimension to group by");
  if (options.window.empty()) return Status::InvalidArgument("report: empty window");
  if (options.engine_step.count() <= 0) return Status::InvalidArgument("report: step must be > 0");
  if (options.output_step.count() == 0) options.output_step = options.engine_step;
  if (options.output_step.count() < 0 ||
      options.output_step.count() % options.engine_step.count() != 0) {
    return Status::InvalidArgument(StrCat(
        "report: output step ", FormatDuration(options.output_step),
        " is not a whole multiple of the engine step ", FormatDuration(options.engine_step)));
  }
  Aggregator agg(inventory, std::move(options));
  const AggregatorOptions& o = agg.options_;
  if (o.accumulate) {
    agg.steps_per_bucket_ = 0;
    agg.bucket_count_ = 1;
  } else if (o.calendar_months) {
    agg.steps_per_bucket_ = 0;
    agg.month_edges_.push_back(o.window.start);
    for (Instant t = AggregatorMonthAfter(o.window.start); t < o.window.end;
         t = AggregatorMonthAfter(t)) {
      const int64_t ms = (t - o.window.start).count();
      const int64_t step_ms = o.engine_step.count();
      // A step across a month's start would count whole in one month, where chargeback --month
      // and FOCUS cut it: refused, as a ledger read that cuts a step is.
      if (ms % step_ms != 0) {
        return Status::InvalidArgument(StrCat(
            "--every month: the month from ", FormatRfc3339(t), " starts inside a step of ",
            FormatDuration(o.engine_step), " (steps from ", FormatRfc3339(o.window.start),
            "): a step that divides a day (--step; with --ledger, the step it was written "
            "with), on a window that starts on its grid, puts every month's start on a step"));
      }
      agg.month_first_steps_.push_back(ms / step_ms);
      agg.month_edges_.push_back(t);
    }
    agg.month_edges_.push_back(o.window.end);
    agg.bucket_count_ = static_cast<int64_t>(agg.month_edges_.size()) - 1;
  } else {
    agg.steps_per_bucket_ = o.output_step.count() / o.engine_step.count();
    agg.bucket_count_ = StepCount(o.window, o.output_step);
  }
  agg.node_cluster_.assign(inventory.nodes.size(), kNoIndex);
  return agg;
}

uint32_t Aggregator::ScopeOf(UnitIndex unit) {
  if (options_.idle.policy == IdlePolicy::kSeparate) return 0;
  const NodeIndex node = inventory_->units[unit].node;
  if (options_.idle.scope == IdleScope::kNode) return node;
  // The inventory may have grown since (InventoryUnion, one segment after the other).
  if (node >= node_cluster_.size()) node_cluster_.resize(inventory_->nodes.size(), kNoIndex);
  uint32_t& id = node_cluster_[node];
  if (id == kNoIndex) {
    const auto [it, inserted] = cluster_ids_.try_emplace(
        inventory_->nodes[node].cluster, static_cast<uint32_t>(cluster_ids_.size()));
    id = it->second;
  }
  return id;
}

const Aggregator::PairInfo& Aggregator::Lookup(UnitIndex unit, HolderIndex holder) {
  const uint64_t key = PairKey(unit, holder);
  if (auto it = pairs_.find(key); it != pairs_.end()) return it->second;
  // Idle capacity is grouped by its capacity values (cluster, node, model, node labels) and
  // carries __idle__ where a holder would have a value.
  const bool is_idle = holder == kNoIndex;
  std::vector<std::string> values;
  std::string joined;
  if (is_idle) joined += '\x1e';  // record separator: marks idle groups
  values.reserve(options_.by.size());
  for (const Dimension& dim : options_.by) {
    values.emplace_back(is_idle ? IdleDimensionValue(*inventory_, dim, unit)
                                : DimensionValue(*inventory_, dim, unit, holder));
    joined += values.back();
    joined += '\x1f';  // unit separator: cannot appear in Kubernetes names
  }
  const auto [it, inserted] =
      group_ids_.try_emplace(std::move(joined), static_cast<uint32_t>(groups_.size()));
  if (inserted) groups_.push_back(Group{std::move(values), is_idle});
  return pairs_.emplace(key, PairInfo{it->second, ScopeOf(unit)}).first->second;
}

Aggregator::Cell& Aggregator::CellFor(int64_t bucket, uint32_t group, uint32_t scope) {
  const std::pair<int64_t, uint64_t> key{bucket, (static_cast<uint64_t>(group) << 32) | scope};
  const auto [it, inserted] = cell_index_.try_emplace(key, cells_.size());
  if (inserted) {
    Cell cell;
    cell.bucket = bucket;
    cell.group = group;
    cell.scope = scope;
    cell.is_idle = groups_[group].is_idle;
    cells_.push_back(std::move(cell));
  }
  return cells_[it->second];
}

int64_t Aggregator::BucketOf(int64_t step) const {
  if (steps_per_bucket_ > 0) return step / steps_per_bucket_;
  if (month_first_steps_.empty()) return 0;
  return std::upper_bound(month_first_steps_.begin(), month_first_steps_.end(), step) -
         month_first_steps_.begin();
}

void Aggregator::CountHolder(int64_t bucket, uint32_t scope, HolderIndex holder, Cell& cell) {
  if (holder_seen_.insert({bucket, (static_cast<uint64_t>(scope) << 32) | holder}).second) {
    ++cell.holders;
  }
}

void Aggregator::Consume(std::span<const CostRecord> records) {
  const bool count_holders = options_.idle.policy == IdlePolicy::kEven;
  for (const CostRecord& r : records) {
    const PairInfo info = Lookup(r.unit, r.holder);
    const int64_t bucket = BucketOf(r.step);
    Cell& cell = CellFor(bucket, info.group, info.scope);
    if (r.is_idle()) {
      cell.acc.AddIdle(r);
    } else {
      cell.acc.AddHolder(r, inventory_->holders[r.holder].billing_per_gpu_hour);
      if (count_holders) CountHolder(bucket, info.scope, r.holder, cell);
    }
    kind_hours_[static_cast<size_t>(inventory_->units[r.unit].kind())].Add(r.gpu_hours);
    if (r.price_known && std::isfinite(r.allocated_usd)) {
      cost_usd_.Add(r.allocated_usd);
      source_hours_[static_cast<size_t>(r.price_source)].Add(r.gpu_hours);
    } else {
      any_unpriced_ = true;
      source_hours_[static_cast<size_t>(PriceSource::kUnknown)].Add(r.gpu_hours);
    }
  }
}

void Aggregator::ConsumeRolled(std::span<const RolledRecord> rolled) {
  const bool count_holders = options_.idle.policy == IdlePolicy::kEven;
  for (const RolledRecord& r : rolled) {
    const PairInfo info = Lookup(r.unit, r.holder);
    const int64_t bucket = BucketOf(r.step);
    Cell& cell = CellFor(bucket, info.group, info.scope);
    if (r.is_idle()) {
      cell.acc.AddSums(r.sums);
      cost_usd_.Add(r.sums.idle_usd);
    } else {
      cell.acc.AddSums(r.sums, inventory_->holders[r.holder].billing_per_gpu_hour);
      cost_usd_.Add(r.sums.allocated_usd);
      if (count_holders) CountHolder(bucket, info.scope, r.holder, cell);
    }
    if (r.unpriced_records > 0) any_unpriced_ = true;
    // Its hours by price source, as its records' would be: the priced ones of its one source,
    // the rest unknown. A roll-up of several sources (or older than the field) has none.
    if (r.sums.unpriced_hours > 0) {
      source_hours_[static_cast<size_t>(PriceSource::kUnknown)].Add(r.sums.unpriced_hours);
    }
    if (r.sums.priced_hours > 0) {
      if (r.price_source >= 0) {
        source_hours_[static_cast<size_t>(r.price_source)].Add(r.sums.priced_hours);
      } else {
        sources_known_ = false;
      }
    }
    kind_hours_[static_cast<size_t>(inventory_->units[r.unit].kind())].Add(r.sums.priced_hours +
                                                                           r.sums.unpriced_hours);
  }
}

Report Aggregator::Finish() const {
  Report report;
  report.window = options_.window;
  report.accumulated = options_.accumulate;
  report.step = options_.accumulate ? options_.window.length() : options_.output_step;
  report.calendar_months = !options_.accumulate && options_.calendar_months;
  report.engine_step = options_.engine_step;
  report.by = options_.by;
  report.idle = options_.idle;

  std::vector<Cell> cells = cells_;
  ShareIdle(options_.idle.policy, cells);

  // Merge scopes: one accumulator per (bucket, group), in a deterministic order.
  std::map<std::pair<int64_t, uint32_t>, RowAccumulator> merged;
  RowAccumulator all_holders;
  for (const Cell& cell : cells) {
    merged[{cell.bucket, cell.group}].Merge(cell.acc);
    if (!cell.is_idle) all_holders.Merge(cell.acc);
  }
  for (const auto& [key, acc] : merged) {
    const bool is_idle = groups_[key.second].is_idle;
    if (is_idle && acc.empty()) continue;  // all of its idle was shared
    ReportRow row;
    row.bucket = key.first;
    if (options_.accumulate) {
      row.start = options_.window.start;
      row.end = options_.window.end;
    } else if (options_.calendar_months) {
      row.start = month_edges_[static_cast<size_t>(key.first)];
      row.end = month_edges_[static_cast<size_t>(key.first) + 1];
    } else {
      row.start = options_.window.start + options_.output_step * key.first;
      row.end = std::min(row.start + options_.output_step, options_.window.end);
    }
    row.values = groups_[key.second].values;
    acc.Fill(is_idle, row);
    report.rows.push_back(std::move(row));
  }
  std::sort(report.rows.begin(), report.rows.end(), RowBefore);

  for (UnitKind kind : {UnitKind::kGpu, UnitKind::kNeuronDevice}) {
    const double hours = kind_hours_[static_cast<size_t>(kind)].value();
    if (hours > 0) report.unit_kind_hours.emplace_back(UnitKindName(kind), hours);
  }
  if (sources_known_) {
    for (size_t i = 0; i < kPriceSourceCount; ++i) {
      const double hours = source_hours_[i].value();
      if (hours > 0) {
        report.price_sources.emplace_back(PriceSourceName(static_cast<PriceSource>(i)), hours);
      }
    }
  } else {
    report.price_sources_known = false;
  }

  ReportTotals& t = report.totals;
  const auto& rows = report.rows;
  t.gpu_hours = SumColumn(rows, [](const ReportRow& r) { return r.gpu_hours; });
  t.allocated_usd = SumColumn(rows, [](const ReportRow& r) { return r.allocated_usd; });
  t.effective_usd = SumColumn(rows, [](const ReportRow& r) { return r.effective_usd; });
  t.waste_usd = SumColumn(rows, [](const ReportRow& r) { return r.waste_usd; });
  t.idle_usd = SumColumn(rows, [](const ReportRow& r) { return r.idle_usd; });
  t.unmeasured_gpu_hours =
      SumColumn(rows, [](const ReportRow& r) { return r.unmeasured_gpu_hours; });
  t.unpriced_gpu_hours = SumColumn(rows, [](const ReportRow& r) { return r.unpriced_gpu_hours; });
  t.activity_gpu_hours = SumColumn(rows, [](const ReportRow& r) { return r.activity_gpu_hours; });
  t.billing_units = SumColumn(rows, [](const ReportRow& r) { return r.billing_units; });
  if (rows.empty())
    t.gpu_hours = t.unmeasured_gpu_hours = t.unpriced_gpu_hours = t.activity_gpu_hours = 0;
  // Idle received is already inside the holders' allocated, so only unshared idle is added.
  t.cost_usd =
      SumColumn(rows, [](const ReportRow& r) { return r.is_idle ? r.idle_usd : r.allocated_usd; });
  for (const ReportRow& r : rows) {
    t.estimated = t.estimated || r.estimated;
    t.oversubscribed = t.oversubscribed || r.oversubscribed;
  }
  t.prices_known = !any_unpriced_;
  ReportRow whole;
  all_holders.Fill(false, whole);
  t.utilization = whole.utilization;
  if (!std::isnan(t.effective_usd) && t.allocated_usd > 0)
    t.efficiency = t.effective_usd / t.allocated_usd;
  return report;
}

}  // namespace gpucost
