// The FOCUS 1.3 and 1.4 CSV writer: the column mapping of docs/focus.md, one line per charge.
#include <algorithm>
#include <array>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "core/strings.h"
#include "report/focus_export.h"
#include "report/focus_fields.h"

namespace gpucost {
namespace {

// FOCUS 1.3's columns in alphabetical order (the spec's "MAY be sorted alphabetically"), then the
// custom columns. ProviderName and PublisherName are deprecated by 1.3, kept for 1.2 readers, and
// gone from 1.4; CommitmentProgramEligibilityDetails and InvoiceDetailId are new in 1.4.
constexpr std::array<std::string_view, 83> kAllColumns = {
    "AllocatedMethodDetails", "AllocatedMethodId", "AllocatedResourceId", "AllocatedResourceName",
    "AllocatedTags", "AvailabilityZone", "BilledCost", "BillingAccountId", "BillingAccountName",
    "BillingAccountType", "BillingCurrency", "BillingPeriodEnd", "BillingPeriodStart",
    "CapacityReservationId", "CapacityReservationStatus", "ChargeCategory", "ChargeClass",
    "ChargeDescription", "ChargeFrequency", "ChargePeriodEnd", "ChargePeriodStart",
    "CommitmentDiscountCategory", "CommitmentDiscountId", "CommitmentDiscountName",
    "CommitmentDiscountQuantity", "CommitmentDiscountStatus", "CommitmentDiscountType",
    "CommitmentDiscountUnit", "CommitmentProgramEligibilityDetails", "ConsumedQuantity",
    "ConsumedUnit", "ContractApplied", "ContractedCost", "ContractedUnitPrice", "EffectiveCost",
    "HostProviderName", "InvoiceDetailId", "InvoiceId", "InvoiceIssuerName", "ListCost",
    "ListUnitPrice", "PricingCategory", "PricingCurrency", "PricingCurrencyContractedUnitPrice",
    "PricingCurrencyEffectiveCost", "PricingCurrencyListUnitPrice", "PricingQuantity",
    "PricingUnit", "ProviderName", "PublisherName", "RegionId", "RegionName", "ResourceId",
    "ResourceName", "ResourceType", "ServiceCategory", "ServiceName", "ServiceProviderName",
    "ServiceSubcategory", "SkuId", "SkuMeter", "SkuPriceDetails", "SkuPriceId", "SubAccountId",
    "SubAccountName", "SubAccountType", "Tags",
    // custom columns
    "x_Cluster", "x_Namespace", "x_Team", "x_Workload", "x_WorkloadKind", "x_GpuModel",
    "x_MigProfile", "x_PriceSource", "x_Estimated", "x_Utilization", "x_UtilizedCost",
    "x_WasteCost", "x_IdleCost", "x_HeldGpuHours", "x_UnmeasuredGpuHours", "x_SharingMode"};

bool InVersion(std::string_view column, FocusVersion v) {
  if (column == "ProviderName" || column == "PublisherName") return v == FocusVersion::k1_3;
  if (column == "CommitmentProgramEligibilityDetails" || column == "InvoiceDetailId") {
    return v == FocusVersion::k1_4;
  }
  return true;
}

const std::vector<std::string_view>& ColumnsOf(FocusVersion v) {
  static const auto make = [](FocusVersion version) {
    std::vector<std::string_view> cols;
    for (std::string_view c : kAllColumns) {
      if (InVersion(c, version)) cols.push_back(c);
    }
    return cols;
  };
  static const std::vector<std::string_view> k13 = make(FocusVersion::k1_3);
  static const std::vector<std::string_view> k14 = make(FocusVersion::k1_4);
  return v == FocusVersion::k1_4 ? k14 : k13;
}

constexpr std::string_view kGpuHours = "GPU-Hours";
// An AWS Neuron device held for an hour (docs/report.md "Unit kinds").
constexpr std::string_view kAcceleratorHours = "Accelerator-Hours";
constexpr std::string_view kCurrency = "USD";

// FOCUS NumericFormat: plain decimal, no exponent, no "+", shortest text that reads back as the
// same double.
std::string Num(double v) {
  if (v == 0) return "0";  // also -0
  char buf[512];
  const auto [ptr, ec] = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed);
  return ec == std::errc() ? std::string(buf, ptr) : std::string("0");
}

// FOCUS DateTimeFormat: YYYY-MM-DDTHH:mm:ssZ. Sub-second boundaries (only at a window edge or a
// step grid that is not on whole seconds) round outward so a period never becomes empty.
std::string Time(Instant t, bool is_end) {
  auto s = std::chrono::floor<std::chrono::seconds>(t);
  if (is_end && s < t) s += std::chrono::seconds(1);
  const auto days = std::chrono::floor<std::chrono::days>(s);
  const std::chrono::year_month_day ymd(days);
  const int64_t sec = (s - days).count();
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02u-%02uT%02lld:%02lld:%02lldZ", int(ymd.year()),
                unsigned(ymd.month()), unsigned(ymd.day()), static_cast<long long>(sec / 3600),
                static_cast<long long>(sec / 60 % 60), static_cast<long long>(sec % 60));
  return buf;
}

