#include "pipeline/workload_profiles.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <utility>

namespace gpucost {
namespace {

// The price of a node's GPU-hour at `t` per the book; NaN when unknown.
double PriceAt(const PriceBook& book, const Node& node, Instant t) {
  const std::vector<PricePeriod> p = book.Prices(node, {t, t + std::chrono::hours(1)});
  if (p.empty() || !p.front().known()) return NAN;
  return p.front().usd_per_gpu_hour;
}

}  // namespace

advise::SpotRateFn SpotRatesFromBook(std::shared_ptr<const PriceBook> book, Instant t,
                                     double spot_discount) {
  return [book = std::move(book), t, spot_discount](const Node& node) {
    const double on_demand = PriceAt(*book, node, t);
    Node spot = node;
    spot.capacity_type = "spot";
    const std::vector<PricePeriod> p = book->Prices(spot, {t, t + std::chrono::hours(1)});
    if (!p.empty() && p.front().known() &&
        (p.front().source == PriceSource::kSpot || p.front().usd_per_gpu_hour < on_demand)) {
      return p.front().usd_per_gpu_hour;
    }
    if (spot_discount >= 0 && std::isfinite(on_demand)) return on_demand * (1 - spot_discount);
    return static_cast<double>(NAN);
  };
}

Result<WorkloadProfiles> ProfileWorkloads(const LoadedInput& input, ReportSettings settings,
                                          const PriceFn& price,
                                          std::shared_ptr<const PriceBook> book,
                                          const advise::AdviseSettings& advice,
                                          const std::vector<std::string>& teams) {
  const LoadedTimeline& timeline = input.timeline;
  ApplyInput(input, settings);
  const Instant mid = timeline.window.start + (timeline.window.end - timeline.window.start) / 2;
  advise::ProfileSink sink(
      timeline.inventory, settings.step, advice.idle_threshold,
      book ? SpotRatesFromBook(book, mid, advice.spot_discount) : advise::SpotRateFn(),
      [advice](double rate) { return advice.EffectiveSpotRate(rate); });
  GPUCOST_ASSIGN_OR_RETURN(ReportRun run, RunReport(timeline, price, settings, &sink));
  WorkloadProfiles out;
  out.window = timeline.window;
  out.step = settings.step;
  out.profiles = sink.Finish();
  out.summary = std::move(run.summary);
  if (!teams.empty()) {
    std::erase_if(out.profiles, [&](const advise::WorkloadProfile& w) {
      return std::find(teams.begin(), teams.end(), w.team) == teams.end();
    });
  }
  return out;
}

}  // namespace gpucost
