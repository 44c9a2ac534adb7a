// PriceBook: what one GPU-hour on a node costs at each moment of a window, and why. Sources, in
// order: per-node override -> bill-derived actual cost -> the user's rate card -> the built-in
// catalog (with spot prices or discounts for spot nodes) -> the default rate; commitments
// (reserved instances, savings plans) then apply to rate-card and catalog prices of on-demand
// nodes. Every source may carry an effective-date range, so a window across a price change is
// priced right on both sides. Immutable once built; const methods are thread-safe.
//
//   PriceBook book(config, &BuiltinCatalog());
//   book.SetBill(charges);                            // optional
//   std::vector<PricePeriod> p = book.Prices(node, window);   // what the engine asks
//   PriceFn fn = book.AsPriceFn();                    // shares the book
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/time.h"
#include "model/capacity.h"
#include "model/price.h"
#include "pricing/catalog.h"
#include "pricing/price_book_config.h"

namespace gpucost {

// One instance's cost over one period of a bill (normally an hour), as the bill says.
struct BilledCharge {
  std::string instance_id;  // "i-0abc..."
  Instant start;
  Instant end;
  double usage_hours = 0;    // instance-hours the bill counts in the period; 0: unknown
  double effective_usd = 0;  // amortized: what gpucost charges
  double billed_usd = 0;     // as invoiced
  double list_usd = NAN;     // public on-demand cost; NaN when the bill does not say
  std::string purchase_option;  // "OnDemand", "Spot", "Reserved", "SavingsPlan"
  std::string where;            // "cur.csv:17"
  // The payer and usage (member) accounts and their names, "" where the bill does not say.
  std::string payer_account{}, payer_account_name{}, usage_account{}, usage_account_name{};
};

// The instance ID in a node's provider ID: "aws:///us-east-1a/i-0abc" -> "i-0abc"; the last
// path element for other providers; "" when there is none.
std::string InstanceIdFromProviderId(std::string_view provider_id);

class PriceBook {
 public:
  // `catalog` may be null (no catalog), and is ignored when config.use_catalog is false. The
  // catalog must outlive the book.
  PriceBook(PriceBookConfig config, const Catalog* catalog);

  // Charges are matched to nodes by InstanceIdFromProviderId(node.provider_id).
  void SetBill(std::vector<BilledCharge> charges, std::string source_name);

  // Sorted, disjoint periods covering `window`; adjacent moments with the same price and reason
  // are one period.
  std::vector<PricePeriod> Prices(const Node& node, Window window) const;

  // The node's list (public on-demand) price per GPU-hour at `t` from the catalog under the
  // configured GPU share, and the catalog entry; NaN / null when unknown.
  double ListPrice(const Node& node, Instant t, const CatalogInstance** entry = nullptr) const;

  // How an instance-hour price of `node` becomes a GPU-hour price: the instance's GPUs (the
  // catalog's count for its type, else the node's) and the GPU share of the configured mode.
  // None when the mode needs the type's vCPUs and memory and they are unknown.
  struct InstanceSplit {
    int gpus = 0;
    double share = 1;
    double per_gpu() const { return share / gpus; }
  };
  std::optional<InstanceSplit> SplitOf(const Node& node) const;

  // The bill's charges for a node's instance, sorted by start (empty without a bill).
  const std::vector<BilledCharge>& ChargesFor(const Node& node) const;
  // Every instance ID in the bill, sorted, and the charges of one (empty when unknown).
  std::vector<std::string> InstanceIds() const;
  const std::vector<BilledCharge>& ChargesForInstance(const std::string& instance_id) const;
  bool has_bill() const { return !bill_.empty(); }
  const std::string& bill_source() const { return bill_source_; }

  const PriceBookConfig& config() const { return config_; }
  const Catalog* catalog() const { return catalog_; }

  static PriceFn AsPriceFn(std::shared_ptr<const PriceBook> book);

 private:
  PricePeriod At(const Node& node, Instant t, Instant end) const;
  std::optional<PricePeriod> FromBill(const Node& node, Instant t) const;
  std::optional<PricePeriod> FromCatalog(const Node& node, Instant t) const;
  void ApplyCommitment(const Node& node, Instant t, PricePeriod& p) const;

  PriceBookConfig config_;
  const Catalog* catalog_;
  std::map<std::string, std::vector<BilledCharge>> bill_;  // instance id -> charges
  std::string bill_source_;
};

}  // namespace gpucost
