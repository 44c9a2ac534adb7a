// Attributing a long window in segments, one after the other, each from its own inventory (what
// its slice of the source holds), as one attribution of the whole window would: InventoryUnion
// keeps every node, unit and holder the segments name once, by identity, so that sinks built on
// it see one inventory; SegmentSink hands a segment's records to such a sink in the union's
// indexes and the whole window's steps; the pool draws of holdings that run across a boundary
// travel to the next segment through the union (AttributionOptions::prior_draws). Nothing here
// reads a source or a clock. Thread-compatible.
#pragma once

#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "attribution/attributor.h"
#include "model/inventory.h"

namespace gpucost {

// Where a segment's nodes, units and holders are in the union: index i of the segment is
// nodes[i] (units[i], holders[i]) of the union.
struct SegmentIndexes {
  std::vector<NodeIndex> nodes;
  std::vector<UnitIndex> units;
  std::vector<HolderIndex> holders;
};

class InventoryUnion {
 public:
  // Adds what `segment` names that the union does not hold yet, identified as the ledger does
  // (NodeIdentity, UnitIdentity, HolderIdentity). What is already held keeps the attributes it
  // was first seen with, so that records already handed to a sink stay in the group they went
  // to. Holdings are not kept: sinks group and price records, they do not place them.
  SegmentIndexes Add(const Inventory& segment);

  // The union so far. The reference stays valid as segments are added (its vectors grow).
  const Inventory& inventory() const { return inventory_; }

  // Pool draws from a segment's indexes to the union's, and from the union's to another
  // segment's; a draw naming a holder, node or unit the other segment lacks is left out.
  std::vector<PoolDraw> ToUnion(std::span<const PoolDraw> draws, const SegmentIndexes& from) const;
  std::vector<PoolDraw> ToSegment(std::span<const PoolDraw> draws, const SegmentIndexes& to) const;

 private:
  Inventory inventory_;
  std::unordered_map<std::string, NodeIndex> nodes_;
  std::unordered_map<std::string, UnitIndex> units_;
  std::unordered_map<std::string, HolderIndex> holders_;
};

// A pool draw named by identity (NodeIdentity, UnitIdentity, HolderIdentity) instead of indexes,
// for carrying draws between attributions that share no inventory (gpucost serve's cycles).
struct KeyedDraw {
  std::string holder;
  std::string node;
  std::string resource;
  std::vector<std::string> units;
};
std::vector<KeyedDraw> KeyDraws(const Inventory& inventory, std::span<const PoolDraw> draws);
// The draws in `inventory`'s indexes; one naming a holder, node or unit it lacks is left out.
std::vector<PoolDraw> FindDraws(const Inventory& inventory, std::span<const KeyedDraw> draws);

// A CostSink for one segment: each record goes on to `sink` with its unit and holder in the
// union's indexes and its step counted from the whole window's start (`first_step`: the
// segment's first step in the whole window).
class SegmentSink final : public CostSink {
 public:
  SegmentSink(CostSink& sink, const SegmentIndexes& indexes, int64_t first_step)
      : sink_(sink), indexes_(indexes), first_step_(first_step) {}
  void Consume(std::span<const CostRecord> records) override;

 private:
  CostSink& sink_;
  const SegmentIndexes& indexes_;
  int64_t first_step_;
  std::vector<CostRecord> batch_;
};

// Adds a segment's summary to the whole window's: counts and money are summed, warnings kept
// once each (a segment repeats what the one before said of the same holding), draws replaced.
void AddSegmentSummary(AttributionSummary& whole, AttributionSummary segment);

}  // namespace gpucost
