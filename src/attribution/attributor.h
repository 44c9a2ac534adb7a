// The attribution engine (DESIGN.md "The attribution model"): given the inventory and usage
// timelines, a price function and a window cut into steps, it emits one CostRecord per
// (step, unit, holder) and one idle record per (step, unit) with unheld capacity. Pure: no
// sockets, files or clocks. Thread-compatible; one call owns its working state.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <vector>

#include "core/result.h"
#include "model/cost_record.h"
#include "model/inventory.h"
#include "model/price.h"
#include "model/usage.h"

namespace gpucost {

// The units a request without a known device assignment drew from its node's pool, for a holding
// that runs to the end of a window. A window attributed after it, given these as prior draws,
// keeps the same units for that holding, as one attribution over both windows would (a pool draw
// is kept for the whole holding). Indexes are those of the inventory the draw is read or given
// with.
struct PoolDraw {
  HolderIndex holder = kNoIndex;
  NodeIndex node = kNoIndex;
  std::string resource;  // as requested, e.g. "nvidia.com/gpu.shared"
  std::vector<UnitIndex> units;
  friend bool operator==(const PoolDraw&, const PoolDraw&) = default;
};

struct AttributionOptions {
  Window window;
  Duration step = std::chrono::seconds(60);
  // A usage sample holds until the next sample of its series, for at most this long.
  Duration staleness = std::chrono::minutes(5);
  // HAMi fractions: share of compute (nvidia.com/gpucores) or of memory.
  enum class HamiShare : uint8_t { kCores, kMemory } hami_share = HamiShare::kCores;
  // Draws of holdings already running when the window starts (AttributionSummary::open_draws of
  // the window before): a pool request of the same holder, node and resource running from the
  // window's start takes these units first, before any other request of the node is drawn. A
  // draw whose units are not all in the node's pool (or not as many as asked) is drawn anew.
  std::vector<PoolDraw> prior_draws;
  // Called after each physical GPU is walked, with the GPUs done and their number (a progress
  // line, core/progress.h); unset: not called.
  std::function<void(int64_t gpus_done, int64_t gpus)> on_gpu;
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
  // GPU-equivalent hours requested that no unit could hold (a request for a resource its node has
  // no unit of, more units than the node has, a device that is not there): in no record and no
  // money, each warned about. NaN where not known (a report replayed from a ledger).
  double unplaced_request_gpu_hours = 0;
  int64_t oversubscribed_unit_steps = 0;
  std::vector<std::string> warnings;  // e.g. "node n1: request nvidia.com/mig-2g.10gb x1 by ns/p: no such unit"
  // The pool draws of holdings still running at the window's end, for the window after it.
  std::vector<PoolDraw> open_draws;
};

Result<AttributionSummary> Attribute(const Inventory& inventory, const Usage& usage,
                                     const PriceFn& price, const AttributionOptions& options,
                                     CostSink& sink);

}  // namespace gpucost
