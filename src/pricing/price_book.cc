#include "pricing/price_book.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "core/money.h"
#include "core/strings.h"
#include "core/time.h"

namespace gpucost {
namespace {

bool IsSpot(const Node& node) { return node.capacity_type == "spot"; }

const PriceRule* FirstActive(const std::vector<PriceRule>& rules, const Node& node, Instant t) {
  for (const PriceRule& r : rules) {
    if (r.ActiveAt(t) && r.Matches(node)) return &r;
  }
  return nullptr;
}

void AddBounds(const PriceRule& r, std::set<Instant>& out) {
  if (r.from) out.insert(*r.from);
  if (r.until) out.insert(*r.until);
}

// Milliseconds of [a, b) during which the node is present (its whole span when `present` is
// empty, as for nodes built by hand).
int64_t PresentMs(const Node& node, Instant a, Instant b) {
  if (node.present.empty()) return UnixMs(b) - UnixMs(a);
  int64_t ms = 0;
  for (const Interval& iv : node.present) {
    const Instant x = std::max(a, iv.start);
    const Instant y = std::min(b, iv.end);
    if (y > x) ms += UnixMs(y) - UnixMs(x);
  }
  return ms;
}

bool SamePrice(const PricePeriod& a, const PricePeriod& b) {
  const auto same = [](double x, double y) { return x == y || (std::isnan(x) && std::isnan(y)); };
  return a.source == b.source && a.commitment == b.commitment &&
         a.payer_account == b.payer_account && a.usage_account == b.usage_account &&
         same(a.usd_per_gpu_hour, b.usd_per_gpu_hour) &&
         same(a.list_usd_per_gpu_hour, b.list_usd_per_gpu_hour) && a.why == b.why &&
         a.effective_from == b.effective_from;
}

// An amount of a bill line, to the micro-dollar.
std::string DollarText(double v) { return StrCat("$", FormatDouble(std::round(v * 1e6) / 1e6)); }

// A rate as every rate prints (core/money.h): "$3.06", "$32.7726", "$4.096575".
std::string RateText(double v) { return FormatRateUsd(v, RateDecimals(v)); }

}  // namespace

std::string InstanceIdFromProviderId(std::string_view provider_id) {
  const size_t slash = provider_id.rfind('/');
  std::string_view id = slash == std::string_view::npos ? provider_id : provider_id.substr(slash + 1);
  return std::string(Trim(id));
}

PriceBook::PriceBook(PriceBookConfig config, const Catalog* catalog)
    : config_(std::move(config)), catalog_(config_.use_catalog ? catalog : nullptr) {}

void PriceBook::SetBill(std::vector<BilledCharge> charges, std::string source_name) {
  bill_.clear();
  bill_source_ = std::move(source_name);
  for (BilledCharge& c : charges) bill_[c.instance_id].push_back(std::move(c));
  for (auto& [id, list] : bill_) {
    std::sort(list.begin(), list.end(),
              [](const BilledCharge& a, const BilledCharge& b) { return a.start < b.start; });
  }
}

const std::vector<BilledCharge>& PriceBook::ChargesFor(const Node& node) const {
  static const std::vector<BilledCharge> kNone;
  if (bill_.empty() || node.provider_id.empty()) return kNone;
  const auto it = bill_.find(InstanceIdFromProviderId(node.provider_id));
  return it == bill_.end() ? kNone : it->second;
}

std::vector<std::string> PriceBook::InstanceIds() const {
  std::vector<std::string> ids;
  ids.reserve(bill_.size());
  for (const auto& [id, charges] : bill_) ids.push_back(id);
  return ids;
}

const std::vector<BilledCharge>& PriceBook::ChargesForInstance(const std::string& id) const {
  static const std::vector<BilledCharge> kNone;
  const auto it = bill_.find(id);
  return it == bill_.end() ? kNone : it->second;
}

std::optional<PriceBook::InstanceSplit> PriceBook::SplitOf(const Node& node) const {
  const CatalogInstance* entry = nullptr;
  if (catalog_ != nullptr && !node.instance_type.empty()) {
    entry = catalog_->Find(node.instance_type, node.region).instance;
  }
  InstanceSplit split;
  split.gpus = entry != nullptr ? entry->gpus : node.physical_gpus;
  if (split.gpus <= 0) return std::nullopt;
  const std::optional<double> share =
      entry != nullptr ? config_.gpu_share.Of(entry->gpus, entry->vcpus, entry->memory_gib)
                       : config_.gpu_share.Of(split.gpus, 0, 0);
  if (!share) return std::nullopt;
  split.share = *share;
  return split;
}

double PriceBook::ListPrice(const Node& node, Instant t, const CatalogInstance** entry) const {
  if (entry != nullptr) *entry = nullptr;
  if (catalog_ == nullptr || node.instance_type.empty()) return NAN;
  const CatalogMatch m = catalog_->Find(node.instance_type, node.region);
  if (m.instance == nullptr) return NAN;
  if (entry != nullptr) *entry = m.instance;
  const std::optional<double> share =
      config_.gpu_share.Of(m.instance->gpus, m.instance->vcpus, m.instance->memory_gib);
  if (!share) return NAN;
  for (const CatalogPrice& p : m.instance->prices) {
    if (p.Covers(t)) return p.usd_per_hour * *share / m.instance->gpus;
  }
  return NAN;
}

std::optional<PricePeriod> PriceBook::FromBill(const Node& node, Instant t) const {
  const std::vector<BilledCharge>& charges = ChargesFor(node);
  if (charges.empty() || node.physical_gpus <= 0) return std::nullopt;
  auto it = std::upper_bound(charges.begin(), charges.end(), t,
                             [](Instant x, const BilledCharge& c) { return x < c.start; });
  if (it == charges.begin()) return std::nullopt;
  const BilledCharge& c = *std::prev(it);
  if (t >= c.end) return std::nullopt;
  // The hours the instance ran in the charge's period: the bill's own usage amount, else the
  // node's presence (which only covers the window that was loaded).
  const double run_hours =
      c.usage_hours > 0 ? c.usage_hours
                        : static_cast<double>(PresentMs(node, c.start, c.end)) / kMsPerHour;
  if (run_hours <= 0) return std::nullopt;
  const std::optional<InstanceSplit> split = SplitOf(node);
  if (!split) return std::nullopt;  // a split mode without the instance's vCPUs and memory
  const double share = split->share;
  // The GPU part of the charge spread over the GPU-hours the instance ran, so that the node's GPU
  // cost over the charge's period equals the GPU part of the charge exactly when its presence
  // agrees with the bill, and a window that cuts the period gets its part.
  const double gpu_hours = node.physical_gpus * run_hours;
  PricePeriod p;
  p.usd_per_gpu_hour = c.effective_usd * share / gpu_hours;
  p.list_usd_per_gpu_hour =
      std::isnan(c.list_usd) ? ListPrice(node, t) : c.list_usd * share / gpu_hours;
  p.source = PriceSource::kBill;
  p.effective_from = c.start;
  p.payer_account = c.payer_account;
  p.payer_account_name = c.payer_account_name;
  p.usage_account = c.usage_account;
  p.usage_account_name = c.usage_account_name;
  p.why = StrCat(bill_source_, " (", c.where, "): ", c.instance_id, " ", FormatRfc3339(c.start),
                 " ", DollarText(c.effective_usd), c.purchase_option.empty() ? "" : " ",
                 c.purchase_option, "; GPU share ", config_.gpu_share.ToString());
  return p;
}

std::optional<PricePeriod> PriceBook::FromCatalog(const Node& node, Instant t) const {
  if (catalog_ == nullptr || node.instance_type.empty()) return std::nullopt;
  const CatalogMatch m = catalog_->Find(node.instance_type, node.region);
  if (m.instance == nullptr) return std::nullopt;
  const CatalogInstance& in = *m.instance;
  const CatalogPrice* price = nullptr;
  for (const CatalogPrice& p : in.prices) {
    if (p.Covers(t)) price = &p;
  }
  if (price == nullptr) return std::nullopt;
  const std::optional<double> share = config_.gpu_share.Of(in.gpus, in.vcpus, in.memory_gib);
  if (!share) return std::nullopt;
  const double per_gpu = *share / in.gpus;
  PricePeriod p;
  p.list_usd_per_gpu_hour = price->usd_per_hour * per_gpu;
  p.instance_gpus = in.gpus;
  p.effective_from = price->from.value_or(Instant{});
  std::string where = StrCat(catalog_->source_name, " ", in.provider, " ", in.type, " ", in.region,
                             " ", RateText(price->usd_per_hour), "/h");
  if (!m.region_exact && !node.region.empty()) {
    where += StrCat(" (no ", node.region, " price in the catalog)");
  }
  if (price->from) where += StrCat(" since ", FormatRfc3339(*price->from).substr(0, 10));
  const std::string split = StrCat(" / ", in.gpus, " GPUs",
                                   config_.gpu_share.mode == GpuShareMode::kAll
                                       ? std::string()
                                       : StrCat(" x GPU share ", FormatDouble(*share), " (",
                                                config_.gpu_share.ToString(), ")"));
  if (!IsSpot(node)) {
    p.usd_per_gpu_hour = p.list_usd_per_gpu_hour;
    p.source = PriceSource::kCatalog;
    p.why = StrCat(where, split);
    return p;
  }
  p.source = PriceSource::kSpot;
  if (config_.spot_discount) {
    p.usd_per_gpu_hour = p.list_usd_per_gpu_hour * (1 - *config_.spot_discount);
    p.why = StrCat(where, split, ", spot: ", config_.source_name, " spot discount ",
                   FormatDouble(*config_.spot_discount));
  } else if (!std::isnan(price->spot_usd_per_hour)) {
    p.usd_per_gpu_hour = price->spot_usd_per_hour * per_gpu;
    p.why = StrCat(where, ", spot ", RateText(price->spot_usd_per_hour), "/h observed", split);
  } else if (auto d = catalog_->spot_discounts.find(in.provider);
             d != catalog_->spot_discounts.end()) {
    p.usd_per_gpu_hour = p.list_usd_per_gpu_hour * (1 - d->second.discount);
    p.why = StrCat(where, split, ", spot: typical ", in.provider, " discount ",
                   FormatDouble(d->second.discount), " (an estimate; set spot prices)");
  } else {
    return std::nullopt;
  }
  return p;
}

void PriceBook::ApplyCommitment(const Node& node, Instant t, PricePeriod& p) const {
  if (IsSpot(node)) return;
  const PriceRule* c = FirstActive(config_.commitments, node, t);
  if (c == nullptr) return;
  const std::string name = c->name.empty() ? c->why : StrCat(c->name, " (", c->why, ")");
  if (!std::isnan(c->discount)) {
    p.usd_per_gpu_hour *= 1 - c->discount;
    p.why += StrCat("; commitment ", name, ": ", FormatDouble(c->discount * 100), " % off");
  } else if (!std::isnan(c->usd_per_gpu_hour)) {
    p.usd_per_gpu_hour = c->usd_per_gpu_hour;
    p.why += StrCat("; commitment ", name, ": ", RateText(c->usd_per_gpu_hour), "/GPU-hour");
  } else {
    const std::optional<InstanceSplit> split = SplitOf(node);
    if (!split) return;
    p.usd_per_gpu_hour = c->usd_per_hour * split->per_gpu();
    p.why += StrCat("; commitment ", name, ": ", DollarText(c->usd_per_hour), "/h / ", split->gpus,
                    " GPUs");
  }
  p.source = PriceSource::kCommitment;
  p.commitment = c->name.empty() ? c->why : c->name;
  if (c->from && *c->from > p.effective_from) p.effective_from = *c->from;
}

PricePeriod PriceBook::At(const Node& node, Instant t, Instant end) const {
  PricePeriod p;
  p.interval = Interval{t, end};
  const double list = ListPrice(node, t);
  if (const PriceRule* r = FirstActive(config_.overrides, node, t)) {
    p.usd_per_gpu_hour = r->usd_per_gpu_hour;
    p.list_usd_per_gpu_hour = list;
    p.source = PriceSource::kOverride;
    p.effective_from = r->from.value_or(Instant{});
    p.why = r->why;
    return p;
  }
  if (std::optional<PricePeriod> b = FromBill(node, t)) {
    b->interval = p.interval;
    return *b;
  }
  if (const PriceRule* r = FirstActive(config_.card.rules, node, t)) {
    p.usd_per_gpu_hour = r->usd_per_gpu_hour;
    p.list_usd_per_gpu_hour = list;
    p.source = PriceSource::kRateCard;
    p.effective_from = r->from.value_or(Instant{});
    p.why = r->why;
    ApplyCommitment(node, t, p);
    return p;
  }
  if (IsSpot(node)) {
    if (const PriceRule* r = FirstActive(config_.spot_prices, node, t)) {
      double usd = r->usd_per_gpu_hour;
      std::string why = r->why;
      if (std::isnan(usd)) {
        if (const std::optional<InstanceSplit> split = SplitOf(node)) {
          usd = r->usd_per_hour * split->per_gpu();
          why += StrCat(": ", DollarText(r->usd_per_hour), "/h / ", split->gpus, " GPUs");
        }
      }
      if (!std::isnan(usd)) {
        p.usd_per_gpu_hour = usd;
        p.list_usd_per_gpu_hour = list;
        p.source = PriceSource::kSpot;
        p.effective_from = r->from.value_or(Instant{});
        p.why = std::move(why);
        return p;
      }
    }
  }
  if (std::optional<PricePeriod> c = FromCatalog(node, t)) {
    c->interval = p.interval;
    if (c->source == PriceSource::kCatalog) ApplyCommitment(node, t, *c);
    return *c;
  }
  if (config_.card.default_usd_per_gpu_hour) {
    p.usd_per_gpu_hour = *config_.card.default_usd_per_gpu_hour;
    p.list_usd_per_gpu_hour = list;
    p.source = PriceSource::kDefault;
    p.why = config_.card.default_why;
    return p;
  }
  p.source = PriceSource::kUnknown;
  std::string tried = "no override, bill charge, rule or default matches";
  if (catalog_ == nullptr) {
    tried += "; the catalog is off";
  } else if (node.instance_type.empty()) {
    tried += "; the node has no instance type for the catalog";
  } else if (catalog_->Find(node.instance_type, node.region).instance == nullptr) {
    tried += StrCat("; instance type ", node.instance_type, " is not in the catalog");
  } else {
    tried += StrCat("; the catalog has no price for ", node.instance_type, " at ",
                    FormatRfc3339(t), " under GPU share ", config_.gpu_share.ToString());
  }
  p.why = StrCat("node ", node.name, ": ", tried);
  return p;
}

std::vector<PricePeriod> PriceBook::Prices(const Node& node, Window window) const {
  std::set<Instant> bounds{window.start, window.end};
  for (const PriceRule& r : config_.overrides) AddBounds(r, bounds);
  for (const PriceRule& r : config_.card.rules) AddBounds(r, bounds);
  for (const PriceRule& r : config_.spot_prices) AddBounds(r, bounds);
  for (const PriceRule& r : config_.commitments) AddBounds(r, bounds);
  if (catalog_ != nullptr && !node.instance_type.empty()) {
    if (const CatalogInstance* in = catalog_->Find(node.instance_type, node.region).instance) {
      for (const CatalogPrice& p : in->prices) {
        if (p.from) bounds.insert(*p.from);
        if (p.until) bounds.insert(*p.until);
      }
    }
  }
  for (const BilledCharge& c : ChargesFor(node)) {
    bounds.insert(c.start);
    bounds.insert(c.end);
  }
  std::vector<PricePeriod> out;
  const auto first = bounds.lower_bound(window.start);
  for (auto it = first; it != bounds.end() && *it < window.end; ++it) {
    const auto next = std::next(it);
    const Instant end = next == bounds.end() ? window.end : std::min(*next, window.end);
    if (end <= *it) continue;
    PricePeriod p = At(node, *it, end);
    if (!out.empty() && SamePrice(out.back(), p) && out.back().interval.end == p.interval.start) {
      out.back().interval.end = p.interval.end;
    } else {
      out.push_back(std::move(p));
    }
  }
  return out;
}

PriceFn PriceBook::AsPriceFn(std::shared_ptr<const PriceBook> book) {
  return [book](const Node& node, Window window) { return book->Prices(node, window); };
}

}  // namespace gpucost
