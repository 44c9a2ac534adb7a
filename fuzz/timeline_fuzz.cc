// Feeds arbitrary bytes through the whole pipeline a report runs: exposition parsing, the
// inventory builder (kube-state-metrics and dcgm-exporter series to timelines) and the
// attribution engine, checking that nothing crashes and that conservation holds on any input.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "attribution/attributor.h"
#include "core/money.h"
#include "inventory/timeline_loader.h"

namespace {

class SumSink final : public gpucost::CostSink {
 public:
  void Consume(std::span<const gpucost::CostRecord> records) override {
    for (const gpucost::CostRecord& r : records) {
      if (!(r.gpu_hours >= 0) || (r.price_known && !(r.allocated_usd >= 0))) std::abort();
      if (r.price_known) total.Add(r.allocated_usd);
    }
  }
  gpucost::CompensatedSum total;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpucost;
  auto timeline = LoadTimelineFromText(std::string(reinterpret_cast<const char*>(data), size),
                                       TimelineOptions{}, "fuzz.prom");
  if (!timeline.ok() || timeline->window.empty()) return 0;
  AttributionOptions options;
  options.window = timeline->window;
  // At most ~2000 steps, so a window spanning years still runs quickly.
  const int64_t len_ms = options.window.length().count();
  options.step = Duration(std::max<int64_t>(60'000, len_ms / 2000 + 1));
  if (len_ms / options.step.count() > 5000) return 0;
  const PriceFn price = [](const Node&, Window w) {
    return std::vector<PricePeriod>{
        PricePeriod{Interval{w.start, w.end}, 2.5, PriceSource::kDefault, w.start, "fuzz"}};
  };
  SumSink sink;
  auto summary = Attribute(timeline->inventory, timeline->usage, price, options, sink);
  if (!summary.ok()) return 0;
  const double want = summary->node_cost_usd;
  const double got = sink.total.value();
  if (std::fabs(got - want) > 1e-9 * std::max(1.0, std::fabs(want))) std::abort();
  return 0;
}
