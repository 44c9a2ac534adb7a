// Placement: turns holdings into claims, i.e. "holder H holds share s of unit U over [t0, t1)".
// Exact device assignments are used as given; requests draw from the node's pool of matching
// units, least-loaded first (ties by unit index), and keep what they drew for the whole
// holding. Also computes when each unit is present. Pure functions, thread-compatible.
#pragma once

#include <vector>

#include "attribution/attributor.h"
#include "attribution/engine_common.h"
#include "core/result.h"
#include "model/inventory.h"

namespace gpucost::attribution {

struct ClaimSpan {
  UnitIndex unit = kNoIndex;
  HolderIndex holder = kNoIndex;
  Span span;
  double share = 0;  // GPU-equivalents, before any over-subscription scaling
};

// When unit `u` is present inside `window`: its own intervals, else its node's, else the whole
// window. Sorted, disjoint, non-empty spans.
std::vector<Span> UnitPresence(const Inventory& inventory, UnitIndex u, Span window);

// "ns/pod/container" (or "slurm job 123") for messages.
std::string HolderName(const Inventory& inventory, HolderIndex h);

// True when the request carries any HAMi field.
bool IsHamiRequest(const Request& r);

// Fraction of one GPU a HAMi request holds (0, 1], following options.hami_share. Adds a warning
// when the memory share is asked for but the GPU's memory is unknown.
double HamiFraction(const Request& r, const Node& node, AttributionOptions::HamiShare mode,
                    const std::string& who, Warnings& warnings);

// Validates holding indexes (InvalidArgument naming the holding) and places every holding.
// `presence` is UnitPresence for every unit. Pool requests running from the window's start take
// options.prior_draws first; `open_draws`, when given, receives the draws of those running to
// its end. `unplaced_gpu_hours`, when given, receives the GPU-equivalent hours requested that no
// unit could hold (no unit of the resource on the node, fewer units than asked, a device named
// on another node or one that cannot be held), each of them also warned about.
Result<std::vector<ClaimSpan>> PlaceHoldings(const Inventory& inventory,
                                             const AttributionOptions& options, Span window,
                                             const std::vector<std::vector<Span>>& presence,
                                             Warnings& warnings,
                                             std::vector<PoolDraw>* open_draws = nullptr,
                                             double* unplaced_gpu_hours = nullptr);

}  // namespace gpucost::attribution
