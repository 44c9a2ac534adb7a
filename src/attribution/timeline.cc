#include "attribution/timeline.h"

#include <algorithm>
#include <numeric>
#include <string>
#include <tuple>
#include <utility>

#include "core/strings.h"

namespace gpucost::attribution {

struct TimelineEvent {
  int64_t t;
  bool start;
  bool presence;  // presence toggle, else a claim
  uint32_t local;
  uint32_t claim;
};

// Scratch state of one unit while its GPU is swept.
struct TimelineScratch {
  UnitIndex unit = kNoIndex;
  bool present = false;
  bool warned = false;
  std::vector<uint32_t> active;     // indexes into the sorted claims
  std::vector<PieceClaim> current;  // merged, scaled claims of the current piece
  double held = 0;
  double raw = 0;  // held shares before scaling
  bool oversubscribed = false;
  std::vector<Piece> pieces;  // first_claim relative to `claims`
  std::vector<PieceClaim> claims;
  std::vector<Slot> slots;
};

namespace {

// Shares within this relative tolerance of f are "exactly full", not over-subscribed: ten
// replicas of 1/10 sum to 0.9999999999999999 or 1.0000000000000002 depending on order.
constexpr double kShareTolerance = 1e-9;

uint32_t SlotOf(TimelineScratch& s, HolderIndex holder) {
  for (size_t i = s.slots.size(); i-- > 0;) {
    if (s.slots[i].holder == holder) return static_cast<uint32_t>(i);
  }
  s.slots.push_back({holder, -1});
  return static_cast<uint32_t>(s.slots.size() - 1);
}

// Merges the unit's active claims by holder and scales them when they exceed f.
void ComputeCurrent(const Inventory& inv, const std::vector<ClaimSpan>& claims, TimelineScratch& s) {
  s.current.clear();
  double raw = 0;
  for (uint32_t c : s.active) {
    const uint32_t slot = SlotOf(s, claims[c].holder);
    raw += claims[c].share;
    auto it = std::find_if(s.current.begin(), s.current.end(),
                           [&](const PieceClaim& pc) { return pc.slot == slot; });
    if (it != s.current.end()) {
      it->share += claims[c].share;
    } else {
      s.current.push_back({slot, false, claims[c].share, 0, 0});
    }
  }
  std::sort(s.current.begin(), s.current.end(),
            [](const PieceClaim& a, const PieceClaim& b) { return a.slot < b.slot; });
  s.raw = raw;
  const double f = inv.units[s.unit].fraction;
  s.oversubscribed = raw > f * (1 + kShareTolerance);
  if (s.oversubscribed) {
    const double scale = f / raw;
    s.held = 0;
    for (PieceClaim& pc : s.current) {
      pc.share *= scale;
      s.held += pc.share;
    }
  } else {
    s.held = raw;
  }
}

bool SameAsLast(const TimelineScratch& s, int64_t t, double gpu_share_sum) {
  if (s.pieces.empty()) return false;
  const Piece& last = s.pieces.back();
  if (last.span.end != t || last.n_claims != s.current.size() ||
      last.gpu_share_sum != gpu_share_sum || last.oversubscribed != s.oversubscribed) {
    return false;
  }
  for (size_t i = 0; i < s.current.size(); ++i) {
    const PieceClaim& a = s.claims[last.first_claim + i];
    if (a.slot != s.current[i].slot || a.share != s.current[i].share) return false;
  }
  return true;
}

void EmitPiece(const Inventory& inv, TimelineScratch& s, Span span, double gpu_share_sum,
               Warnings& warnings) {
  if (SameAsLast(s, span.start, gpu_share_sum)) {
    s.pieces.back().span.end = span.end;
    return;
  }
  const GpuUnit& unit = inv.units[s.unit];
  Piece p;
  p.span = span;
  p.first_claim = static_cast<uint32_t>(s.claims.size());
  p.n_claims = static_cast<uint32_t>(s.current.size());
  p.oversubscribed = s.oversubscribed;
  p.gpu_share_sum = gpu_share_sum;
  const double idle = unit.fraction - s.held;
  p.idle_share = s.oversubscribed || idle < unit.fraction * 1e-12 ? 0.0 : idle;
  const bool mig = MeasuredAlone(unit.partition.kind);
  for (PieceClaim pc : s.current) {
    pc.inv_share = pc.share > 0 ? 1.0 / pc.share : 0.0;
    if (mig) {
      pc.activity_weight = pc.share;
    } else if (gpu_share_sum > 0) {
      pc.activity_weight = pc.share / gpu_share_sum;
      pc.split = gpu_share_sum > pc.share * (1 + kShareTolerance);
    }
    s.claims.push_back(pc);
  }
  s.pieces.push_back(p);
  if (s.oversubscribed && !s.warned) {
    s.warned = true;
    warnings.Add(StrCat("node ", inv.nodes[unit.node].name, " unit ", unit.gpu_uuid, " ",
                        unit.partition.ToString(), ": held shares sum to ", s.raw, ", exceeding f=",
                        unit.fraction, " from ", FormatRfc3339(InstantFromUnixMs(span.start)),
                        "; shares scaled to fit (records flagged oversubscribed)"));
  }
}

void SweepGroup(const Inventory& inv, const std::vector<ClaimSpan>& claims,
                const std::vector<uint32_t>& claim_begin,
                const std::vector<std::vector<Span>>& presence, std::vector<TimelineScratch>& units,
                std::vector<TimelineEvent>& events, Warnings& warnings) {
  events.clear();
  for (uint32_t j = 0; j < units.size(); ++j) {
    const UnitIndex u = units[j].unit;
    for (Span s : presence[u]) {
      events.push_back({s.start, true, true, j, 0});
      events.push_back({s.end, false, true, j, 0});
    }
    for (uint32_t c = claim_begin[u]; c < claim_begin[u + 1]; ++c) {
      events.push_back({claims[c].span.start, true, false, j, c});
      events.push_back({claims[c].span.end, false, false, j, c});
    }
  }
  std::sort(events.begin(), events.end(), [](const TimelineEvent& a, const TimelineEvent& b) {
    return std::tie(a.t, a.local, a.claim, a.start) < std::tie(b.t, b.local, b.claim, b.start);
  });
  size_t e = 0;
  while (e < events.size()) {
    const int64_t t = events[e].t;
    for (; e < events.size() && events[e].t == t; ++e) {
      const TimelineEvent& ev = events[e];
      TimelineScratch& s = units[ev.local];
      if (ev.presence) {
        s.present = ev.start;
      } else if (ev.start) {
        s.active.push_back(ev.claim);
      } else {
        std::erase(s.active, ev.claim);
      }
    }
    if (e == events.size()) break;
    const Span span{t, events[e].t};
    double gpu_share_sum = 0;
    for (TimelineScratch& s : units) {
      if (!s.present) continue;
      ComputeCurrent(inv, claims, s);
      if (!MeasuredAlone(inv.units[s.unit].partition.kind)) gpu_share_sum += s.held;
    }
    for (TimelineScratch& s : units) {
      if (!s.present) continue;
      const bool mig = MeasuredAlone(inv.units[s.unit].partition.kind);
      EmitPiece(inv, s, span, mig ? 0.0 : gpu_share_sum, warnings);
    }
  }
}

}  // namespace

TimelineBuilder::TimelineBuilder(const Inventory& inventory, std::vector<ClaimSpan> claims,
                                 const std::vector<std::vector<Span>>& presence,
                                 Warnings& warnings)
    : inv_(inventory), claims_(std::move(claims)), presence_(presence), warnings_(warnings) {
  const size_t n = inv_.units.size();
  std::sort(claims_.begin(), claims_.end(), [](const ClaimSpan& a, const ClaimSpan& b) {
    return std::tie(a.unit, a.span.start, a.holder) < std::tie(b.unit, b.span.start, b.holder);
  });
  claim_begin_.assign(n + 1, 0);
  for (const ClaimSpan& c : claims_) ++claim_begin_[c.unit + 1];
  for (size_t u = 0; u < n; ++u) claim_begin_[u + 1] += claim_begin_[u];

  // Units of one physical GPU are swept together: the split of a shared GPU's activity needs the
  // shares of every holder on the GPU. A unit with no GPU UUID is a GPU of its own.
  order_.resize(n);
  std::iota(order_.begin(), order_.end(), 0);
  std::sort(order_.begin(), order_.end(), [&](UnitIndex a, UnitIndex b) {
    return std::tie(inv_.units[a].node, inv_.units[a].gpu_uuid, a) <
           std::tie(inv_.units[b].node, inv_.units[b].gpu_uuid, b);
  });
}

TimelineBuilder::~TimelineBuilder() = default;

std::span<const UnitIndex> TimelineBuilder::Next(UnitTimelines& out, bool append) {
  const size_t n = order_.size();
  if (out.units.size() != n) out.units.resize(n);
  if (!append) {
    out.pieces.clear();
    out.claims.clear();
    out.slots.clear();
  }
  if (next_ >= n) return {};
  const size_t i = next_;
  const GpuUnit& first = inv_.units[order_[i]];
  size_t j = i + 1;
  if (!first.gpu_uuid.empty()) {
    while (j < n && inv_.units[order_[j]].node == first.node &&
           inv_.units[order_[j]].gpu_uuid == first.gpu_uuid) {
      ++j;
    }
  }
  group_.assign(j - i, TimelineScratch{});
  for (size_t k = i; k < j; ++k) group_[k - i].unit = order_[k];
  SweepGroup(inv_, claims_, claim_begin_, presence_, group_, events_, warnings_);
  for (TimelineScratch& s : group_) {
    UnitTimeline& t = out.units[s.unit];
    t.first_piece = static_cast<uint32_t>(out.pieces.size());
    t.n_pieces = static_cast<uint32_t>(s.pieces.size());
    t.first_slot = static_cast<uint32_t>(out.slots.size());
    t.n_slots = static_cast<uint32_t>(s.slots.size());
    const auto claim_base = static_cast<uint32_t>(out.claims.size());
    for (Piece p : s.pieces) {
      p.first_claim += claim_base;
      out.pieces.push_back(p);
    }
    out.claims.insert(out.claims.end(), s.claims.begin(), s.claims.end());
    out.slots.insert(out.slots.end(), s.slots.begin(), s.slots.end());
  }
  next_ = j;
  return {order_.data() + i, j - i};
}

UnitTimelines BuildTimelines(const Inventory& inv, std::vector<ClaimSpan> claims,
                             const std::vector<std::vector<Span>>& presence, Warnings& warnings) {
  TimelineBuilder builder(inv, std::move(claims), presence, warnings);
  UnitTimelines out;
  out.units.resize(inv.units.size());
  while (!builder.Next(out, /*append=*/true).empty()) {
  }
  return out;
}

}  // namespace gpucost::attribution
