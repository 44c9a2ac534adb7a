// FocusExporter: a CostSink that turns the engine's CostRecords into FinOps FOCUS 1.3 or 1.4 Cost
// and Usage charges (docs/focus.md): each node's GPU cost in a charge period at one price is an
// origin charge, split into one allocated charge per holder and one unallocated (idle) charge.
// It keeps pointers to the Inventory, which must outlive it. Thread-compatible: one engine run
// feeds one instance.
//
//   Result<FocusExporter> FocusExporter::Create(const Inventory&, const PriceFn&, FocusOptions);
//   void Consume(std::span<const CostRecord> records) override;   // CostSink
//   Result<FocusTable> Finish() const;   // fails naming the nodes that had no price
//   void WriteFocusCsv(const FocusTable& table, std::ostream& out);
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "attribution/attributor.h"
#include "core/result.h"
#include "model/inventory.h"
#include "model/price.h"
#include "report/report.h"

namespace gpucost {

// "gpucost-gpu-share-v1": docs/focus.md "Allocation method".
inline constexpr std::string_view kFocusAllocatedMethodId = "gpucost-gpu-share-v1";

// The FOCUS version written (docs/focus.md "Versions"). 1.4 drops ProviderName and PublisherName
// and adds CommitmentProgramEligibilityDetails and InvoiceDetailId; the money is the same.
enum class FocusVersion : uint8_t { k1_3, k1_4 };
std::string_view FocusVersionName(FocusVersion v);  // "1.3"
// "1.3" | "1.4"; nullopt for anything else.
std::optional<FocusVersion> ParseFocusVersion(std::string_view s);

struct FocusOptions {
  Window window;                                    // the engine's window
  Duration engine_step = std::chrono::seconds(60);  // the engine's step
  // true: one charge period per engine step; false: one per UTC day. Either way periods are
  // also cut at UTC month starts and at the node's price changes, and clipped to the window.
  bool per_step = false;
  // kSeparate keeps idle as the unallocated charge; kProportional and kEven share it to the
  // holders of the same origin charge (scope must be kNode: an origin charge is one node's).
  IdleOptions idle;
  // ServiceProviderName, InvoiceIssuerName (and 1.3's ProviderName, PublisherName): this name on
  // every row when given; empty: each node's cloud where its provider ID names one (aws:// is
  // "AWS"...), else "gpucost".
  std::string provider_name;
  FocusVersion version = FocusVersion::k1_3;
};

// One FOCUS row. Money in USD; hours in GPU-hours.
struct FocusCharge {
  Instant period_start;
  Instant period_end;
  NodeIndex node = kNoIndex;
  HolderIndex holder = kNoIndex;  // kNoIndex: the unallocated (idle) part of the origin charge
  uint32_t span = 0;              // index into FocusTable::prices[node]
  double held_gpu_hours = 0;      // the holder's own hours; idle charge: the idle hours left
  double cost_usd = 0;            // own allocation; idle charge: the idle cost left
  double list_usd = 0;
  double idle_gpu_hours = 0;      // idle received (holder charges under a sharing policy)
  double idle_usd = 0;
  double idle_list_usd = 0;
  double utilized_usd = 0;         // Σ effective over measured records
  double measured_cost_usd = 0;    // Σ allocated over measured records
  double unmeasured_gpu_hours = 0;
  bool estimated = false;
  std::vector<UnitIndex> units;   // distinct units (GPU model, MIG profile)
  // Filled by Finish: this charge's shares of its origin charge's cost.
  double held_ratio = 0;
  double idle_ratio = 0;

  double effective_usd() const { return cost_usd + idle_usd; }
  double pricing_gpu_hours() const { return held_gpu_hours + idle_gpu_hours; }
  double total_list_usd() const { return list_usd + idle_list_usd; }
};

struct FocusTable {
  const Inventory* inventory = nullptr;
  FocusOptions options;
  std::vector<std::vector<PricePeriod>> prices;  // per node, clipped to the window
  std::vector<bool> slurm_node;                  // per node: its holders are Slurm jobs
  std::vector<FocusCharge> charges;              // sorted (docs/focus.md "Rows")
  double effective_cost_usd = 0;                 // Σ EffectiveCost, compensated
};

class FocusExporter final : public CostSink {
 public:
  // InvalidArgument for an empty window, a non-positive step, or idle sharing at cluster scope.
  // Calls `price` once per node with units, as the engine does.
  static Result<FocusExporter> Create(const Inventory& inventory, const PriceFn& price,
                                      FocusOptions options);

  void Consume(std::span<const CostRecord> records) override;

  // InvalidArgument naming the nodes whose GPU time had no known price: FOCUS costs cannot be
  // null, and gpucost never writes an unknown cost as zero.
  Result<FocusTable> Finish() const;

 private:
  FocusExporter() = default;

  struct Segment {
    Instant start;
    Instant end;
    uint32_t span = 0;
  };
  struct Key {
    int64_t bucket;
    uint32_t segment;
    NodeIndex node;
    HolderIndex holder;
    friend bool operator==(const Key&, const Key&) = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const;
  };
  void Add(const CostRecord& r, NodeIndex node, int64_t bucket, uint32_t segment, double hours_f,
           double cost_f, double list_f);

  const Inventory* inventory_ = nullptr;
  FocusOptions options_;
  std::vector<std::vector<PricePeriod>> prices_;
  std::vector<std::vector<Segment>> segments_;  // per node: cut at days/months/price changes
  std::vector<bool> slurm_node_;
  std::unordered_map<Key, uint32_t, KeyHash> index_;
  std::vector<FocusCharge> charges_;
  std::vector<bool> unpriced_;  // per node
};

// The FOCUS CSV of table.options.version: header, one line per charge; null is an empty field
// (docs/focus.md).
void WriteFocusCsv(const FocusTable& table, std::ostream& out);

}  // namespace gpucost
