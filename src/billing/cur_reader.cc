// Row rules of the CUR import (docs/billing.md): which bucket a row lands in, its effective
// (amortized) and billed cost, and the folding of instance usage rows into one InstanceCharge per
// instance and usage period.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <optional>
#include <unordered_map>

#include "billing/cur.h"
#include "billing/cur_columns.h"
#include "core/money.h"
#include "core/strings.h"

namespace gpucost::billing {
namespace {

using C = CurColumn;

constexpr std::string_view kUsage = "Usage";
constexpr std::string_view kDiscountedUsage = "DiscountedUsage";
constexpr std::string_view kSpCoveredUsage = "SavingsPlanCoveredUsage";
constexpr std::string_view kSpNegation = "SavingsPlanNegation";
constexpr std::string_view kSpUpfrontFee = "SavingsPlanUpfrontFee";
constexpr std::string_view kSpRecurringFee = "SavingsPlanRecurringFee";
constexpr std::string_view kRiFee = "RIFee";
constexpr std::string_view kFee = "Fee";

// Warnings of one kind beyond this many are only counted (warnings_dropped).
constexpr int kWarningsPerKind = 10;

enum Option : uint8_t { kOnDemand, kSpot, kReserved, kSavingsPlan, kOptionCount };
constexpr std::string_view kOptionNames[kOptionCount] = {"OnDemand", "Spot", "Reserved",
                                                         "SavingsPlan"};

// "USE2-BoxUsage:p5.48xlarge" -> kind "BoxUsage", type "p5.48xlarge". Instance-hour usage types
// are "<kind>Usage:<instance type>" after an optional region prefix (BoxUsage, SpotUsage,
// DedicatedUsage, ...); EBS, data transfer, CPU credits and EKS split rows do not have that shape.
struct InstanceUsageType {
  std::string_view kind;
  std::string_view instance_type;
};

std::optional<InstanceUsageType> SplitInstanceUsageType(std::string_view usage_type) {
  const size_t colon = usage_type.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  std::string_view kind = usage_type.substr(0, colon);
  if (const size_t dash = kind.rfind('-'); dash != std::string_view::npos) {
    kind = kind.substr(dash + 1);
  }
  const std::string_view type = usage_type.substr(colon + 1);
  if (!kind.ends_with("Usage") || type.find('.') == std::string_view::npos) return std::nullopt;
  return InstanceUsageType{kind, type};
}

// CUR times are UTC: "2026-10-01T00:00:00Z" (legacy), "2026-10-01T00:00:00.000Z" (CUR 2.0 CSV);
// a zone-less "2026-10-01 00:00:00" (Athena/Redshift exports) is read as UTC too.
Result<Instant> ParseCurTime(std::string_view text) {
  const std::string_view s = Trim(text);
  if (s.size() == 19 && (s[10] == 'T' || s[10] == ' ')) return ParseInstant(StrCat(s, "Z"));
  return ParseInstant(s);
}

struct TimeCache {
  std::string text;
  Instant value;
  bool valid = false;
};

struct ChargeWork {
  double list_usd = 0;
  bool list_known = true;
  bool has_usage_row = false;
  double option_hours[kOptionCount] = {};
  int first_option = -1;
  int64_t first_line = 0;
};

class CurBuilder {
 public:
  CurBuilder(std::string_view source, const CurOptions& options)
      : source_(source), options_(options) {}

  Status Header(const std::vector<std::string_view>& fields, int64_t line) {
    GPUCOST_ASSIGN_OR_RETURN(header_, MapCurHeader(fields, source_, line, bill_.diagnostics.warnings));
    bill_.schema = header_.schema;
    return Status::Ok();
  }

  Status Row(const std::vector<std::string_view>& fields, int64_t line) {
    row_ = &fields;
    line_ = line;
    BillDiagnostics& d = bill_.diagnostics;
    ++d.rows_read;
    if (fields.size() != header_.columns) {
      return Status::ParseError(StrCat(source_, ":", line, ": ", fields.size(),
                                       " fields, but the header has ", header_.columns));
    }
    const std::string_view type = Cell(C::kLineItemType);
    const std::string_view operation = Cell(C::kOperation);
    if (operation == "EKSPod-EC2" || operation == "ECSTask-EC2") {
      GPUCOST_ASSIGN_OR_RETURN(const double split, Number(C::kSplitCost));
      GPUCOST_ASSIGN_OR_RETURN(const double unused, Number(C::kSplitUnusedCost));
      GPUCOST_ASSIGN_OR_RETURN(const double billed, Billed());
      Add(split_, split + unused, billed);
      return Status::Ok();
    }
    GPUCOST_ASSIGN_OR_RETURN(const double billed, Billed());
    GPUCOST_ASSIGN_OR_RETURN(const double effective, Effective(type));
    const bool usage = type == kUsage || type == kDiscountedUsage || type == kSpCoveredUsage;
    if (usage || type == kSpNegation) {
      std::optional<InstanceUsageType> instance = InstanceUsage();
      if (instance) return AddInstanceRow(type, *instance, effective, billed);
    }
    if (usage) {
      Add(other_usage_, effective, billed);
    } else if (type == kRiFee || type == kSpRecurringFee || type == kSpUpfrontFee ||
               type == kSpNegation || (type == kFee && !Cell(C::kReservationArn).empty())) {
      Add(commitments_, effective, billed);
    } else {
      if (type.empty()) Warn("type", "empty line item type; counted with fees, taxes and credits");
      Add(adjustments_, effective, billed);
    }
    return Status::Ok();
  }

