#include "billing/cur_columns.h"

#include <algorithm>

#include "core/strings.h"

namespace gpucost::billing {
namespace {

// Legacy names from the CUR data dictionary (docs.aws.amazon.com/cur/latest/userguide/
// data-dictionary.html); CUR 2.0 names from the Data Exports table dictionary
// (table-dictionary-cur2-*.html). Order matches CurColumn.
constexpr CurColumnSpec kSpecs[kCurColumnCount] = {
    {"lineItem/LineItemType", "line_item_line_item_type", true},
    {"lineItem/UsageStartDate", "line_item_usage_start_date", true},
    {"lineItem/UsageEndDate", "line_item_usage_end_date", true},
    {"lineItem/ResourceId", "line_item_resource_id", true},
    {"lineItem/UsageType", "line_item_usage_type", true},
    {"lineItem/Operation", "line_item_operation", false},
    {"lineItem/ProductCode", "line_item_product_code", false},
    {"lineItem/UsageAmount", "line_item_usage_amount", true},
    {"lineItem/UnblendedCost", "line_item_unblended_cost", true},
    {"lineItem/NetUnblendedCost", "line_item_net_unblended_cost", false},
    {"pricing/publicOnDemandCost", "pricing_public_on_demand_cost", false},
    {"product/instanceType", "product_instance_type", false},
    {"product/regionCode", "product_region_code", false},
    {"product/region", "product_region", false},
    {"lineItem/AvailabilityZone", "line_item_availability_zone", false},
    {"lineItem/UsageAccountId", "line_item_usage_account_id", false},
    {"bill/InvoiceId", "bill_invoice_id", false},
    {"bill/PayerAccountId", "bill_payer_account_id", false},
    // The account names are CUR 2.0 columns; a legacy CUR has none.
    {"bill_payer_account_name", "bill_payer_account_name", false},
    {"line_item_usage_account_name", "line_item_usage_account_name", false},
    {"reservation/ReservationARN", "reservation_reservation_a_r_n", false},
    {"reservation/EffectiveCost", "reservation_effective_cost", false},
    {"reservation/NetEffectiveCost", "reservation_net_effective_cost", false},
    {"reservation/UnusedAmortizedUpfrontFeeForBillingPeriod",
     "reservation_unused_amortized_upfront_fee_for_billing_period", false},
    {"reservation/NetUnusedAmortizedUpfrontFeeForBillingPeriod",
     "reservation_net_unused_amortized_upfront_fee_for_billing_period", false},
    {"reservation/UnusedRecurringFee", "reservation_unused_recurring_fee", false},
    {"reservation/NetUnusedRecurringFee", "reservation_net_unused_recurring_fee", false},
    {"savingsPlan/SavingsPlanEffectiveCost", "savings_plan_savings_plan_effective_cost", false},
    {"savingsPlan/NetSavingsPlanEffectiveCost", "savings_plan_net_savings_plan_effective_cost",
     false},
    {"savingsPlan/TotalCommitmentToDate", "savings_plan_total_commitment_to_date", false},
    {"savingsPlan/UsedCommitment", "savings_plan_used_commitment", false},
    {"savingsPlan/AmortizedUpfrontCommitmentForBillingPeriod",
     "savings_plan_amortized_upfront_commitment_for_billing_period", false},
    {"savingsPlan/NetAmortizedUpfrontCommitmentForBillingPeriod",
     "savings_plan_net_amortized_upfront_commitment_for_billing_period", false},
    {"savingsPlan/RecurringCommitmentForBillingPeriod",
     "savings_plan_recurring_commitment_for_billing_period", false},
    {"savingsPlan/NetRecurringCommitmentForBillingPeriod",
     "savings_plan_net_recurring_commitment_for_billing_period", false},
    {"splitLineItem/SplitCost", "split_line_item_split_cost", false},
    {"splitLineItem/UnusedCost", "split_line_item_unused_cost", false},
};

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c; };
           return lower(x) == lower(y);
         });
}

}  // namespace

const CurColumnSpec& Spec(CurColumn c) { return kSpecs[static_cast<size_t>(c)]; }

std::string_view CurHeader::Name(CurColumn c) const {
  if (has(c)) return names[static_cast<size_t>(at(c))];
  return schema == "CUR legacy" ? Spec(c).legacy : Spec(c).snake;
}

Result<CurHeader> MapCurHeader(const std::vector<std::string_view>& fields, std::string_view source,
                               int64_t line, std::vector<std::string>& warnings) {
  CurHeader h;
  h.columns = fields.size();
  std::fill(std::begin(h.index), std::end(h.index), CurHeader::kAbsent);
  h.names.reserve(fields.size());
  int legacy = 0, snake = 0;
  for (size_t i = 0; i < fields.size(); ++i) {
    const std::string_view name = Trim(fields[i]);
    h.names.emplace_back(name);
    for (size_t c = 0; c < kCurColumnCount; ++c) {
      const bool is_legacy = EqualsIgnoreCase(name, kSpecs[c].legacy);
      if (!is_legacy && !EqualsIgnoreCase(name, kSpecs[c].snake)) continue;
      (is_legacy ? legacy : snake)++;
      if (h.index[c] != CurHeader::kAbsent) {
        warnings.push_back(StrCat(source, ":", line, ": column \"", name, "\" appears again (column ",
                                  i + 1, "); the first one is read"));
      } else {
        h.index[c] = static_cast<int>(i);
      }
      break;
    }
  }
  if (legacy == 0 && snake == 0) {
    return Status::ParseError(StrCat(source, ":", line,
                                     ": not a Cost and Usage Report: the header names none of the "
                                     "CUR columns (lineItem/UnblendedCost or line_item_unblended_cost, ...)"));
  }
  h.schema = legacy >= snake ? "CUR legacy" : "CUR 2.0";
  for (size_t c = 0; c < kCurColumnCount; ++c) {
    if (!kSpecs[c].required || h.index[c] != CurHeader::kAbsent) continue;
    const std::string_view wanted = h.schema == "CUR legacy" ? kSpecs[c].legacy : kSpecs[c].snake;
    std::string why;
    if (static_cast<CurColumn>(c) == CurColumn::kResourceId) {
      why = " (the report must be created with resource IDs included)";
    }
    return Status::ParseError(
        StrCat(source, ":", line, ": missing column ", wanted, why));
  }
  return h;
}

}  // namespace gpucost::billing
