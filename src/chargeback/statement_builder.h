// StatementBuilder: folds charges (from any source) into per-team statements — lines by GPU model
// x capacity type x rate, workloads, daily series, idle hours under the threshold, spot hours —
// and hands out the statements of the teams asked for. Memory grows with teams x workloads x days,
// not with the number of charges. Thread-compatible.
//
//   StatementBuilder b(period, settings);
//   b.Add(labels, amounts);                        // or Intern(labels) once, then Add(key,
//   amounts) Result<StatementSet> set = b.Finish({"ml-research"});   // {} for every team
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "chargeback/charge.h"
#include "chargeback/charge_totals.h"
#include "chargeback/period.h"
#include "chargeback/settings.h"
#include "chargeback/statement.h"
#include "core/result.h"

namespace gpucost::chargeback {

class StatementBuilder {
 public:
  using Key = uint32_t;  // an interned ChargeLabels

  StatementBuilder(Period period, ChargebackSettings settings);

  // The same labels always give the same key; keys stay valid for the builder's life.
  Key Intern(const ChargeLabels& labels);
  // Charges with no GPU-hours are ignored.
  void Add(Key key, const ChargeAmounts& amounts);
  void Add(const ChargeLabels& labels, const ChargeAmounts& amounts) {
    Add(Intern(labels), amounts);
  }

  // Teams seen so far, sorted.
  std::vector<std::string> Teams() const;

  // Statements of `teams` (every team seen when empty), sorted by team. NotFound naming the
  // teams there are when one asked for had no charges in the period.
  Result<StatementSet> Finish(const std::vector<std::string>& teams) const;

 private:
  struct LineAcc {
    std::string gpu_model;
    std::string capacity_type;
    int64_t rate_key = -1;  // micro-dollars per GPU-hour; -1: unknown price
    ChargeSums sums;
    UnitKind unit_kind = UnitKind::kGpu;
  };
  struct WorkloadAcc {
    std::string namespace_name;
    std::string workload;
    std::string workload_kind;
    ChargeSums sums;
  };
  struct TeamAcc {
    std::string name;
    std::vector<LineAcc> lines;
    std::unordered_map<std::string, uint32_t> line_ids;  // model, capacity, rate key
    std::vector<WorkloadAcc> workloads;
    std::unordered_map<std::string, uint32_t> workload_ids;
    std::vector<ChargeSums> days;
  };
  struct KeyInfo {
    uint32_t team = 0;
    uint32_t workload = 0;
    std::string gpu_model;
    std::string capacity_type;
    UnitKind unit_kind = UnitKind::kGpu;
    bool spot = false;
    std::vector<std::pair<int64_t, uint32_t>> lines;  // rate key -> line of the team
  };

  uint32_t LineFor(KeyInfo& key, int64_t rate_key);
  Statement Build(const TeamAcc& team) const;

  Period period_;
  ChargebackSettings settings_;
  std::vector<TeamAcc> teams_;
  std::unordered_map<std::string, uint32_t> team_ids_;
  std::vector<KeyInfo> keys_;
  std::unordered_map<std::string, Key> key_ids_;
};

}  // namespace gpucost::chargeback
