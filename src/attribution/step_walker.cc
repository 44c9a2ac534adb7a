#include "attribution/step_walker.h"

#include <algorithm>
#include <cmath>

namespace gpucost::attribution {
namespace {

constexpr double kHoursPerMs = 1.0 / kMsPerHour;

// Fills the usage and money fields of a holder record from its step accumulators.
inline void Finish(CostRecord& r, int64_t held_ms, int64_t covered_ms, double activity_ms,
                   bool priced, bool estimated) {
  if (covered_ms == 0) {
    r.effective_usd = NAN;
    r.activity_gpu_hours = NAN;
    r.unmeasured_gpu_hours = r.gpu_hours;
    r.estimated = false;
    return;
  }
  // The average over the covered time stands for the holder's whole time in the step.
  const double activity = activity_ms / static_cast<double>(covered_ms);
  r.activity_gpu_hours = activity * static_cast<double>(held_ms) * kHoursPerMs;
  const double u = r.gpu_hours > 0 ? std::min(1.0, r.activity_gpu_hours / r.gpu_hours) : 0.0;
  r.effective_usd = priced ? r.allocated_usd * u : NAN;
  r.unmeasured_gpu_hours = 0;
  r.estimated = estimated;
}

}  // namespace

StepWalker::StepWalker(const UnitTimelines& timelines, const Usage& usage, Span window,
                       int64_t step_ms, int64_t staleness_ms, CostSink& sink)
    : timelines_(timelines),
      usage_(usage),
      window_(window),
      step_ms_(step_ms),
      staleness_ms_(staleness_ms),
      sink_(sink),
      batch_(kBatchSize) {}

void StepWalker::Flush() {
  if (batch_size_ == 0) return;
  sink_.Consume(std::span<const CostRecord>(batch_.data(), batch_size_));
  batch_size_ = 0;
}

// The common case: one piece and one price cover the whole step, so every claim is one record
// and nothing needs accumulating.
void StepWalker::FullStep(const UnitWork& w, const Piece& piece, const PriceSpan& price, int64_t k,
                          int64_t s0, int64_t s1, SeriesCursor& device, UnitSums& sums) {
  const int64_t held_ms = s1 - s0;
  const double dt = static_cast<double>(held_ms);
  const double p = price.usd_per_gpu_hour;
  const bool priced = price.known;
  int64_t device_covered = 0;
  double device_integral = 0;
  if (device.valid()) device.Integrate(s0, s1, staleness_ms_, device_covered, device_integral);
  const double inv_covered = device_covered > 0 ? 1.0 / static_cast<double>(device_covered) : 0;
  const PieceClaim* claims = timelines_.claims.data() + piece.first_claim;
  for (uint32_t c = 0; c < piece.n_claims; ++c) {
    const PieceClaim& claim = claims[c];
    CostRecord& r = Next();
    r.step = k;
    r.unit = w.unit;
    r.holder = slots_[claim.slot].holder;
    r.gpu_hours = claim.share * dt * kHoursPerMs;
    r.allocated_usd = priced ? claim.share * p * dt * kHoursPerMs : NAN;
    r.oversubscribed = piece.oversubscribed;
    r.price_known = priced;
    r.price_source = price.source;
    SeriesCursor& own = cursors_[claim.slot];
    if (own.valid()) {
      int64_t covered = 0;
      double activity = 0;
      own.Integrate(s0, s1, staleness_ms_, covered, activity);
      Finish(r, held_ms, covered, activity, priced, false);
    } else if (device_covered > 0) {
      const double a = device_integral * claim.activity_weight * inv_covered;
      r.activity_gpu_hours = a * dt * kHoursPerMs;
      r.effective_usd = priced ? r.allocated_usd * std::min(1.0, a * claim.inv_share) : NAN;
      r.unmeasured_gpu_hours = 0;
      r.estimated = claim.split;
    } else {
      Finish(r, held_ms, 0, 0, priced, false);
    }
    if (priced) sums.allocated_usd += r.allocated_usd;
  }
  sums.records += piece.n_claims;
  if (piece.idle_share > 0) {
    CostRecord& r = Next();
    r.step = k;
    r.unit = w.unit;
    r.holder = kNoIndex;
    r.gpu_hours = piece.idle_share * dt * kHoursPerMs;
    r.allocated_usd = priced ? piece.idle_share * p * dt * kHoursPerMs : NAN;
    r.effective_usd = NAN;
    r.unmeasured_gpu_hours = 0;
    r.activity_gpu_hours = NAN;
    r.estimated = false;
    r.oversubscribed = false;
    r.price_known = priced;
    r.price_source = price.source;
    if (priced) sums.idle_usd += r.allocated_usd;
    ++sums.records;
  }
  if (priced) {
    sums.node_cost_usd += w.fraction * p * dt * kHoursPerMs;
  } else {
    sums.unpriced_ms += w.fraction * dt;
  }
  if (piece.oversubscribed) ++sums.oversubscribed_steps;
}

// A step cut by piece or price boundaries: accumulate per holder slot, then emit.
void StepWalker::PartialStep(const UnitWork& w, const Piece* pieces, uint32_t pi, uint32_t n_pieces,
                             size_t price, int64_t k, int64_t s0, int64_t s1, SeriesCursor& device,
                             UnitSums& sums) {
  const PieceClaim* claims = timelines_.claims.data();
  const PriceSpan* prices = w.prices.data();
  const double f = w.fraction;
  double capacity_ms = 0;
  double capacity_usd_ms = 0;
  double idle_ms = 0;
  double idle_usd_ms = 0;
  bool unpriced = false;
  bool oversubscribed = false;
  PriceSource source = PriceSource::kUnknown;

  for (uint32_t pj = pi; pj < n_pieces && pieces[pj].span.start < s1; ++pj) {
    const Piece& piece = pieces[pj];
    const int64_t a = std::max(piece.span.start, s0);
    const int64_t b = std::min(piece.span.end, s1);
    oversubscribed |= piece.oversubscribed;
    while (prices[price].span.end <= a) ++price;
    size_t q = price;
    for (int64_t x = a; x < b;) {
      const PriceSpan& ps = prices[q];
      const int64_t y = std::min(b, ps.span.end);
      const double dt = static_cast<double>(y - x);
      const double p = ps.usd_per_gpu_hour;
      unpriced |= !ps.known;
      source = ps.source;
      capacity_ms += f * dt;
      capacity_usd_ms += f * p * dt;
      idle_ms += piece.idle_share * dt;
      idle_usd_ms += piece.idle_share * p * dt;
      int64_t device_covered = 0;
      double device_integral = 0;
      if (device.valid()) device.Integrate(x, y, staleness_ms_, device_covered, device_integral);
      for (uint32_t c = piece.first_claim; c < piece.first_claim + piece.n_claims; ++c) {
        const PieceClaim& claim = claims[c];
        SlotAcc& acc = acc_[claim.slot];
        if (!acc.touched) {
          acc.touched = true;
          touched_.push_back(claim.slot);
        }
        acc.held_ms += y - x;
        acc.share_ms += claim.share * dt;
        acc.usd_ms += claim.share * p * dt;
        acc.oversubscribed |= piece.oversubscribed;
        SeriesCursor& own = cursors_[claim.slot];
        if (own.valid()) {
          own.Integrate(x, y, staleness_ms_, acc.covered_ms, acc.activity_ms);
        } else if (device_covered > 0) {
          acc.covered_ms += device_covered;
          acc.activity_ms += device_integral * claim.activity_weight;
          acc.estimated |= claim.split;
        }
      }
      x = y;
      if (y == ps.span.end) ++q;
    }
    if (piece.span.end > s1) break;  // the piece goes on into the next step
  }

  // A step that touches an unknown price is unpriced as a whole (see docs/engine.md).
  const bool priced = !unpriced;
  const PriceSource record_source = priced ? source : PriceSource::kUnknown;
  for (uint32_t slot : touched_) {
    SlotAcc& acc = acc_[slot];
    CostRecord& r = Next();
    r.step = k;
    r.unit = w.unit;
    r.holder = slots_[slot].holder;
    r.gpu_hours = acc.share_ms * kHoursPerMs;
    r.allocated_usd = priced ? acc.usd_ms * kHoursPerMs : NAN;
    r.oversubscribed = acc.oversubscribed;
    r.price_known = priced;
    r.price_source = record_source;
    Finish(r, acc.held_ms, acc.covered_ms, acc.activity_ms, priced, acc.estimated);
    if (priced) sums.allocated_usd += r.allocated_usd;
    acc = SlotAcc{};
  }
  sums.records += static_cast<int64_t>(touched_.size());
  touched_.clear();
  if (idle_ms > 0) {
    CostRecord& r = Next();
    r.step = k;
    r.unit = w.unit;
    r.holder = kNoIndex;
    r.gpu_hours = idle_ms * kHoursPerMs;
    r.allocated_usd = priced ? idle_usd_ms * kHoursPerMs : NAN;
    r.effective_usd = NAN;
    r.unmeasured_gpu_hours = 0;
    r.activity_gpu_hours = NAN;
    r.estimated = false;
    r.oversubscribed = false;
    r.price_known = priced;
    r.price_source = record_source;
    if (priced) sums.idle_usd += r.allocated_usd;
    ++sums.records;
  }
  if (priced) {
    sums.node_cost_usd += capacity_usd_ms * kHoursPerMs;
  } else {
    sums.unpriced_ms += capacity_ms;
  }
  if (oversubscribed) ++sums.oversubscribed_steps;
}

void StepWalker::Walk(const UnitWork& w) {
  const UnitTimeline& ut = timelines_.units[w.unit];
  if (ut.n_pieces == 0) return;
  const Piece* pieces = timelines_.pieces.data() + ut.first_piece;
  const uint32_t n_pieces = ut.n_pieces;
  slots_ = timelines_.slots.data() + ut.first_slot;
  acc_.assign(ut.n_slots, SlotAcc{});
  cursors_.clear();
  for (uint32_t s = 0; s < ut.n_slots; ++s) {
    const int32_t hs = slots_[s].holder_series;
    cursors_.emplace_back(hs >= 0 ? &usage_.holders[static_cast<size_t>(hs)].samples : nullptr);
  }
  touched_.clear();
  SeriesCursor device(w.device);
  const PriceSpan* prices = w.prices.data();
  size_t price = 0;
  UnitSums sums;

  uint32_t pi = 0;
  int64_t k = (pieces[0].span.start - window_.start) / step_ms_;
  while (pi < n_pieces) {
    const int64_t s0 = window_.start + k * step_ms_;
    const int64_t s1 = std::min(s0 + step_ms_, window_.end);
    const int64_t first = std::max(s0, pieces[pi].span.start);
    while (prices[price].span.end <= first) ++price;
    const Piece& piece = pieces[pi];
    if (piece.span.start <= s0 && piece.span.end >= s1 && prices[price].span.end >= s1) {
      FullStep(w, piece, prices[price], k, s0, s1, device, sums);
    } else {
      PartialStep(w, pieces, pi, n_pieces, price, k, s0, s1, device, sums);
    }
    while (pi < n_pieces && pieces[pi].span.end <= s1) ++pi;
    ++k;
    if (pi < n_pieces) k = std::max(k, (pieces[pi].span.start - window_.start) / step_ms_);
  }
  totals_.node_cost_usd.Add(sums.node_cost_usd);
  totals_.allocated_usd.Add(sums.allocated_usd);
  totals_.idle_usd.Add(sums.idle_usd);
  totals_.unpriced_gpu_hours.Add(sums.unpriced_ms * kHoursPerMs);
  totals_.records += sums.records;
  totals_.oversubscribed_unit_steps += sums.oversubscribed_steps;
}

}  // namespace gpucost::attribution
