#include "alerts/alert_sink.h"

#include <algorithm>
#include <cmath>

#include "alerts/budgets.h"

namespace gpucost::alerts {
namespace {

// The tail keeps a day, or twice the longest idle duration: enough to tell an idle run's start
// in most cases while memory stays holders x tail steps.
Duration TailSpan(const AlertSettings& s) {
  return std::max<Duration>(std::chrono::hours(24),
                            2 * std::max(s.idle_for, s.notebook_idle_for));
}

}  // namespace

AlertSink::AlertSink(const Inventory& inventory, AlertRun run)
    : inventory_(&inventory), run_(std::move(run)) {
  const Window& w = run_.window;
  last_step_ = StepCount(w, run_.step) - 1;
  const int64_t tail_steps = std::max<int64_t>(
      1, StepCount(Window{w.start, w.start + TailSpan(run_.settings)}, run_.step));
  tail_first_ = std::max<int64_t>(0, last_step_ - tail_steps + 1);
  ratio_window_ = Window{std::max(w.start, w.end - run_.settings.ratio_window), w.end};
  month_ = MonthOf(w.end - Duration(1));
  rate_window_ = RateWindow(w.end, w.start, run_.settings.forecast_lookback);
  holder_tail_.resize(inventory.holders.size());
  holder_node_.assign(inventory.holders.size(), kNoIndex);
  holder_team_.assign(inventory.holders.size(), nullptr);
  nodes_.resize(inventory.nodes.size());
}

const std::string& AlertSink::TeamOf(const Holder& holder) {
  return holder.team.empty() ? holder.namespace_name : holder.team;
}

std::span<const StepUse> AlertSink::HolderTail(HolderIndex holder) const {
  if (holder >= holder_tail_.size()) return {};
  return holder_tail_[holder];
}

NodeIndex AlertSink::HolderNode(HolderIndex holder) const {
  return holder < holder_node_.size() ? holder_node_[holder] : kNoIndex;
}

void AlertSink::Consume(std::span<const CostRecord> records) {
  const Inventory& inv = *inventory_;
  for (const CostRecord& r : records) {
    if (r.step < 0 || r.step > last_step_ || r.unit >= inv.units.size()) continue;
    const NodeIndex node = inv.units[r.unit].node;
    NodeFacts* nf = node < nodes_.size() ? &nodes_[node] : nullptr;
    if (nf != nullptr && !r.price_known) {
      nf->unpriced_gpu_hours += r.gpu_hours;
      if (nf->first_unpriced_step < 0 || r.step < nf->first_unpriced_step) {
        nf->first_unpriced_step = r.step;
      }
    }
    if (nf != nullptr && r.unmeasured_gpu_hours <= 0 && std::isfinite(r.activity_gpu_hours)) {
      nf->newest_measured_step = std::max(nf->newest_measured_step, r.step);
    }
    if (r.is_idle() || r.holder >= inv.holders.size() || r.gpu_hours <= 0) continue;
    holder_node_[r.holder] = node;
    const bool measured = r.unmeasured_gpu_hours <= 0 && std::isfinite(r.activity_gpu_hours);
    if (nf != nullptr && r.step == last_step_) {
      nf->last_step_held_gpu_hours += r.gpu_hours;
      if (!measured) nf->last_step_unmeasured_gpu_hours += r.gpu_hours;
    }
    if (r.step >= tail_first_) {
      std::vector<StepUse>& tail = holder_tail_[r.holder];
      if (tail.empty()) tail.resize(static_cast<size_t>(last_step_ - tail_first_ + 1));
      StepUse& use = tail[static_cast<size_t>(r.step - tail_first_)];
      use.held_gpu_hours += r.gpu_hours;
      if (measured) {
        use.activity_gpu_hours += std::min(r.gpu_hours, r.activity_gpu_hours);
      } else {
        use.unmeasured = true;
      }
    }

    TeamFacts*& team = holder_team_[r.holder];
    if (team == nullptr) team = &teams_[TeamOf(inv.holders[r.holder])];
    const Instant t = StepStart(r.step);
    const std::string& capacity =
        node < inv.nodes.size() ? inv.nodes[node].capacity_type : std::string();
    if (t >= ratio_window_.start) {
      team->gpu_hours += r.gpu_hours;
      if (!capacity.empty()) team->known_capacity_gpu_hours += r.gpu_hours;
      if (capacity == "spot") team->spot_gpu_hours += r.gpu_hours;
      if (measured && r.price_known && std::isfinite(r.effective_usd)) {
        team->measured_allocated_usd += r.allocated_usd;
        team->measured_effective_usd += r.effective_usd;
      }
    }
    const bool in_month = t >= month_.start;
    const bool recent = t >= rate_window_.start;
    if (in_month || recent) {
      if (r.price_known) {
        team->priced_gpu_hours += r.gpu_hours;
        if (in_month) team->month_to_date_usd += r.allocated_usd;
        if (recent) team->recent_usd += r.allocated_usd;
      } else {
        team->unpriced_gpu_hours += r.gpu_hours;
        if (in_month) team->month_unpriced_gpu_hours += r.gpu_hours;
      }
    }
  }
}

}  // namespace gpucost::alerts
