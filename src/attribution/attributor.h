// The attribution engine (DESIGN.md "The attribution model"): given the inventory and usage
// timelines, a price function and a window cut into steps, it emits one CostRecord per
// (step, unit, holder) and one idle record per (step, unit) with unheld capacity. Pure: no
// sockets, files or clocks. Thread-compatible; one call owns its working state.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "core/result.h"
#include "model/cost_record.h"
#include "model/inventory.h"
#include "model/price.h"
#include "model/usage.h"

namespace gpucost {

struct AttributionOptions {
  Window window;
  Duration step = std::chrono::seconds(60);
  // A usage sample holds until the next sample of its series, for at most this long.
  Duration staleness = std::chrono::minutes(5);
  // HAMi fractions: share of compute (nvidia.com/gpucores) or of memory.
  enum class HamiShare : uint8_t { kCores, kMemory } hami_share = HamiShare::kCores;
};

// Receives records in batches; no order is guaranteed between batches.
class CostSink {
 public:
  virtual ~CostSink() = default;
  virtual void Consume(std::span<const CostRecord> records) = 0;
};

struct AttributionSummary {
  int64_t steps = 0;
  int64_t records = 0;
  double node_cost_usd = 0;      // sum of node GPU cost over the window (known prices only)
  double allocated_usd = 0;
  double idle_usd = 0;
  double unpriced_gpu_hours = 0;  // capacity on nodes with no known price
  int64_t oversubscribed_unit_steps = 0;
  std::vector<std::string> warnings;  // e.g. "node n1: request nvidia.com/mig-2g.10gb x1 by ns/p: no such unit"
};

Result<AttributionSummary> Attribute(const Inventory& inventory, const Usage& usage,
                                     const PriceFn& price, const AttributionOptions& options,
                                     CostSink& sink);

}  // namespace gpucost