  Bill Finish() {
    BillDiagnostics& d = bill_.diagnostics;
    for (size_t i = 0; i < bill_.charges.size(); ++i) {
      InstanceCharge& c = bill_.charges[i];
      const ChargeWork& w = work_[i];
      c.list_usd = w.has_usage_row && w.list_known ? w.list_usd : NAN;
      int best = w.first_option;
      for (int o = 0; o < kOptionCount; ++o) {
        if (best >= 0 && w.option_hours[o] > w.option_hours[best]) best = o;
      }
      if (best >= 0) c.purchase_option = kOptionNames[best];
      if (!w.has_usage_row) {
        Warn("negation-only", StrCat(source_, ":", w.first_line, ": ", c.resource_id, " at ",
                                     FormatRfc3339(c.start),
                                     " has a SavingsPlanNegation row but no usage row"),
             /*prefixed=*/true);
      }
      instances_.effective.Add(c.effective_usd);
      instances_.billed.Add(c.billed_usd);
    }
    std::sort(bill_.charges.begin(), bill_.charges.end(),
              [](const InstanceCharge& a, const InstanceCharge& b) {
                if (a.resource_id != b.resource_id) return a.resource_id < b.resource_id;
                return a.start < b.start;
              });
    d.rows_used = instances_.rows;
    d.instances = instances_.Out();
    d.other_usage = other_usage_.Out();
    d.commitment_fees = commitments_.Out();
    d.adjustments = adjustments_.Out();
    d.split_cost_skipped = split_.Out();
    return std::move(bill_);
  }

 private:
  struct Bucket {
    int64_t rows = 0;
    CompensatedSum effective, billed;
    CostBucket Out() const { return CostBucket{rows, effective.value(), billed.value()}; }
  };

  std::string_view Cell(CurColumn c) const {
    const int i = header_.at(c);
    return i == CurHeader::kAbsent ? std::string_view() : Trim((*row_)[static_cast<size_t>(i)]);
  }

  Status CellError(CurColumn c, std::string_view what) const {
    return Status::ParseError(StrCat(source_, ":", line_, ": column ", header_.Name(c), ": ", what));
  }

  // An empty cell (or an absent column) reads as 0: AWS leaves cost columns blank where they do
  // not apply to a line item type.
  Result<double> Number(CurColumn c) const {
    std::string_view s = Cell(c);
    if (s.empty()) return 0.0;
    if (s.front() == '+') s.remove_prefix(1);
    double v = 0;
    const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || ptr != s.data() + s.size() || !std::isfinite(v)) {
      return CellError(c, StrCat("bad number \"", Cell(c), "\""));
    }
    return v;
  }

  // The net column when it is asked for and present (its empty cells fall back to gross), else the
  // gross one. A missing net column is noted once.
  Result<double> Pick(CurColumn gross, CurColumn net) {
    if (options_.net) {
      if (header_.has(net)) {
        if (!Cell(net).empty()) return Number(net);
      } else {
        NoteMissingNet(net);
      }
    }
    return Number(gross);
  }

  void NoteMissingNet(CurColumn net) {
    if (missing_net_[static_cast<size_t>(net)]) return;
    missing_net_[static_cast<size_t>(net)] = true;
    Warn("net", StrCat("net cost asked for, but the file has no column ", header_.Name(net),
                       "; gross amounts are used for it"));
  }

  Result<double> Billed() const {
    if (header_.has(C::kNetUnblendedCost) && !Cell(C::kNetUnblendedCost).empty()) {
      return Number(C::kNetUnblendedCost);
    }
    return Number(C::kUnblendedCost);
  }

