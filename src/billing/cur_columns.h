// The CUR columns the bill import reads, under their legacy CUR names ("lineItem/UnblendedCost")
// and their CUR 2.0 / Athena names ("line_item_unblended_cost"), and the mapping of a file's header
// onto them. Names match case-insensitively. Stateless; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace gpucost::billing {

enum class CurColumn : uint8_t {
  kLineItemType,
  kUsageStartDate,
  kUsageEndDate,
  kResourceId,
  kUsageType,
  kOperation,
  kProductCode,
  kUsageAmount,
  kUnblendedCost,
  kNetUnblendedCost,
  kPublicOnDemandCost,
  kInstanceType,
  kRegionCode,
  kRegion,
  kAvailabilityZone,
  kUsageAccountId,
  kInvoiceId,
  kPayerAccountId,
  kPayerAccountName,
  kUsageAccountName,
  kReservationArn,
  kReservationEffectiveCost,
  kReservationNetEffectiveCost,
  kReservationUnusedAmortizedUpfrontFee,
  kReservationNetUnusedAmortizedUpfrontFee,
  kReservationUnusedRecurringFee,
  kReservationNetUnusedRecurringFee,
  kSavingsPlanEffectiveCost,
  kSavingsPlanNetEffectiveCost,
  kSavingsPlanTotalCommitmentToDate,
  kSavingsPlanUsedCommitment,
  kSavingsPlanAmortizedUpfrontCommitment,
  kSavingsPlanNetAmortizedUpfrontCommitment,
  kSavingsPlanRecurringCommitment,
  kSavingsPlanNetRecurringCommitment,
  kSplitCost,
  kSplitUnusedCost,
  kCount,
};

constexpr size_t kCurColumnCount = static_cast<size_t>(CurColumn::kCount);

struct CurColumnSpec {
  std::string_view legacy;  // legacy CUR header
  std::string_view snake;   // CUR 2.0 / Athena header
  bool required;
};

const CurColumnSpec& Spec(CurColumn c);

// Where each known column sits in a file's header.
struct CurHeader {
  static constexpr int kAbsent = -1;
  size_t columns = 0;                // fields per row
  int index[kCurColumnCount];        // column position, or kAbsent
  std::vector<std::string> names;    // the header as written, for error messages
  std::string schema;                // "CUR legacy" | "CUR 2.0"

  bool has(CurColumn c) const { return index[static_cast<size_t>(c)] != kAbsent; }
  int at(CurColumn c) const { return index[static_cast<size_t>(c)]; }
  // The header's own name of a column that is present, else its name in the file's schema.
  std::string_view Name(CurColumn c) const;
};

// Maps the header row. Errors (naming `source`:`line`) when a required column is missing or the
// header names no CUR column at all. Repeated names keep the first; `warnings` gets a note.
Result<CurHeader> MapCurHeader(const std::vector<std::string_view>& fields, std::string_view source,
                               int64_t line, std::vector<std::string>& warnings);

}  // namespace gpucost::billing
