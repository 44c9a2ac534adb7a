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

StepWalker::StepWalker(const UnitTimelines& timelines, const Usage& usage,
                       const UsageIndex& usage_index, Span window, int64_t step_ms, CostSink& sink)
    : timelines_(timelines),
      usage_(usage),
      window_(window),
      usage_index_(usage_index),
      step_ms_(step_ms),
      sink_(sink),
      batch_(kBatchSize) {}

void StepWalker::Flush() {
  if (batch_size_ == 0) return;
  sink_.Consume(std::span<const CostRecord>(batch_.data(), batch_size_));
  batch_size_ = 0;
}

// The common case: one piece and one price cover `n` consecutive steps of `len` ms starting at
// `s0` (step `k`), so every claim is one record per step and nothing needs accumulating. All
// that does not depend on usage is computed once per run, with the same expressions (and so the
// same rounding) as a step-by-step computation; per step only the usage integral varies.
void StepWalker::FullRun(const UnitWork& w, const Piece& piece, const PriceSpan& price, int64_t k,
                         int64_t n, int64_t s0, int64_t len, SeriesCursor& device,
                         UnitSums& sums) {
  const double dt = static_cast<double>(len);
  const double p = price.usd_per_gpu_hour;
  const double lp = price.list_usd_per_gpu_hour;
  const bool priced = price.known;
  const PieceClaim* claims = timelines_.claims.data() + piece.first_claim;
  run_.clear();
  bool needs_device = false;
  for (uint32_t c = 0; c < piece.n_claims; ++c) {
    const PieceClaim& claim = claims[c];
    RunClaim& rc = run_.emplace_back();
    CostRecord& r = rc.proto;
    r.unit = w.unit;
    r.holder = slots_[claim.slot].holder;
    r.gpu_hours = claim.share * dt * kHoursPerMs;
    r.allocated_usd = priced ? claim.share * p * dt * kHoursPerMs : NAN;
    r.list_usd = priced ? claim.share * lp * dt * kHoursPerMs : NAN;
    r.effective_usd = NAN;
    r.unmeasured_gpu_hours = r.gpu_hours;
    r.activity_gpu_hours = NAN;
    r.estimated = false;
    r.oversubscribed = piece.oversubscribed;
    r.price_known = priced;
    r.price_source = price.source;
    rc.activity_weight = claim.activity_weight;
    rc.inv_share = claim.inv_share;
    rc.split = claim.split;
    SeriesCursor& own = cursors_[claim.slot];
    rc.own = own.valid() ? &own : nullptr;
    needs_device |= rc.own == nullptr;
  }
  const bool has_idle = piece.idle_share > 0;
  CostRecord idle;
  idle.unit = w.unit;
  idle.holder = kNoIndex;
  idle.gpu_hours = piece.idle_share * dt * kHoursPerMs;
  idle.allocated_usd = priced ? piece.idle_share * p * dt * kHoursPerMs : NAN;
  idle.list_usd = priced ? piece.idle_share * lp * dt * kHoursPerMs : NAN;
  idle.effective_usd = NAN;
  idle.unmeasured_gpu_hours = 0;
  idle.activity_gpu_hours = NAN;
  idle.estimated = false;
  idle.oversubscribed = false;
  idle.price_known = priced;
  idle.price_source = price.source;
  const double node_cost = w.fraction * p * dt * kHoursPerMs;
  const double unpriced_ms = w.fraction * dt;
  // 1 / covered for the usual fully covered step, without a division per step.
  const double inv_len = 1.0 / dt;
  const bool use_device = needs_device && device.valid();
  const size_t per_step = run_.size() + (has_idle ? 1 : 0);
  const bool reserve = per_step <= kBatchSize;

  int64_t a = s0;
  for (int64_t step = k; step < k + n; ++step, a += len) {
    const int64_t b = a + len;
    int64_t device_covered = 0;
    double device_integral = 0;
    if (use_device) device.Integrate(a, b, device_covered, device_integral);
    const double inv_covered = device_covered == len  ? inv_len
                               : device_covered > 0 ? 1.0 / static_cast<double>(device_covered)
                                                    : 0;
    CostRecord* out = reserve ? Reserve(per_step) : nullptr;
    for (const RunClaim& rc : run_) {
      CostRecord& r = out != nullptr ? *out++ : Next();
      r = rc.proto;
      r.step = step;
      if (rc.own != nullptr) {
        int64_t covered = 0;
        double activity = 0;
        rc.own->Integrate(a, b, covered, activity);
        Finish(r, len, covered, activity, priced, false);
      } else if (device_covered > 0) {
        const double act = device_integral * rc.activity_weight * inv_covered;
        r.activity_gpu_hours = act * dt * kHoursPerMs;
        r.effective_usd = priced ? r.allocated_usd * std::min(1.0, act * rc.inv_share) : NAN;
        r.unmeasured_gpu_hours = 0;
        r.estimated = rc.split;
      }
      if (priced) sums.allocated_usd += r.allocated_usd;
    }
    if (has_idle) {
      CostRecord& r = out != nullptr ? *out : Next();
      r = idle;
      r.step = step;
      if (priced) sums.idle_usd += idle.allocated_usd;
    }
    if (priced) {
      sums.node_cost_usd += node_cost;
    } else {
      sums.unpriced_ms += unpriced_ms;
    }
  }
  sums.records += n * static_cast<int64_t>(per_step);
  if (piece.oversubscribed) sums.oversubscribed_steps += n;
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
  double idle_list_usd_ms = 0;
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
      idle_list_usd_ms += piece.idle_share * ps.list_usd_per_gpu_hour * dt;
      int64_t device_covered = 0;
      double device_integral = 0;
      if (device.valid()) device.Integrate(x, y, device_covered, device_integral);
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
        acc.list_usd_ms += claim.share * ps.list_usd_per_gpu_hour * dt;
        acc.oversubscribed |= piece.oversubscribed;
        SeriesCursor& own = cursors_[claim.slot];
        if (own.valid()) {
          own.Integrate(x, y, acc.covered_ms, acc.activity_ms);
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
    r.list_usd = priced ? acc.list_usd_ms * kHoursPerMs : NAN;
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
    r.list_usd = priced ? idle_list_usd_ms * kHoursPerMs : NAN;
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
    if (hs >= 0) {
      cursors_.emplace_back(&usage_.holders[static_cast<size_t>(hs)].samples,
                            usage_index_.HolderHoldMs(hs));
    } else {
      cursors_.emplace_back();
    }
  }
  touched_.clear();
  SeriesCursor device(w.device, w.device_hold_ms);
  const PriceSpan* prices = w.prices.data();
  size_t price = 0;
  UnitSums sums;

  uint32_t pi = 0;
  int64_t k = (pieces[0].span.start - window_.start) / step_ms_;
  while (pi < n_pieces) {
    const int64_t s0 = window_.start + k * step_ms_;
    const int64_t s1 = std::min(s0 + step_ms_, window_.end);
    const Piece& piece = pieces[pi];
    const int64_t first = std::max(s0, piece.span.start);
    while (prices[price].span.end <= first) ++price;
    int64_t done = s1;  // end of the steps handled in this iteration
    if (piece.span.start <= s0 && piece.span.end >= s1 && prices[price].span.end >= s1) {
      // As many whole steps as the piece and the price span both cover, in one run.
      const int64_t len = s1 - s0;
      int64_t n = 1;
      if (len == step_ms_) {
        const int64_t run_end =
            std::min(std::min(piece.span.end, prices[price].span.end), window_.end);
        n = (run_end - s0) / step_ms_;
      }
      FullRun(w, piece, prices[price], k, n, s0, len, device, sums);
      k += n;
      done = s0 + n * len;
    } else {
      PartialStep(w, pieces, pi, n_pieces, price, k, s0, s1, device, sums);
      ++k;
    }
    const uint32_t before = pi;
    while (pi < n_pieces && pieces[pi].span.end <= done) ++pi;
    // A later piece may start steps ahead (the unit is absent in between).
    if (pi != before && pi < n_pieces) {
      k = std::max(k, (pieces[pi].span.start - window_.start) / step_ms_);
    }
  }
  sums.walked = true;
  if (unit_sums_.size() <= w.unit) unit_sums_.resize(timelines_.units.size());
  unit_sums_[w.unit] = sums;
}

void StepWalker::FinishTotals() {
  Flush();
  for (const UnitSums& sums : unit_sums_) {
    if (!sums.walked) continue;
    totals_.node_cost_usd.Add(sums.node_cost_usd);
    totals_.allocated_usd.Add(sums.allocated_usd);
    totals_.idle_usd.Add(sums.idle_usd);
    totals_.unpriced_gpu_hours.Add(sums.unpriced_ms * kHoursPerMs);
    totals_.records += sums.records;
    totals_.oversubscribed_unit_steps += sums.oversubscribed_steps;
  }
  unit_sums_.clear();
}

}  // namespace gpucost::attribution
