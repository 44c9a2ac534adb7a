// AWS Cost and Usage Report import: reads a legacy CUR or CUR 2.0 CSV (plain or gzip) in one
// streaming pass and returns the bill's EC2 instance charges, one per instance and usage period,
// with amortized (effective), billed and list cost, plus diagnostics that account for every other
// row's money. The rules (which rows, which columns, how effective cost is formed) are in
// docs/billing.md. Stateless functions; thread-safe.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "billing/csv_reader.h"
#include "core/result.h"
#include "core/time.h"

namespace gpucost::billing {

// One EC2 instance (resource id "i-...") over one usage period of the bill (normally one hour).
struct InstanceCharge {
  std::string resource_id;        // "i-0abc..."
  Instant start, end;             // line_item_usage_start_date / end_date ([start, end))
  double usage_hours = 0;         // line_item_usage_amount of the usage rows (negations excluded)
  double effective_usd = 0;       // amortized: per line item type, see docs/billing.md
  double billed_usd = 0;          // unblended (net unblended when present): what the invoice says
  double list_usd = NAN;          // pricing_public_on_demand_cost; NaN when absent or empty
  std::string instance_type, region, availability_zone;
  std::string purchase_option;    // "OnDemand", "Spot", "Reserved", "SavingsPlan" (most hours)
  std::string usage_account_id, invoice_id;
  // bill_payer_account_id, and the account names CUR 2.0 adds (bill_payer_account_name,
  // line_item_usage_account_name); "" where the file has no such column.
  std::string payer_account_id, payer_account_name, usage_account_name;
  std::vector<std::string> source_lines;  // "cur.csv.gz:17" for each contributing line
};

// Rows of one kind and their money. Effective cost follows the amortization rules; billed cost is
// the (net) unblended cost.
struct CostBucket {
  int64_t rows = 0;
  double effective_usd = 0;
  double billed_usd = 0;
};

struct BillDiagnostics {
  int64_t rows_read = 0;  // data rows (header and blank lines excluded)
  int64_t rows_used = 0;  // rows that went into an InstanceCharge (== instances.rows)
  // Every data row lands in exactly one bucket, so the buckets' sums (split rows excluded) are
  // the file's totals.
  CostBucket instances;        // instance usage rows: the sums of the charges
  CostBucket other_usage;      // non-EC2 or non-instance usage: EBS, data transfer, EKS, ...
  CostBucket commitment_fees;  // RIFee, SavingsPlanRecurringFee/UpfrontFee, RI upfront Fee,
                               // SavingsPlanNegation without an instance: effective = unused part
  CostBucket adjustments;      // Tax, Credit, Refund, other Fee, discounts: not tied to an instance
  // Split cost allocation rows (EKSPod-EC2 / ECSTask-EC2) re-express instance cost and are never
  // counted in totals; effective = split_cost + unused_cost columns, billed = unblended.
  CostBucket split_cost_skipped;
  std::vector<std::string> warnings;  // "cur.csv:17: ..."; at most kMaxWarnings kept
  int64_t warnings_dropped = 0;

  static constexpr size_t kMaxWarnings = 200;

  double total_effective_usd() const {
    return instances.effective_usd + other_usage.effective_usd + commitment_fees.effective_usd +
           adjustments.effective_usd;
  }
  double total_billed_usd() const {
    return instances.billed_usd + other_usage.billed_usd + commitment_fees.billed_usd +
           adjustments.billed_usd;
  }
};

struct Bill {
  std::vector<InstanceCharge> charges;  // sorted by (resource_id, start); one per resource and period
  BillDiagnostics diagnostics;
  std::string schema;  // "CUR legacy" | "CUR 2.0"
};

struct CurOptions {
  // Effective cost from the *_net_* columns (after EDP and other discounts) where the file has
  // them; gross columns otherwise (with a warning).
  bool net = false;
};

// Reads a CUR file, CSV or gzip CSV (told apart by the gzip magic bytes, not the name).
Result<Bill> LoadCur(const std::string& path, const CurOptions& options = {});
// Reads CUR text held by the caller; `source_name` names it in errors and source_lines.
Result<Bill> ParseCur(std::string_view csv_text, std::string_view source_name,
                      const CurOptions& options = {});
// The streaming core of both: reads `source` chunk by chunk.
Result<Bill> ReadCur(ChunkSource source, std::string_view source_name,
                     const CurOptions& options = {});

}  // namespace gpucost::billing