Instant MonthStart(Instant t) {
  const std::chrono::year_month_day ymd(std::chrono::floor<std::chrono::days>(t));
  return Instant(std::chrono::sys_days(ymd.year() / ymd.month() / 1));
}

Instant NextMonth(Instant t) {
  const std::chrono::year_month_day ymd(std::chrono::floor<std::chrono::days>(t));
  return Instant(std::chrono::sys_days((ymd.year() / ymd.month() + std::chrono::months(1)) / 1));
}

// A flat JSON object (FOCUS KeyValueFormat) from ordered key-value pairs; values are already
// serialized JSON.
std::string JsonObject(const std::vector<std::pair<std::string, std::string>>& kv) {
  std::string out = "{";
  for (size_t i = 0; i < kv.size(); ++i) {
    if (i > 0) out += ',';
    out += JsonString(kv[i].first);
    out += ':';
    out += kv[i].second;
  }
  out += '}';
  return out;
}

// Cells in header order; Put checks the order so the mapping cannot drift from the header, and
// drops the columns the version does not have.
class Line {
 public:
  explicit Line(FocusVersion version) : version_(version), columns_(ColumnsOf(version)) {}
  void Put(std::string_view column, std::optional<std::string> value) {
    if (!InVersion(column, version_)) return;
    if (cells_.size() >= columns_.size() || columns_[cells_.size()] != column) {
      std::fprintf(stderr, "internal error: FOCUS column %.*s out of order\n",
                   static_cast<int>(column.size()), column.data());
      std::abort();
    }
    cells_.push_back(std::move(value));
  }
  void Null(std::string_view column) { Put(column, std::nullopt); }
  void Write(std::ostream& out) const {
    for (size_t i = 0; i < cells_.size(); ++i) {
      if (i > 0) out << ',';
      if (cells_[i]) out << CsvField(*cells_[i]);
    }
    out << '\n';
  }
  size_t size() const { return cells_.size(); }

 private:
  FocusVersion version_;
  const std::vector<std::string_view>& columns_;
  std::vector<std::optional<std::string>> cells_;
};

std::optional<std::string> NonEmpty(std::string_view s) {
  if (s.empty()) return std::nullopt;
  return std::string(s);
}

constexpr std::string_view kCommitmentType = "Commitment";

std::string JoinUnique(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  v.erase(std::remove(v.begin(), v.end(), std::string()), v.end());
  std::string out;
  for (const std::string& s : v) {
    if (!out.empty()) out += ',';
    out += s;
  }
  return out;
}