  // Amortized cost per line item type, as AWS's Cloud Intelligence Dashboards compute it.
  Result<double> Effective(std::string_view type) {
    if (type == kSpCoveredUsage) {
      WarnIfEmpty(C::kSavingsPlanEffectiveCost, type);
      return Pick(C::kSavingsPlanEffectiveCost, C::kSavingsPlanNetEffectiveCost);
    }
    if (type == kDiscountedUsage) {
      WarnIfEmpty(C::kReservationEffectiveCost, type);
      return Pick(C::kReservationEffectiveCost, C::kReservationNetEffectiveCost);
    }
    if (type == kSpNegation || type == kSpUpfrontFee) return 0.0;
    if (type == kFee && !Cell(C::kReservationArn).empty()) return 0.0;  // RI upfront: amortized
    if (type == kRiFee) {
      GPUCOST_ASSIGN_OR_RETURN(const double upfront,
                               Pick(C::kReservationUnusedAmortizedUpfrontFee,
                                    C::kReservationNetUnusedAmortizedUpfrontFee));
      GPUCOST_ASSIGN_OR_RETURN(const double recurring, Pick(C::kReservationUnusedRecurringFee,
                                                            C::kReservationNetUnusedRecurringFee));
      return upfront + recurring;
    }
    if (type == kSpRecurringFee) return UnusedSavingsPlan();
    return Pick(C::kUnblendedCost, C::kNetUnblendedCost);
  }

  // Unused commitment = total commitment to date - used commitment. AWS has no net used
  // commitment, so the net figure scales it by the plan's net / gross fee.
  Result<double> UnusedSavingsPlan() {
    GPUCOST_ASSIGN_OR_RETURN(const double total, Number(C::kSavingsPlanTotalCommitmentToDate));
    GPUCOST_ASSIGN_OR_RETURN(const double used, Number(C::kSavingsPlanUsedCommitment));
    const double unused = total - used;
    if (!options_.net) return unused;
    for (const CurColumn c : {C::kSavingsPlanNetAmortizedUpfrontCommitment,
                              C::kSavingsPlanNetRecurringCommitment}) {
      if (!header_.has(c)) {
        NoteMissingNet(c);
        return unused;
      }
    }
    GPUCOST_ASSIGN_OR_RETURN(const double upfront, Number(C::kSavingsPlanAmortizedUpfrontCommitment));
    GPUCOST_ASSIGN_OR_RETURN(const double recurring, Number(C::kSavingsPlanRecurringCommitment));
    GPUCOST_ASSIGN_OR_RETURN(const double net_upfront,
                             Number(C::kSavingsPlanNetAmortizedUpfrontCommitment));
    GPUCOST_ASSIGN_OR_RETURN(const double net_recurring,
                             Number(C::kSavingsPlanNetRecurringCommitment));
    const double gross_fee = upfront + recurring;
    if (gross_fee == 0) return unused;
    return unused * (net_upfront + net_recurring) / gross_fee;
  }

  void WarnIfEmpty(CurColumn c, std::string_view type) {
    if (!Cell(c).empty()) return;
    Warn(StrCat("empty-", static_cast<int>(c)),
         StrCat(type, " row with an empty ", header_.Name(c), ": its effective cost reads as 0"));
  }

  std::optional<InstanceUsageType> InstanceUsage() const {
    if (!Cell(C::kResourceId).starts_with("i-")) return std::nullopt;
    const std::string_view product = Cell(C::kProductCode);
    if (!product.empty() && product != "AmazonEC2") return std::nullopt;
    return SplitInstanceUsageType(Cell(C::kUsageType));
  }

  Result<Instant> Time(CurColumn c, TimeCache& cache) const {
    const std::string_view s = Cell(c);
    if (cache.valid && s == cache.text) return cache.value;
    if (s.empty()) return CellError(c, "empty time on an instance usage row");
    Result<Instant> t = ParseCurTime(s);
    if (!t.ok()) return CellError(c, t.status().message());
    cache.text.assign(s);
    cache.value = *t;
    cache.valid = true;
    return *t;
  }

