#include "pricing/reconcile.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "core/money.h"
#include "core/time.h"

namespace gpucost {
namespace {

double PresentHours(const Node& node, Instant a, Instant b) {
  if (node.present.empty()) return static_cast<double>(UnixMs(b) - UnixMs(a)) / kMsPerHour;
  int64_t ms = 0;
  for (const Interval& iv : node.present) {
    const Instant x = std::max(a, iv.start);
    const Instant y = std::min(b, iv.end);
    if (y > x) ms += UnixMs(y) - UnixMs(x);
  }
  return static_cast<double>(ms) / kMsPerHour;
}

// The share of a charge's period inside the window (0 to 1): a charge for 00:00-01:00 counts a
// sixth in a ten-minute window, so that "billed" is over the same time as list and charged.
double PartInWindow(const BilledCharge& c, Window window) {
  const int64_t length = UnixMs(c.end) - UnixMs(c.start);
  if (length <= 0) return window.Contains(c.start) ? 1.0 : 0.0;
  const int64_t in = UnixMs(std::min(c.end, window.end)) - UnixMs(std::max(c.start, window.start));
  return in <= 0 ? 0.0 : static_cast<double>(in) / static_cast<double>(length);
}

}  // namespace

Reconciliation Reconcile(const PriceBook& book, const std::vector<Node>& nodes, Window window) {
  Reconciliation out;
  CompensatedSum list, charged, from_bill, bill, unpriced;
  std::set<std::string> matched;
  for (const Node& node : nodes) {
    NodeReconciliation r;
    r.cluster = node.cluster;
    r.node = node.name;
    r.instance_id = node.provider_id.empty() ? "" : InstanceIdFromProviderId(node.provider_id);
    const double g = node.physical_gpus;
    for (const PricePeriod& p : book.Prices(node, window)) {
      const double gh = g * PresentHours(node, p.interval.start, p.interval.end);
      r.gpu_hours += gh;
      if (!p.known()) {
        r.unpriced_gpu_hours += gh;
        continue;
      }
      r.list_usd += gh * p.list_or_price();
      r.charged_usd += gh * p.usd_per_gpu_hour;
      if (p.source == PriceSource::kBill) r.from_bill_usd += gh * p.usd_per_gpu_hour;
    }
    const std::vector<BilledCharge>& charges = book.ChargesFor(node);
    if (!charges.empty()) {
      matched.insert(r.instance_id);
      const std::optional<PriceBook::InstanceSplit> split = book.SplitOf(node);
      CompensatedSum sum;
      for (const BilledCharge& c : charges) {
        const double part = PartInWindow(c, window);
        if (part <= 0) continue;
        sum.Add(c.effective_usd * part);
        r.bill_hours += part * static_cast<double>(UnixMs(c.end) - UnixMs(c.start)) / kMsPerHour;
      }
      r.bill_gpu_usd = split ? sum.value() * split->share : NAN;
      if (!std::isnan(r.bill_gpu_usd)) bill.Add(r.bill_gpu_usd);
    }
    list.Add(r.list_usd);
    charged.Add(r.charged_usd);
    from_bill.Add(r.from_bill_usd);
    unpriced.Add(r.unpriced_gpu_hours);
    out.nodes.push_back(std::move(r));
  }
  out.list_usd = list.value();
  out.charged_usd = charged.value();
  out.from_bill_usd = from_bill.value();
  out.bill_gpu_usd = bill.value();
  out.unpriced_gpu_hours = unpriced.value();
  for (const std::string& id : book.InstanceIds()) {
    if (matched.contains(id)) continue;
    CompensatedSum sum;
    bool any = false;
    for (const BilledCharge& c : book.ChargesForInstance(id)) {
      const double part = PartInWindow(c, window);
      if (part <= 0) continue;
      sum.Add(c.effective_usd * part);
      any = true;
    }
    if (any) out.unmatched_instances.emplace_back(id, sum.value());
  }
  return out;
}

}  // namespace gpucost
