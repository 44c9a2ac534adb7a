// Unit timelines: for every unit, the pieces of time (while it is present) during which the set
// of holders and their shares is constant. Over-subscribed pieces have their shares scaled so
// that they sum to the unit's fraction. Built once per Attribute call; the step loop then walks
// the pieces with cursors and never hashes or allocates. Thread-compatible.
#pragma once

#include <span>
#include <vector>

#include "attribution/engine_common.h"
#include "attribution/placement.h"
#include "model/inventory.h"

namespace gpucost::attribution {

// One holder of a unit (a unit-local dense index, so per-step accumulators are a plain array).
struct Slot {
  HolderIndex holder = kNoIndex;
  int32_t holder_series = -1;  // HolderDeviceSeries index, or -1 (filled in by the caller)
};

struct PieceClaim {
  uint32_t slot = 0;
  // The activity comes from splitting a shared GPU's activity with other holders (estimated).
  bool split = false;
  double share = 0;  // after over-subscription scaling
  // Multiplies the device's activity to give the holder's, in GPU-equivalents: the share for a
  // MIG instance, share / gpu_share_sum for a whole GPU or replica. Precomputed so the step loop
  // does not divide.
  double activity_weight = 0;
  double inv_share = 0;  // 1 / share
};

struct Piece {
  Span span;
  uint32_t first_claim = 0;  // into UnitTimelines::claims
  uint32_t n_claims = 0;
  double idle_share = 0;  // f minus the held shares, never negative
  // Sum of the (scaled) shares of every holder on the unit's physical GPU, over the GPU's
  // non-MIG units: the denominator when a shared GPU's activity is split by shares.
  double gpu_share_sum = 0;
  bool oversubscribed = false;
};

struct UnitTimeline {
  uint32_t first_piece = 0;
  uint32_t n_pieces = 0;
  uint32_t first_slot = 0;
  uint32_t n_slots = 0;
};

struct UnitTimelines {
  std::vector<UnitTimeline> units;  // one per inventory unit
  std::vector<Piece> pieces;
  std::vector<PieceClaim> claims;
  std::vector<Slot> slots;
};

struct TimelineEvent;
struct TimelineScratch;

// Builds the timelines one physical GPU at a time, so that a caller that walks each GPU's units
// before building the next holds one GPU's pieces at a time, not the whole cluster's.
// `claims` may be in any order; `presence` is UnitPresence for every unit (kept by reference).
// Adds one warning per over-subscribed unit.
class TimelineBuilder {
 public:
  TimelineBuilder(const Inventory& inventory, std::vector<ClaimSpan> claims,
                  const std::vector<std::vector<Span>>& presence, Warnings& warnings);
  ~TimelineBuilder();
  TimelineBuilder(const TimelineBuilder&) = delete;
  TimelineBuilder& operator=(const TimelineBuilder&) = delete;

  // Builds the next GPU's units into `out` (out.units is sized to the inventory's units and the
  // entries of those units are set). Unless `append`, `out`'s pieces, claims and slots are
  // replaced, so only this GPU's entries of out.units are valid. Returns the GPU's units in
  // increasing index order; empty once every unit has been built.
  std::span<const UnitIndex> Next(UnitTimelines& out, bool append = false);

 private:
  const Inventory& inv_;
  std::vector<ClaimSpan> claims_;  // sorted by unit, start, holder
  const std::vector<std::vector<Span>>& presence_;
  Warnings& warnings_;
  std::vector<uint32_t> claim_begin_;  // claims_ of unit u: [claim_begin_[u], claim_begin_[u+1])
  std::vector<UnitIndex> order_;       // units by (node, GPU UUID, index)
  size_t next_ = 0;                    // into order_
  std::vector<TimelineScratch> group_;
  std::vector<TimelineEvent> events_;
};

// Every unit's timeline at once (memory proportional to all holdings).
UnitTimelines BuildTimelines(const Inventory& inventory, std::vector<ClaimSpan> claims,
                             const std::vector<std::vector<Span>>& presence, Warnings& warnings);

}  // namespace gpucost::attribution
