#include "pricing/price_fn.h"

#include <cmath>
#include <memory>
#include <utility>

#include "billing/cur.h"
#include "core/strings.h"

namespace gpucost {
namespace {

constexpr std::string_view kFlagWhy = "--price-per-gpu-hour";

PricePeriod WholeWindow(Window window) {
  PricePeriod period;
  period.interval = Interval{window.start, window.end};
  period.effective_from = Instant{};
  return period;
}

// A charge whose cost per instance-hour passes kMaxUsdPerHour would price its node's GPU-hours
// above the bound every other price input keeps to. The hours are the bill's own usage amount,
// else the charge's period (an instance runs at most that long in it).
Status CheckBilledRate(const billing::InstanceCharge& c, std::string_view bill_file) {
  const double period_hours = Hours(c.end - c.start);
  const double hours = c.usage_hours > 0 ? c.usage_hours : period_hours;
  if (!(hours > 0)) return Status::Ok();
  for (const double usd : {c.effective_usd, c.billed_usd, c.list_usd}) {
    if (!(std::fabs(usd) / hours > kMaxUsdPerHour)) continue;  // NaN (unknown list cost) passes
    return Status::InvalidArgument(
        StrCat(c.source_lines.empty() ? std::string(bill_file) : c.source_lines.front(), ": ",
               c.resource_id, ": ", FormatDouble(usd), " USD for ", FormatDouble(hours),
               " h of use is more than ", kMaxUsdPerHourText,
               " USD an instance-hour (docs/pricing.md, \"Limits\")"));
  }
  return Status::Ok();
}

}  // namespace

PriceFn FlatPriceFn(double usd_per_gpu_hour) {
  return [usd_per_gpu_hour](const Node&, Window window) {
    PricePeriod period = WholeWindow(window);
    period.usd_per_gpu_hour = usd_per_gpu_hour;
    period.source = PriceSource::kDefault;
    period.why = std::string(kFlagWhy);
    return std::vector<PricePeriod>{std::move(period)};
  };
}

PriceFn RateCardPriceFn(RateCard card) {
  // shared_ptr: std::function must be copyable, and copies should not duplicate the rules.
  auto shared = std::make_shared<const RateCard>(std::move(card));
  return [shared](const Node& node, Window window) {
    return std::vector<PricePeriod>{shared->Lookup(node, window)};
  };
}

PriceFn UnknownPriceFn() {
  return [](const Node& node, Window window) {
    PricePeriod period = WholeWindow(window);
    period.source = PriceSource::kUnknown;
    period.why = StrCat("no price configured for node ", node.name);
    return std::vector<PricePeriod>{std::move(period)};
  };
}

Result<std::shared_ptr<const PriceBook>> MakePriceBook(const PriceOptions& options) {
  if (options.usd_per_gpu_hour &&
      (!std::isfinite(*options.usd_per_gpu_hour) || *options.usd_per_gpu_hour < 0)) {
    return Status::InvalidArgument(
        StrCat(kFlagWhy, ": must be a finite number >= 0, got ", *options.usd_per_gpu_hour));
  }
  if (options.usd_per_gpu_hour && *options.usd_per_gpu_hour > kMaxUsdPerHour) {
    return Status::InvalidArgument(StrCat(kFlagWhy, ": must be at most ", kMaxUsdPerHourText,
                                          " USD an hour (docs/pricing.md, \"Limits\"), got ",
                                          *options.usd_per_gpu_hour));
  }
  PriceBookConfig config;
  if (!options.prices_file.empty()) {
    GPUCOST_ASSIGN_OR_RETURN(config, LoadPriceBookConfig(options.prices_file));
  }
  if (!options.use_catalog) config.use_catalog = false;
  // The flag alone is a flat price for every node, as asked; with a file it is the default rate.
  if (options.usd_per_gpu_hour && options.prices_file.empty()) config.use_catalog = false;
  if (options.usd_per_gpu_hour) {
    config.card.default_usd_per_gpu_hour = *options.usd_per_gpu_hour;
    config.card.default_why = std::string(kFlagWhy);
  }
  auto book = std::make_shared<PriceBook>(std::move(config), &BuiltinCatalog());
  if (!options.bill_file.empty()) {
    billing::CurOptions cur;
    cur.net = options.bill_net;
    GPUCOST_ASSIGN_OR_RETURN(billing::Bill bill, billing::LoadCur(options.bill_file, cur));
    std::vector<BilledCharge> charges;
    charges.reserve(bill.charges.size());
    for (billing::InstanceCharge& c : bill.charges) {
      GPUCOST_RETURN_IF_ERROR(CheckBilledRate(c, options.bill_file));
      BilledCharge b;
      b.instance_id = std::move(c.resource_id);
      b.start = c.start;
      b.end = c.end;
      b.usage_hours = c.usage_hours;
      b.effective_usd = c.effective_usd;
      b.billed_usd = c.billed_usd;
      b.list_usd = c.list_usd;
      b.purchase_option = std::move(c.purchase_option);
      b.payer_account = std::move(c.payer_account_id);
      b.payer_account_name = std::move(c.payer_account_name);
      b.usage_account = std::move(c.usage_account_id);
      b.usage_account_name = std::move(c.usage_account_name);
      b.where = c.source_lines.empty() ? std::string() : c.source_lines.front();
      if (c.source_lines.size() > 1) b.where += StrCat(" +", c.source_lines.size() - 1);
      charges.push_back(std::move(b));
    }
    book->SetBill(std::move(charges), options.bill_file);
  }
  return std::shared_ptr<const PriceBook>(std::move(book));
}

Result<PriceFn> MakePriceFn(const PriceOptions& options) {
  GPUCOST_ASSIGN_OR_RETURN(std::shared_ptr<const PriceBook> book, MakePriceBook(options));
  return PriceBook::AsPriceFn(std::move(book));
}

}  // namespace gpucost
