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