  Status AddInstanceRow(std::string_view type, const InstanceUsageType& usage, double effective,
                        double billed) {
    GPUCOST_ASSIGN_OR_RETURN(const Instant start, Time(C::kUsageStartDate, start_cache_));
    GPUCOST_ASSIGN_OR_RETURN(const Instant end, Time(C::kUsageEndDate, end_cache_));
    if (end <= start) {
      return CellError(C::kUsageEndDate, StrCat("usage period ends (", FormatRfc3339(end),
                                                ") before it starts (", FormatRfc3339(start), ")"));
    }
    const std::string_view resource = Cell(C::kResourceId);
    key_.assign(resource);
    const int64_t start_ms = UnixMs(start);
    key_.append(reinterpret_cast<const char*>(&start_ms), sizeof start_ms);
    auto [it, inserted] = index_.try_emplace(key_, bill_.charges.size());
    if (inserted) {
      InstanceCharge& c = bill_.charges.emplace_back();
      c.resource_id.assign(resource);
      c.start = start;
      c.end = end;
      const std::string_view product_type = Cell(C::kInstanceType);
      c.instance_type.assign(product_type.empty() ? usage.instance_type : product_type);
      const std::string_view region_code = Cell(C::kRegionCode);
      c.region.assign(region_code.empty() ? Cell(C::kRegion) : region_code);
      c.availability_zone.assign(Cell(C::kAvailabilityZone));
      c.usage_account_id.assign(Cell(C::kUsageAccountId));
      c.invoice_id.assign(Cell(C::kInvoiceId));
      c.payer_account_id.assign(Cell(C::kPayerAccountId));
      c.payer_account_name.assign(Cell(C::kPayerAccountName));
      c.usage_account_name.assign(Cell(C::kUsageAccountName));
      work_.emplace_back().first_line = line_;
    }
    InstanceCharge& c = bill_.charges[it->second];
    ChargeWork& w = work_[it->second];
    if (c.end != end) {
      Warn("end", StrCat(c.resource_id, ": the usage period starting ", FormatRfc3339(start),
                         " ends at ", FormatRfc3339(end), " here but at ", FormatRfc3339(c.end),
                         " on line ", w.first_line, "; the first end is kept"));
    }
    if (type != kSpNegation) {
      GPUCOST_ASSIGN_OR_RETURN(const double hours, Number(C::kUsageAmount));
      int option = usage.kind == "SpotUsage" ? kSpot : kOnDemand;
      if (type == kDiscountedUsage) option = kReserved;
      if (type == kSpCoveredUsage) option = kSavingsPlan;
      c.usage_hours += hours;
      w.option_hours[option] += hours;
      if (w.first_option < 0) w.first_option = option;
      w.has_usage_row = true;
      if (!header_.has(C::kPublicOnDemandCost) || Cell(C::kPublicOnDemandCost).empty()) {
        w.list_known = false;
      } else {
        GPUCOST_ASSIGN_OR_RETURN(const double list, Number(C::kPublicOnDemandCost));
        w.list_usd += list;
      }
    }
    c.effective_usd += effective;
    c.billed_usd += billed;
    c.source_lines.push_back(StrCat(source_, ":", line_));
    ++instances_.rows;
    return Status::Ok();
  }

  void Add(Bucket& b, double effective, double billed) {
    ++b.rows;
    b.effective.Add(effective);
    b.billed.Add(billed);
  }

  void Warn(const std::string& kind, std::string message, bool prefixed = false) {
    BillDiagnostics& d = bill_.diagnostics;
    int& n = warnings_per_kind_[kind];
    if (n >= kWarningsPerKind || d.warnings.size() >= BillDiagnostics::kMaxWarnings) {
      ++d.warnings_dropped;
      return;
    }
    ++n;
    d.warnings.push_back(prefixed ? std::move(message)
                                  : StrCat(source_, ":", line_, ": ", message));
  }

  std::string source_;
  CurOptions options_;
  CurHeader header_;
  Bill bill_;
  std::vector<ChargeWork> work_;
  std::unordered_map<std::string, size_t> index_;  // resource id + start -> charge
  std::string key_;
  TimeCache start_cache_, end_cache_;
  Bucket instances_, other_usage_, commitments_, adjustments_, split_;
  bool missing_net_[kCurColumnCount] = {};
  std::map<std::string, int> warnings_per_kind_;
  const std::vector<std::string_view>* row_ = nullptr;
  int64_t line_ = 0;
};

}  // namespace

Result<Bill> ReadCur(ChunkSource source, std::string_view source_name, const CurOptions& options) {
  CsvReader reader(std::move(source), std::string(source_name));
  CurBuilder builder(source_name, options);
  std::vector<std::string_view> fields;
  GPUCOST_ASSIGN_OR_RETURN(const bool has_header, reader.Next(fields));
  if (!has_header) return Status::ParseError(StrCat(source_name, ": empty file (no CUR header)"));
  GPUCOST_RETURN_IF_ERROR(builder.Header(fields, reader.line()));
  while (true) {
    GPUCOST_ASSIGN_OR_RETURN(const bool more, reader.Next(fields));
    if (!more) break;
    GPUCOST_RETURN_IF_ERROR(builder.Row(fields, reader.line()));
  }
  return builder.Finish();
}

Result<Bill> ParseCur(std::string_view csv_text, std::string_view source_name,
                      const CurOptions& options) {
  return ReadCur(TextChunks(csv_text), source_name, options);
}

Result<Bill> LoadCur(const std::string& path, const CurOptions& options) {
  GPUCOST_ASSIGN_OR_RETURN(ChunkSource source, FileChunks(path));
  return ReadCur(std::move(source), path, options);
}

}  // namespace gpucost::billing