std::string MethodDetails(const FocusCharge& c, const FocusTable& t, const Node& node,
                          std::string_view hours_unit) {
  std::string e = R"({"Elements":[)";
  const auto element = [&](double ratio, double hours, std::string_view component) {
    if (e.back() == '}') e += ',';
    e += StrCat(R"({"AllocatedRatio":)", Num(ratio), R"(,"UsageUnit":")", hours_unit,
                R"(","UsageQuantity":)", Num(hours), R"(,"x_Component":")", component, "\"}");
  };
  if (c.holder == kNoIndex) {
    element(c.held_ratio, c.held_gpu_hours, "Idle");
  } else {
    element(c.held_ratio, c.held_gpu_hours, "Held");
    if (c.idle_usd != 0 || c.idle_gpu_hours != 0) {
      element(c.idle_ratio, c.idle_gpu_hours, "IdleShare");
    }
  }
  e += StrCat(R"(],"x_IdlePolicy":")", IdlePolicyName(t.options.idle.policy),
              R"(","x_IdleScope":")",
              t.options.idle.policy == IdlePolicy::kSeparate
                  ? std::string_view("none")
                  : IdleScopeName(t.options.idle.scope),
              R"(","x_SharingMode":")", SharingModeName(node.sharing), "\"}");
  return e;
}

}  // namespace

