// AlertSink: a CostSink that gathers, during one engine run, the facts the built-in rules are
// evaluated on (docs/alerts.md): per holder its use in each step of the run's tail (idle runs),
// per node its unpriced hours and what was held in the last step, per team its hours by capacity
// type and measured money over the ratio window, and its month-to-date and run-rate cost for
// budgets. Memory grows with holders x tail steps, nodes and teams, not with the records. Keeps
// a pointer to the Inventory, which must outlive it. Thread-compatible: one run feeds it.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "alerts/alert_settings.h"
#include "attribution/attributor.h"
#include "model/inventory.h"

namespace gpucost::alerts {

// The engine run the sink is fed by: `window` is [start of the data, as_of), `step` its step.
struct AlertRun {
  Window window;
  Duration step = std::chrono::seconds(60);
  AlertSettings settings;
};

// A holder's use in one step of the tail, summed over the units it holds.
struct StepUse {
  double held_gpu_hours = 0;
  double activity_gpu_hours = 0;  // over measured records, each capped at its held hours
  bool unmeasured = false;       // some held unit had no usage sample
};

struct NodeFacts {
  double unpriced_gpu_hours = 0;      // held or idle capacity with no price, whole run
  int64_t first_unpriced_step = -1;
  double last_step_held_gpu_hours = 0;  // held in the run's last step
  double last_step_unmeasured_gpu_hours = 0;  // of those, with no usage sample
  // The newest step in which the node's units were measured (-1: none): what a ledger, which
  // keeps steps and not samples, says of its telemetry.
  int64_t newest_measured_step = -1;
};

struct TeamFacts {
  // Over the ratio window.
  double gpu_hours = 0;
  double known_capacity_gpu_hours = 0;  // on nodes whose capacity type is known
  double spot_gpu_hours = 0;
  double measured_allocated_usd = 0;  // measured, priced records
  double measured_effective_usd = 0;
  // Budgets: [month start, as_of) and the run-rate window.
  double month_to_date_usd = 0;
  double recent_usd = 0;
  double priced_gpu_hours = 0;
  double unpriced_gpu_hours = 0;        // month-to-date or run-rate hours
  double month_unpriced_gpu_hours = 0;  // of those, month-to-date
};

class AlertSink final : public CostSink {
 public:
  AlertSink(const Inventory& inventory, AlertRun run);

  void Consume(std::span<const CostRecord> records) override;

  const AlertRun& run() const { return run_; }
  const Inventory& inventory() const { return *inventory_; }
  int64_t last_step() const { return last_step_; }
  int64_t tail_first_step() const { return tail_first_; }
  Instant StepStart(int64_t step) const { return run_.window.start + run_.step * step; }
  // The holder's tail, indexed by step - tail_first_step(); empty when it held nothing there.
  std::span<const StepUse> HolderTail(HolderIndex holder) const;
  // The node a holder's last record was on; kNoIndex when none.
  NodeIndex HolderNode(HolderIndex holder) const;
  const std::vector<NodeFacts>& nodes() const { return nodes_; }
  const std::map<std::string, TeamFacts>& teams() const { return teams_; }
  Window ratio_window() const { return ratio_window_; }
  Window month() const { return month_; }
  Window rate_window() const { return rate_window_; }

  // The holder's team as the report and chargeback give it: its team, else its namespace.
  static const std::string& TeamOf(const Holder& holder);

 private:
  const Inventory* inventory_;
  AlertRun run_;
  int64_t last_step_ = -1;
  int64_t tail_first_ = 0;
  Window ratio_window_;
  Window month_;
  Window rate_window_;
  std::vector<std::vector<StepUse>> holder_tail_;
  std::vector<NodeIndex> holder_node_;
  std::vector<NodeFacts> nodes_;
  std::map<std::string, TeamFacts> teams_;
  std::vector<TeamFacts*> holder_team_;  // cache: holder -> its entry in teams_
};

}  // namespace gpucost::alerts
