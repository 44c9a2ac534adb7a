// Bill reconciliation: per node and in total, what the GPUs would cost at list prices, what the
// bill charged for them (the GPU share of each instance-hour), what gpucost charges (the price
// book), and the adjustment between list and charged. With a bill, gpucost's GPU cost over the
// billed hours equals the GPU share of the bill exactly; `matched` says which nodes that covers.
// Pure; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "core/time.h"
#include "model/capacity.h"
#include "pricing/price_book.h"

namespace gpucost {

struct NodeReconciliation {
  std::string cluster, node, instance_id;
  double gpu_hours = 0;        // physical GPUs x hours present in the window
  double list_usd = 0;         // at list prices (price where no list price is known)
  double charged_usd = 0;      // gpucost's GPU cost (known prices only)
  double from_bill_usd = 0;    // the part of charged_usd priced from the bill
  double bill_gpu_usd = NAN;   // GPU share of the bill's charges in the window; NaN: no charges
  double bill_hours = 0;       // charge periods in the window (instance-hours)
  double unpriced_gpu_hours = 0;
};

struct Reconciliation {
  std::vector<NodeReconciliation> nodes;
  double list_usd = 0, charged_usd = 0, from_bill_usd = 0, bill_gpu_usd = 0;
  double unpriced_gpu_hours = 0;
  // Instances in the bill that no node's provider ID names, with their effective cost in the
  // window (all of it, not only a GPU share: the reader should see the whole amount).
  std::vector<std::pair<std::string, double>> unmatched_instances;
};

// Charges count by the part of their period inside the window (a ten-minute window gets a sixth
// of an hourly charge).
Reconciliation Reconcile(const PriceBook& book, const std::vector<Node>& nodes, Window window);

}  // namespace gpucost