void WriteFocusCsv(const FocusTable& t, std::ostream& out) {
  const FocusVersion version = t.options.version;
  const std::vector<std::string_view>& columns = ColumnsOf(version);
  for (size_t i = 0; i < columns.size(); ++i) {
    if (i > 0) out << ',';
    out << columns[i];
  }
  out << '\n';
  const Inventory& inv = *t.inventory;
  // Nodes whose units are Neuron devices' cores: their hours are accelerator-hours.
  std::vector<bool> neuron_node(inv.nodes.size(), false);
  for (const GpuUnit& u : inv.units) {
    if (u.kind() == UnitKind::kNeuronDevice) neuron_node[u.node] = true;
  }
  for (const FocusCharge& c : t.charges) {
    const Node& node = inv.nodes[c.node];
    const std::string hours_unit(neuron_node[c.node] ? kAcceleratorHours : kGpuHours);
    // The cloud that sold and hosts the node's GPUs, where its provider ID says; gpucost's name
    // otherwise; --focus-provider's on every row when given.
    const std::string provider =
        !t.options.provider_name.empty() ? t.options.provider_name : HostProvider(node, "gpucost");
    const Holder* h = c.holder == kNoIndex ? nullptr : &inv.holders[c.holder];
    static const PricePeriod kNone;
    const PricePeriod& price = c.span < t.prices[c.node].size() ? t.prices[c.node][c.span] : kNone;
    const bool slurm = t.slurm_node[c.node];
    const bool committed = price.source == PriceSource::kCommitment;
    const double effective = c.effective_usd();
    const double list = c.total_list_usd();
    const double quantity = c.pricing_gpu_hours();
    const double list_unit = price.list_or_price();
    const auto node_tags = NodeTags(node);
    const std::string sku = SkuId(node);

    std::vector<std::string> models, profiles;
    for (UnitIndex u : c.units) {
      models.push_back(inv.units[u].gpu_model.empty() ? node.gpu_model : inv.units[u].gpu_model);
      profiles.push_back(inv.units[u].mig_profile);
    }

    Line l(version);
    l.Put("AllocatedMethodDetails", MethodDetails(c, t, node, hours_unit));
    l.Put("AllocatedMethodId", std::string(kFocusAllocatedMethodId));
    if (h != nullptr) {
      const bool job = h->kind == HolderKind::kSlurmJob;
      l.Put("AllocatedResourceId",
            job ? StrCat(h->cluster, "/job/", h->pod)
                : StrCat(h->pod_uid.empty() ? StrCat(h->namespace_name, "/", h->pod) : h->pod_uid,
                         "/", h->container));
      l.Put("AllocatedResourceName",
            job ? StrCat("job ", h->pod, " (", h->workload, ")")
                : StrCat(h->namespace_name, "/", h->pod, "/", h->container));
      l.Put("AllocatedTags", JsonObject(HolderTags(*h, node_tags)));
    } else {  // the unallocated part of the origin charge
      l.Null("AllocatedResourceId");
      l.Null("AllocatedResourceName");
      l.Null("AllocatedTags");
    }
    l.Put("AvailabilityZone", NonEmpty(node.zone));
    l.Put("BilledCost", Num(effective));
    // The account the bill charged the instance to where the price came from a bill; the
    // cluster otherwise (docs/focus.md "Accounts").
    const std::string cluster = node.cluster.empty() ? std::string("default") : node.cluster;
    const Accounts acct = AccountsOf(price, cluster);
    l.Put("BillingAccountId", acct.billing_id);
    l.Put("BillingAccountName", acct.billing_name);
    l.Put("BillingAccountType", acct.billing_type);
    l.Put("BillingCurrency", std::string(kCurrency));
    l.Put("BillingPeriodEnd", Time(NextMonth(c.period_start), true));
    l.Put("BillingPeriodStart", Time(MonthStart(c.period_start), false));
    l.Null("CapacityReservationId");
    l.Null("CapacityReservationStatus");
    l.Put("ChargeCategory", "Usage");
    l.Null("ChargeClass");
    std::string what = node.gpu_model.empty() ? std::string("GPUs") : node.gpu_model;
    if (node.physical_gpus > 0) what = StrCat(node.physical_gpus, " x ", what);
    l.Put("ChargeDescription",
          StrCat(neuron_node[c.node] ? "Neuron device time of " : "GPU time of ",
                 slurm ? "Slurm" : "Kubernetes", " node ", node.name, " (", what, ")"));
    l.Put("ChargeFrequency", "Usage-Based");
    l.Put("ChargePeriodEnd", Time(c.period_end, true));
    l.Put("ChargePeriodStart", Time(c.period_start, false));
    if (committed) {
      const std::string id = !price.commitment.empty() ? price.commitment
                             : price.why.empty()       ? std::string("gpucost-commitment")
                                                       : price.why;
      l.Put("CommitmentDiscountCategory", "Usage");
      l.Put("CommitmentDiscountId", id);
      l.Put("CommitmentDiscountName", id);
      l.Put("CommitmentDiscountQuantity", Num(quantity));
      l.Put("CommitmentDiscountStatus", "Used");
      l.Put("CommitmentDiscountType", std::string(kCommitmentType));
      l.Put("CommitmentDiscountUnit", hours_unit);
      // 1.4: the program a commitment discount applied from is one the charge is eligible for.
      // gpucost knows no other program the GPU time could be eligible for.
      l.Put("CommitmentProgramEligibilityDetails",
            StrCat(R"({"CommitmentPrograms":[{"ProgramType":")", kCommitmentType, R"("}]})"));
    } else {
      for (std::string_view col :
           {"CommitmentDiscountCategory", "CommitmentDiscountId", "CommitmentDiscountName",
            "CommitmentDiscountQuantity", "CommitmentDiscountStatus", "CommitmentDiscountType",
            "CommitmentDiscountUnit", "CommitmentProgramEligibilityDetails"}) {
        l.Null(col);
      }
    }
    l.Put("ConsumedQuantity", Num(quantity));
    l.Put("ConsumedUnit", hours_unit);
    l.Null("ContractApplied");
    // Contracted = before commitment discounts: the list price where a commitment applied,
    // otherwise the price itself (docs/focus.md "Costs").
    const double contracted_unit = committed ? list_unit : price.usd_per_gpu_hour;
    l.Put("ContractedCost", Num(committed ? list : effective));
    l.Put("ContractedUnitPrice", Num(contracted_unit));
    l.Put("EffectiveCost", Num(effective));
    l.Put("HostProviderName", HostProvider(node, provider));
    l.Null("InvoiceDetailId");  // gpucost issues no invoices
    l.Null("InvoiceId");
    l.Put("InvoiceIssuerName", provider);
    l.Put("ListCost", Num(list));
    l.Put("ListUnitPrice", Num(list_unit));
    l.Put("PricingCategory", std::string(PricingCategory(price.source, node.capacity_type)));
    l.Put("PricingCurrency", std::string(kCurrency));
    l.Put("PricingCurrencyContractedUnitPrice", Num(contracted_unit));
    l.Put("PricingCurrencyEffectiveCost", Num(effective));
    l.Put("PricingCurrencyListUnitPrice", Num(list_unit));
    l.Put("PricingQuantity", Num(quantity));
    l.Put("PricingUnit", hours_unit);
    l.Put("ProviderName", provider);
    l.Put("PublisherName", provider);
    l.Put("RegionId", NonEmpty(node.region));
    l.Put("RegionName", NonEmpty(node.region));
    // Without a provider ID the node's name is qualified by its cluster: unique across clusters
    // and not a duplicate of ResourceName.
    l.Put("ResourceId", node.provider_id.empty()
                            ? StrCat(node.cluster.empty() ? std::string("default") : node.cluster,
                                     "/", node.name)
                            : node.provider_id);
    l.Put("ResourceName", node.name);
    l.Put("ResourceType", slurm ? "Slurm Node" : "Kubernetes Node");
    l.Put("ServiceCategory", "Compute");
    l.Put("ServiceName", slurm ? "Slurm GPU" : "Kubernetes GPU");
    l.Put("ServiceProviderName", provider);
    l.Put("ServiceSubcategory", slurm ? "Other (Compute)" : "Containers");
    l.Put("SkuId", sku);
    l.Put("SkuMeter", hours_unit);
    l.Put("SkuPriceDetails",
          JsonObject({{"x_EffectiveFrom", JsonString(Time(price.effective_from, false))},
                      {"x_ListUsdPerGpuHour", Num(list_unit)},
                      {"x_PriceSource", JsonString(PriceSourceName(price.source))},
                      {"x_PriceWhy", JsonString(price.why)},
                      {"x_UsdPerGpuHour", Num(price.usd_per_gpu_hour)}}));
    l.Put("SkuPriceId", StrCat(sku, "/", PriceSourceName(price.source), "/",
                               Num(price.usd_per_gpu_hour), "/",
                               Time(price.effective_from, false)));
    l.Put("SubAccountId", NonEmpty(acct.sub_id));
    l.Put("SubAccountName", NonEmpty(acct.sub_name));
    l.Put("SubAccountType", NonEmpty(acct.sub_type));
    l.Put("Tags", JsonObject(node_tags));

    l.Put("x_Cluster", node.cluster.empty() ? std::string("default") : node.cluster);
    if (h != nullptr) {
      l.Put("x_Namespace", NonEmpty(h->namespace_name));
      l.Put("x_Team", NonEmpty(h->team));
      l.Put("x_Workload", NonEmpty(h->workload));
      l.Put("x_WorkloadKind", NonEmpty(h->workload_kind));
    } else {
      l.Null("x_Namespace");
      l.Null("x_Team");
      l.Null("x_Workload");
      l.Null("x_WorkloadKind");
    }
    l.Put("x_GpuModel", NonEmpty(JoinUnique(models)));
    l.Put("x_MigProfile", NonEmpty(JoinUnique(profiles)));
    l.Put("x_PriceSource", std::string(PriceSourceName(price.source)));
    const bool measured = h != nullptr && c.measured_cost_usd > 0;
    const bool any_measured = h != nullptr && c.unmeasured_gpu_hours < c.held_gpu_hours;
    l.Put("x_Estimated", h == nullptr ? std::optional<std::string>()
                                      : std::string(c.estimated ? "true" : "false"));
    l.Put("x_Utilization", measured ? std::optional(Num(c.utilized_usd / c.measured_cost_usd))
                                    : std::nullopt);
    l.Put("x_UtilizedCost", any_measured ? std::optional(Num(c.utilized_usd)) : std::nullopt);
    if (h == nullptr) {
      l.Put("x_WasteCost", Num(c.cost_usd));
    } else if (any_measured) {
      l.Put("x_WasteCost", Num(c.measured_cost_usd - c.utilized_usd + c.idle_usd));
    } else {
      l.Null("x_WasteCost");
    }
    l.Put("x_IdleCost", Num(h == nullptr ? c.cost_usd : c.idle_usd));
    l.Put("x_HeldGpuHours", Num(h == nullptr ? 0.0 : c.held_gpu_hours));
    l.Put("x_UnmeasuredGpuHours", Num(c.unmeasured_gpu_hours));
    l.Put("x_SharingMode", std::string(SharingModeName(node.sharing)));
    if (l.size() != columns.size()) {
      std::fprintf(stderr, "internal error: FOCUS line has %zu of %zu columns\n", l.size(),
                   columns.size());
      std::abort();
    }
    l.Write(out);
  }
}

}  // namespace gpucost
