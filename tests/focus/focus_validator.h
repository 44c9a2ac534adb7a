// A FOCUS 1.3 and 1.4 Cost and Usage validator written from the specification (FinOps-Open-Cost-
// and-Usage-Spec/FOCUS_Spec: specification/datasets/cost_and_usage/dataset.md, columns/*.md and
// attributes/*.md at v1.3, and the same files' changes at v1.4), independent of the exporter's
// code: it has its own column table, CSV reader and checks. Validate() returns every violation,
// each naming the row (1 = first data row) and column.
//
// 1.4 against 1.3 (Cost and Usage): ProviderName and PublisherName are removed;
// CommitmentProgramEligibilityDetails (JSON, with a CommitmentPrograms array of objects with a
// ProgramType, one of them equal to CommitmentDiscountType where that is not null) and
// InvoiceDetailId (null when the charge has no invoice) are added; PricingCurrency and
// PricingCurrencyEffectiveCost allow no nulls.
#pragma once

#include <algorithm>
#include <cmath>
#include <ctime>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace gpucost::focus_test {

using Cell = std::optional<std::string>;  // nullopt: null (an unquoted empty CSV field)

struct Table {
  std::vector<std::string> header;
  std::vector<std::vector<Cell>> rows;
  std::map<std::string, size_t> index;

  const Cell& At(size_t row, std::string_view column) const {
    static const Cell kMissing;
    auto it = index.find(std::string(column));
    return it == index.end() ? kMissing : rows[row][it->second];
  }
  double Num(size_t row, std::string_view column) const {
    const Cell& c = At(row, column);
    return c ? std::stod(*c) : NAN;
  }
  std::string Str(size_t row, std::string_view column) const {
    const Cell& c = At(row, column);
    return c ? *c : std::string();
  }
};

// RFC 4180. A quoted empty field ("") is an empty string, not null, so the validator can tell
// the two apart (FOCUS forbids empty strings for absent values).
inline std::optional<Table> ParseCsv(const std::string& text, std::string* error) {
  std::vector<std::vector<Cell>> lines;
  std::vector<Cell> line;
  std::string field;
  bool quoted = false, was_quoted = false, any = false;
  const auto end_field = [&] {
    if (field.empty() && !was_quoted) {
      line.emplace_back(std::nullopt);
    } else {
      line.emplace_back(field);
    }
    field.clear();
    was_quoted = false;
  };
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    any = true;
    if (quoted) {
      if (c == '"') {
        if (i + 1 < text.size() && text[i + 1] == '"') {
          field += '"';
          ++i;
        } else {
          quoted = false;
        }
      } else {
        field += c;
      }
    } else if (c == '"') {
      if (!field.empty()) {
        *error = "quote inside an unquoted field on line " + std::to_string(lines.size() + 1);
        return std::nullopt;
      }
      quoted = was_quoted = true;
    } else if (c == ',') {
      end_field();
    } else if (c == '\n') {
      end_field();
      lines.push_back(std::move(line));
      line.clear();
      any = false;
    } else if (c != '\r') {
      field += c;
    }
  }
  if (quoted) {
    *error = "unterminated quoted field";
    return std::nullopt;
  }
  if (any) {
    end_field();
    lines.push_back(std::move(line));
  }
  if (lines.empty()) {
    *error = "no header";
    return std::nullopt;
  }
  Table t;
  for (const Cell& h : lines[0]) t.header.push_back(h.value_or(""));
  for (size_t i = 0; i < t.header.size(); ++i) t.index[t.header[i]] = i;
  for (size_t i = 1; i < lines.size(); ++i) {
    if (lines[i].size() != t.header.size()) {
      *error = "line " + std::to_string(i + 1) + " has " + std::to_string(lines[i].size()) +
               " fields, the header " + std::to_string(t.header.size());
      return std::nullopt;
    }
    t.rows.push_back(std::move(lines[i]));
  }
  return t;
}

enum class Type { kString, kDecimal, kDateTime, kJsonObject, kKeyValue };

enum class Version { k1_3, k1_4 };

struct Options {
  Version version = Version::k1_3;
  // The data generator has more than one user-defined tag scheme (gpucost: node labels and pod
  // labels), so every user-defined key of AllocatedTags carries a prefix (1.3 AllocatedTags,
  // "User-defined tags"): every key has a "scheme/" prefix.
  bool allocated_tags_all_prefixed = true;
};

// Column table of the Cost and Usage dataset: data type, "Allows nulls" and allowed values as the
// spec's Content Constraints say. Conditional nullability is checked separately below.
struct ColumnSpec {
  std::string_view name;
  Type type;
  bool allows_nulls;
  std::vector<std::string_view> allowed;  // empty: any value
  bool currency = false;                  // CurrencyFormat
  bool unit = false;                      // UnitFormat
};

inline const std::vector<ColumnSpec>& Columns13() {
  using T = Type;
  static const std::vector<ColumnSpec> kColumns = {
      {"AllocatedMethodDetails", T::kJsonObject, true, {}},
      {"AllocatedMethodId", T::kString, true, {}},
      {"AllocatedResourceId", T::kString, true, {}},
      {"AllocatedResourceName", T::kString, true, {}},
      {"AllocatedTags", T::kKeyValue, true, {}},
      {"AvailabilityZone", T::kString, true, {}},
      {"BilledCost", T::kDecimal, false, {}},
      {"BillingAccountId", T::kString, false, {}},
      {"BillingAccountName", T::kString, true, {}},
      {"BillingAccountType", T::kString, true, {}},
      {"BillingCurrency", T::kString, false, {}, true},
      {"BillingPeriodEnd", T::kDateTime, false, {}},
      {"BillingPeriodStart", T::kDateTime, false, {}},
      {"CapacityReservationId", T::kString, true, {}},
      {"CapacityReservationStatus", T::kString, true, {"Used", "Unused"}},
      {"ChargeCategory", T::kString, false, {"Usage", "Purchase", "Tax", "Credit", "Adjustment"}},
      {"ChargeClass", T::kString, true, {"Correction"}},
      {"ChargeDescription", T::kString, true, {}},
      {"ChargeFrequency", T::kString, false, {"One-Time", "Recurring", "Usage-Based"}},
      {"ChargePeriodEnd", T::kDateTime, false, {}},
      {"ChargePeriodStart", T::kDateTime, false, {}},
      {"CommitmentDiscountCategory", T::kString, true, {"Spend", "Usage"}},
      {"CommitmentDiscountId", T::kString, true, {}},
      {"CommitmentDiscountName", T::kString, true, {}},
      {"CommitmentDiscountQuantity", T::kDecimal, true, {}},
      {"CommitmentDiscountStatus", T::kString, true, {"Used", "Unused"}},
      {"CommitmentDiscountType", T::kString, true, {}},
      {"CommitmentDiscountUnit", T::kString, true, {}, false, true},
      {"ConsumedQuantity", T::kDecimal, true, {}},
      {"ConsumedUnit", T::kString, true, {}, false, true},
      {"ContractApplied", T::kKeyValue, true, {}},
      {"ContractedCost", T::kDecimal, false, {}},
      {"ContractedUnitPrice", T::kDecimal, true, {}},
      {"EffectiveCost", T::kDecimal, false, {}},
      {"HostProviderName", T::kString, false, {}},  // requirements: MUST NOT be null
      {"InvoiceId", T::kString, true, {}},
      {"InvoiceIssuerName", T::kString, false, {}},
      {"ListCost", T::kDecimal, false, {}},
      {"ListUnitPrice", T::kDecimal, true, {}},
      {"PricingCategory", T::kString, true, {"Standard", "Dynamic", "Committed", "Other"}},
      {"PricingCurrency", T::kString, false, {}, true},
      {"PricingCurrencyContractedUnitPrice", T::kDecimal, true, {}},
      {"PricingCurrencyEffectiveCost", T::kDecimal, false, {}},
      {"PricingCurrencyListUnitPrice", T::kDecimal, true, {}},
      {"PricingQuantity", T::kDecimal, true, {}},
      {"PricingUnit", T::kString, true, {}, false, true},
      {"RegionId", T::kString, true, {}},
      {"RegionName", T::kString, true, {}},
      {"ResourceId", T::kString, true, {}},
      {"ResourceName", T::kString, true, {}},
      {"ResourceType", T::kString, true, {}},
      {"ServiceCategory", T::kString, false,
       {"AI and Machine Learning", "Analytics", "Business Applications", "Compute", "Databases",
        "Developer Tools", "Multicloud", "Identity", "Integration", "Internet of Things",
        "Management and Governance", "Media", "Migration", "Mobile", "Networking", "Security",
        "Storage", "Web", "Other"}},
      {"ServiceName", T::kString, false, {}},
      {"ServiceProviderName", T::kString, false, {}},
      {"ServiceSubcategory", T::kString, false, {}},  // allowed values with their parent below
      {"SkuId", T::kString, true, {}},
      {"SkuMeter", T::kString, true, {}},
      {"SkuPriceDetails", T::kKeyValue, true, {}},
      {"SkuPriceId", T::kString, true, {}},
      {"SubAccountId", T::kString, true, {}},
      {"SubAccountName", T::kString, true, {}},
      {"SubAccountType", T::kString, true, {}},
      {"Tags", T::kKeyValue, true, {}},
  };
  return kColumns;
}

inline const std::vector<ColumnSpec>& Columns(Version v = Version::k1_3) {
  static const std::vector<ColumnSpec> k14 = [] {
    std::vector<ColumnSpec> cols;
    for (const ColumnSpec& c : Columns13()) {
      cols.push_back(c);
      if (c.name == "PricingCurrency" || c.name == "PricingCurrencyEffectiveCost") {
        cols.back().allows_nulls = false;
      }
    }
    cols.push_back({"CommitmentProgramEligibilityDetails", Type::kJsonObject, true, {}});
    cols.push_back({"InvoiceDetailId", Type::kString, true, {}});
    return cols;
  }();
  return v == Version::k1_4 ? k14 : Columns13();
}

// ServiceSubcategory allowed values for the categories gpucost can emit, with their parent.
inline const std::map<std::string, std::string>& ComputeSubcategories() {
  static const std::map<std::string, std::string> kSub = {
      {"Containers", "Compute"},         {"End User Computing", "Compute"},
      {"Quantum Compute", "Compute"},    {"Serverless Compute", "Compute"},
      {"Virtual Machines", "Compute"},   {"Other (Compute)", "Compute"},
      {"AI Platforms", "AI and Machine Learning"},
      {"Machine Learning", "AI and Machine Learning"},
      {"Other (AI and Machine Learning)", "AI and Machine Learning"},
      {"Other (Other)", "Other"}};
  return kSub;
}

// Hand-written matchers (no std::regex: GCC 12 warns inside it at -O1, and CI builds with -Werror).
inline bool AllDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}
inline bool IsUpper(char c) { return c >= 'A' && c <= 'Z'; }
inline bool IsAlpha(char c) { return IsUpper(c) || (c >= 'a' && c <= 'z'); }
inline bool IsAlnum(char c) { return IsAlpha(c) || (c >= '0' && c <= '9'); }

// NumericFormat: -?(0|[1-9][0-9]*)(\.[0-9]+)? : no "+", exponent, commas or fractions.
inline bool IsDecimal(std::string_view s) {
  if (!s.empty() && s[0] == '-') s.remove_prefix(1);
  const size_t dot = s.find('.');
  const std::string_view whole = s.substr(0, dot);
  if (!AllDigits(whole) || (whole.size() > 1 && whole[0] == '0')) return false;
  return dot == std::string_view::npos || AllDigits(s.substr(dot + 1));
}

// DateTimeFormat: YYYY-MM-DDTHH:mm:ssZ with a valid calendar date and time.
inline bool IsDateTime(std::string_view s) {
  if (s.size() != 20 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' ||
      s[16] != ':' || s[19] != 'Z') {
    return false;
  }
  for (size_t i : {0, 5, 8, 11, 14, 17}) {
    if (!AllDigits(s.substr(i, i == 0 ? 4 : 2))) return false;
  }
  const int y = std::stoi(std::string(s.substr(0, 4))), mo = std::stoi(std::string(s.substr(5, 2)));
  const int d = std::stoi(std::string(s.substr(8, 2))), h = std::stoi(std::string(s.substr(11, 2)));
  const int mi = std::stoi(std::string(s.substr(14, 2)));
  const int se = std::stoi(std::string(s.substr(17, 2)));
  static const int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  if (mo < 1 || mo > 12) return false;
  const int month_days = kDays[mo - 1] + (mo == 2 && leap ? 1 : 0);
  return d >= 1 && d <= month_days && h <= 23 && mi <= 59 && se <= 59;
}

inline bool IsCurrencyCode(std::string_view s) {
  return s.size() == 3 && IsUpper(s[0]) && IsUpper(s[1]) && IsUpper(s[2]);
}

// A custom column ID: x_ then PascalCase alphanumerics.
inline bool IsCustomColumnId(std::string_view s) {
  if (s.size() < 3 || s.substr(0, 2) != "x_" || !IsUpper(s[2])) return false;
  return std::all_of(s.begin() + 2, s.end(), IsAlnum);
}

// UnitFormat: base units capitalized, compound units joined by "-" ("GB-Hours"), the time unit
// one of the allowed names.
inline bool IsUnit(std::string_view s) {
  static const std::set<std::string, std::less<>> kTime = {
      "Year", "Years", "Month", "Months", "Day", "Days", "Hour", "Hours", "Minute", "Minutes",
      "Second", "Seconds", "Millisecond", "Milliseconds", "Microsecond", "Microseconds"};
  const auto base = [](std::string_view b) {
    return !b.empty() && IsUpper(b[0]) && std::all_of(b.begin(), b.end(), IsAlpha);
  };
  const size_t dash = s.find('-');
  if (dash == std::string_view::npos) return base(s);
  return base(s.substr(0, dash)) && kTime.count(s.substr(dash + 1)) > 0;
}

// Seconds since the epoch of a validated date/time, for ordering checks.
inline int64_t EpochSeconds(const std::string& s) {
  std::tm tm{};
  tm.tm_year = std::stoi(s.substr(0, 4)) - 1900;
  tm.tm_mon = std::stoi(s.substr(5, 2)) - 1;
  tm.tm_mday = std::stoi(s.substr(8, 2));
  tm.tm_hour = std::stoi(s.substr(11, 2));
  tm.tm_min = std::stoi(s.substr(14, 2));
  tm.tm_sec = std::stoi(s.substr(17, 2));
  return static_cast<int64_t>(timegm(&tm));
}

inline bool Near(double a, double b, double rel = 1e-9) {
  return std::fabs(a - b) <= rel * std::max({1.0, std::fabs(a), std::fabs(b)});
}

struct Report {
  std::vector<std::string> violations;
  std::optional<Table> table;
  bool ok() const { return violations.empty() && table.has_value(); }
  std::string ToString() const {
    std::string s;
    for (size_t i = 0; i < violations.size() && i < 30; ++i) s += violations[i] + "\n";
    if (violations.size() > 30) s += std::to_string(violations.size() - 30) + " more\n";
    return s;
  }
};

inline Report Validate(const std::string& csv, Options opts = {}) {
  const Version version = opts.version;
  Report rep;
  std::string error;
  rep.table = ParseCsv(csv, &error);
  if (!rep.table) {
    rep.violations.push_back("CSV: " + error);
    return rep;
  }
  const Table& t = *rep.table;
  const auto bad = [&](size_t row, std::string_view col, const std::string& what) {
    rep.violations.push_back("row " + std::to_string(row + 1) + " " + std::string(col) + ": " +
                             what);
  };

  // Header: every FOCUS column present once (in any order), custom columns x_-prefixed and
  // after all FOCUS columns (ColumnHandling: SHOULD), no duplicates, no unknown FOCUS-like names.
  std::set<std::string> seen;
  std::set<std::string> focus_names;
  for (const ColumnSpec& c : Columns(version)) focus_names.insert(std::string(c.name));
  if (version == Version::k1_3) {
    focus_names.insert("ProviderName");  // deprecated in 1.3, allowed for 1.2 readers
    focus_names.insert("PublisherName");
  }
  bool custom_started = false;
  for (const std::string& h : t.header) {
    if (!seen.insert(h).second) rep.violations.push_back("header: duplicate column " + h);
    if (h.rfind("x_", 0) == 0) {
      custom_started = true;
      if (!IsCustomColumnId(h)) {
        rep.violations.push_back("header: custom column " + h + " is not x_PascalCase");
      }
    } else if (focus_names.count(h) == 0) {
      rep.violations.push_back("header: " + h + " is neither a FOCUS " +
                               (version == Version::k1_4 ? "1.4" : "1.3") +
                               " column nor x_-prefixed");
    } else if (custom_started) {
      rep.violations.push_back("header: FOCUS column " + h + " after custom columns");
    }
  }
  for (const ColumnSpec& c : Columns(version)) {
    if (t.index.count(std::string(c.name)) == 0) {
      rep.violations.push_back("header: missing column " + std::string(c.name));
    }
  }
  if (!rep.violations.empty()) return rep;

  // Per cell: type, nullability, allowed values, formats.
  for (size_t r = 0; r < t.rows.size(); ++r) {
    for (const ColumnSpec& c : Columns(version)) {
      const Cell& v = t.At(r, c.name);
      if (!v) {
        if (!c.allows_nulls) bad(r, c.name, "null in a column that allows no nulls");
        continue;
      }
      if (v->empty()) {
        bad(r, c.name, "empty string (absent values must be null)");
        continue;
      }
      switch (c.type) {
        case Type::kDecimal:
          if (!IsDecimal(*v)) bad(r, c.name, "not a FOCUS decimal: " + *v);
          break;
        case Type::kDateTime:
          if (!IsDateTime(*v)) bad(r, c.name, "not YYYY-MM-DDTHH:mm:ssZ: " + *v);
          break;
        case Type::kJsonObject:
        case Type::kKeyValue: {
          const auto j = nlohmann::json::parse(*v, nullptr, false);
          if (j.is_discarded() || !j.is_object()) {
            bad(r, c.name, "not a JSON object: " + *v);
          } else if (c.type == Type::kKeyValue) {
            for (const auto& [k, val] : j.items()) {
              if (val.is_object() || val.is_array()) {
                bad(r, c.name, "key-value value of " + k + " is an object or array");
              }
            }
          }
          break;
        }
        case Type::kString:
          break;
      }
      if (!c.allowed.empty() &&
          std::find(c.allowed.begin(), c.allowed.end(), *v) == c.allowed.end()) {
        bad(r, c.name, "not an allowed value: " + *v);
      }
      if (c.currency && !IsCurrencyCode(*v)) {
        bad(r, c.name, "not an ISO 4217 code: " + *v);
      }
      if (c.unit && !IsUnit(*v)) bad(r, c.name, "not in UnitFormat: " + *v);
    }
  }
  if (!rep.violations.empty()) return rep;

  // Conditional nullability and cross-column rules, row by row.
  for (size_t r = 0; r < t.rows.size(); ++r) {
    const auto is_null = [&](std::string_view c) { return !t.At(r, c).has_value(); };
    const auto same_null = [&](std::string_view a, std::string_view b) {
      if (is_null(a) != is_null(b)) {
        bad(r, b, std::string(is_null(b) ? "null" : "not null") + " while " + std::string(a) +
                      (is_null(a) ? " is null" : " is not null"));
      }
    };
    const std::string category = t.Str(r, "ChargeCategory");
    const bool usage_or_purchase = (category == "Usage" || category == "Purchase") &&
                                   is_null("ChargeClass");
    for (std::string_view c : {"SkuId", "SkuPriceId", "PricingQuantity", "ListUnitPrice",
                               "ContractedUnitPrice", "PricingCategory"}) {
      if (category == "Tax" && !is_null(c)) bad(r, c, "must be null for Tax");
      if (usage_or_purchase && is_null(c)) bad(r, c, "must not be null for Usage/Purchase");
    }
    same_null("PricingQuantity", "PricingUnit");
    same_null("BillingAccountId", "BillingAccountType");
    same_null("SubAccountId", "SubAccountName");
    same_null("SubAccountId", "SubAccountType");
    same_null("RegionId", "RegionName");
    same_null("ResourceId", "ResourceType");
    if (is_null("ResourceId") && !is_null("ResourceName")) {
      bad(r, "ResourceName", "not null while ResourceId is null");
    }
    if (!is_null("ResourceId") && t.Str(r, "ResourceId") == t.Str(r, "ResourceName")) {
      bad(r, "ResourceName", "duplicates ResourceId");
    }
    same_null("CapacityReservationId", "CapacityReservationStatus");
    if (is_null("SkuId") && !is_null("SkuMeter")) bad(r, "SkuMeter", "not null without SkuId");
    if (is_null("SkuPriceId") && !is_null("SkuPriceDetails")) {
      bad(r, "SkuPriceDetails", "not null without SkuPriceId");
    }
    if (is_null("SkuPriceId") && !is_null("PricingCategory")) {
      bad(r, "PricingCategory", "not null without SkuPriceId");
    }
    // Commitment discounts.
    for (std::string_view c : {"CommitmentDiscountCategory", "CommitmentDiscountType"}) {
      same_null("CommitmentDiscountId", c);
    }
    if (is_null("CommitmentDiscountId")) {
      for (std::string_view c : {"CommitmentDiscountName", "CommitmentDiscountStatus",
                                 "CommitmentDiscountQuantity"}) {
        if (!is_null(c)) bad(r, c, "not null without CommitmentDiscountId");
      }
    } else {
      if (category == "Usage" && is_null("CommitmentDiscountStatus")) {
        bad(r, "CommitmentDiscountStatus", "null for a Usage charge with a commitment discount");
      }
      if (usage_or_purchase && is_null("CommitmentDiscountQuantity")) {
        bad(r, "CommitmentDiscountQuantity", "null with a commitment discount");
      }
    }
    same_null("CommitmentDiscountQuantity", "CommitmentDiscountUnit");
    if (t.Str(r, "PricingCategory") == "Committed" && is_null("CommitmentDiscountId")) {
      bad(r, "CommitmentDiscountId", "null on a Committed charge");
    }
    // Consumed quantity: Usage charges only, except unused commitments.
    const bool unused = t.Str(r, "CommitmentDiscountStatus") == "Unused";
    if ((category != "Usage" || unused) && !is_null("ConsumedQuantity")) {
      bad(r, "ConsumedQuantity", "must be null unless a used Usage charge");
    }
    if (category == "Usage" && !unused && is_null("ChargeClass") && is_null("ConsumedQuantity")) {
      bad(r, "ConsumedQuantity", "must not be null for a Usage charge");
    }
    same_null("ConsumedQuantity", "ConsumedUnit");
    if (category == "Purchase" && t.Str(r, "ChargeFrequency") == "Usage-Based") {
      bad(r, "ChargeFrequency", "Usage-Based on a Purchase");
    }
    // Split cost allocation.
    same_null("AllocatedMethodId", "AllocatedMethodDetails");
    same_null("AllocatedResourceId", "AllocatedResourceName");
    if (is_null("AllocatedMethodId")) {
      for (std::string_view c : {"AllocatedResourceId", "AllocatedTags"}) {
        if (!is_null(c)) bad(r, c, "not null on a charge without split cost allocation");
      }
    }
    if (!is_null("AllocatedTags") && !is_null("Tags")) {
      const auto a = nlohmann::json::parse(t.Str(r, "AllocatedTags"));
      const auto tags = nlohmann::json::parse(t.Str(r, "Tags"));
      for (const auto& [k, v] : a.items()) {
        if (tags.contains(k)) bad(r, "AllocatedTags", "repeats the Tags key " + k);
      }
    }
    if (opts.allocated_tags_all_prefixed && !is_null("AllocatedTags")) {
      const auto a = nlohmann::json::parse(t.Str(r, "AllocatedTags"));
      for (const auto& [k, v] : a.items()) {
        const size_t slash = k.find('/');
        if (slash == std::string::npos || slash == 0 || slash + 1 == k.size()) {
          bad(r, "AllocatedTags", "key without a tag scheme prefix: " + k);
        }
      }
    }
    if (version == Version::k1_4) {
      if (is_null("InvoiceId") && !is_null("InvoiceDetailId")) {
        bad(r, "InvoiceDetailId", "not null on a charge without an invoice");
      }
      if (!is_null("CommitmentProgramEligibilityDetails")) {
        const auto d = nlohmann::json::parse(t.Str(r, "CommitmentProgramEligibilityDetails"));
        const auto programs = d.find("CommitmentPrograms");
        bool type_listed = is_null("CommitmentDiscountType");
        if (programs == d.end() || !programs->is_array() || programs->empty()) {
          bad(r, "CommitmentProgramEligibilityDetails", "no CommitmentPrograms array of objects");
        } else {
          for (const auto& p : *programs) {
            if (!p.is_object() || !p.contains("ProgramType") || !p["ProgramType"].is_string()) {
              bad(r, "CommitmentProgramEligibilityDetails", "a program without a ProgramType");
              continue;
            }
            for (const auto& [k, v] : p.items()) {
              if (k != "ProgramType" && k.rfind("x_", 0) != 0) {
                bad(r, "CommitmentProgramEligibilityDetails", "custom key without x_: " + k);
              }
            }
            if (p["ProgramType"] == t.Str(r, "CommitmentDiscountType")) type_listed = true;
          }
        }
        for (const auto& [k, v] : d.items()) {
          if (k != "CommitmentPrograms" && k.rfind("x_", 0) != 0) {
            bad(r, "CommitmentProgramEligibilityDetails", "custom top-level key without x_: " + k);
          }
        }
        if (!type_listed) {
          bad(r, "CommitmentProgramEligibilityDetails",
              "no program of the CommitmentDiscountType " + t.Str(r, "CommitmentDiscountType"));
        }
      } else if (!is_null("CommitmentDiscountId")) {
        // A commitment applied, so the charge was eligible for its program.
        bad(r, "CommitmentProgramEligibilityDetails", "null on a charge a commitment covered");
      }
    }
    if (!is_null("SkuPriceDetails")) {
      const auto d = nlohmann::json::parse(t.Str(r, "SkuPriceDetails"));
      for (const auto& [k, v] : d.items()) {
        if (k.rfind("x_", 0) != 0) bad(r, "SkuPriceDetails", "custom property without x_: " + k);
      }
    }
    // Service taxonomy.
    const auto& subs = ComputeSubcategories();
    auto sub = subs.find(t.Str(r, "ServiceSubcategory"));
    if (sub == subs.end()) {
      bad(r, "ServiceSubcategory", "not an allowed value: " + t.Str(r, "ServiceSubcategory"));
    } else if (sub->second != t.Str(r, "ServiceCategory")) {
      bad(r, "ServiceSubcategory", "parent is " + sub->second + ", not " +
                                       t.Str(r, "ServiceCategory"));
    }
    // Periods: start < end, the billing period contains the charge period.
    const int64_t cs = EpochSeconds(t.Str(r, "ChargePeriodStart"));
    const int64_t ce = EpochSeconds(t.Str(r, "ChargePeriodEnd"));
    const int64_t bs = EpochSeconds(t.Str(r, "BillingPeriodStart"));
    const int64_t be = EpochSeconds(t.Str(r, "BillingPeriodEnd"));
    if (!(cs < ce)) bad(r, "ChargePeriodEnd", "not after ChargePeriodStart");
    if (!(bs < be)) bad(r, "BillingPeriodEnd", "not after BillingPeriodStart");
    if (cs < bs || ce > be) bad(r, "ChargePeriodStart", "charge period outside the billing period");
    // Money: unit price x quantity = cost; list >= contracted >= effective (discounts only
    // lower a price); pricing-currency columns equal the billing ones in one currency.
    const double q = t.Num(r, "PricingQuantity");
    const double list = t.Num(r, "ListCost"), contracted = t.Num(r, "ContractedCost");
    const double effective = t.Num(r, "EffectiveCost");
    if (!std::isnan(q)) {
      if (!Near(t.Num(r, "ListUnitPrice") * q, list)) bad(r, "ListCost", "!= ListUnitPrice x PricingQuantity");
      if (!Near(t.Num(r, "ContractedUnitPrice") * q, contracted)) {
        bad(r, "ContractedCost", "!= ContractedUnitPrice x PricingQuantity");
      }
    }
    for (std::string_view c : {"ListUnitPrice", "ContractedUnitPrice",
                               "PricingCurrencyListUnitPrice", "PricingCurrencyContractedUnitPrice"}) {
      if (!is_null(c) && t.Num(r, c) < 0) bad(r, c, "negative unit price");
    }
    if (list < contracted * (1 - 1e-12) - 1e-12) bad(r, "ListCost", "below ContractedCost");
    if (contracted < effective * (1 - 1e-12) - 1e-12) bad(r, "ContractedCost", "below EffectiveCost");
    if (t.Str(r, "PricingCurrency") == t.Str(r, "BillingCurrency")) {
      if (!Near(t.Num(r, "PricingCurrencyEffectiveCost"), effective, 1e-12)) {
        bad(r, "PricingCurrencyEffectiveCost", "!= EffectiveCost in the same currency");
      }
      if (!Near(t.Num(r, "PricingCurrencyListUnitPrice"), t.Num(r, "ListUnitPrice"), 1e-12)) {
        bad(r, "PricingCurrencyListUnitPrice", "!= ListUnitPrice in the same currency");
      }
      if (!Near(t.Num(r, "PricingCurrencyContractedUnitPrice"), t.Num(r, "ContractedUnitPrice"),
                1e-12)) {
        bad(r, "PricingCurrencyContractedUnitPrice", "!= ContractedUnitPrice in the same currency");
      }
    }
  }
  if (!rep.violations.empty()) return rep;

  // AllocatedMethodDetails objects, and the split: rows of one origin charge (same period,
  // resource, account and SKU price) share every dimension and unit price, and their
  // AllocatedRatios add up to 1 (DataGeneratorCalculatedSplitCostAllocationHandling).
  static const std::vector<std::string_view> kOriginDims = {
      "BillingAccountId", "BillingAccountType", "BillingCurrency", "BillingPeriodStart",
      "BillingPeriodEnd", "ChargeCategory", "ChargeDescription", "ChargeFrequency",
      "ContractedUnitPrice", "HostProviderName", "InvoiceIssuerName", "ListUnitPrice",
      "PricingCategory", "PricingUnit", "RegionId", "AvailabilityZone", "ResourceName",
      "ResourceType", "ServiceCategory", "ServiceName", "ServiceProviderName",
      "ServiceSubcategory", "SkuId", "SkuMeter", "SkuPriceDetails", "SubAccountId", "Tags",
      "CommitmentDiscountId", "AllocatedMethodId"};
  std::map<std::string, std::vector<size_t>> origins;
  for (size_t r = 0; r < t.rows.size(); ++r) {
    if (!t.At(r, "AllocatedMethodId")) continue;
    const auto d = nlohmann::json::parse(t.Str(r, "AllocatedMethodDetails"));
    if (!d.contains("Elements") || !d["Elements"].is_array() || d["Elements"].empty()) {
      bad(r, "AllocatedMethodDetails", "no Elements array");
      continue;
    }
    for (const auto& [k, v] : d.items()) {
      if (k != "Elements" && k.rfind("x_", 0) != 0) {
        bad(r, "AllocatedMethodDetails", "custom top-level key without x_: " + k);
      }
    }
    for (const auto& e : d["Elements"]) {
      if (!e.is_object() || !e.contains("AllocatedRatio") || !e["AllocatedRatio"].is_number()) {
        bad(r, "AllocatedMethodDetails", "element without a numeric AllocatedRatio");
        continue;
      }
      const double ratio = e["AllocatedRatio"].get<double>();
      if (ratio < 0 || ratio > 1 + 1e-12) bad(r, "AllocatedMethodDetails", "ratio outside [0, 1]");
      if (e.contains("UsageQuantity") && !(e.contains("UsageUnit") && e["UsageUnit"].is_string())) {
        bad(r, "AllocatedMethodDetails", "UsageQuantity without a UsageUnit");
      }
      if (e.contains("UsageUnit") && !IsUnit(e["UsageUnit"].get<std::string>())) {
        bad(r, "AllocatedMethodDetails", "UsageUnit not in UnitFormat");
      }
      for (const auto& [k, v] : e.items()) {
        if (k != "AllocatedRatio" && k != "UsageUnit" && k != "UsageQuantity" &&
            k.rfind("x_", 0) != 0) {
          bad(r, "AllocatedMethodDetails", "custom element key without x_: " + k);
        }
      }
    }
    origins[t.Str(r, "ChargePeriodStart") + "|" + t.Str(r, "ChargePeriodEnd") + "|" +
            t.Str(r, "ResourceId") + "|" + t.Str(r, "BillingAccountId") + "|" +
            t.Str(r, "SkuPriceId")]
        .push_back(r);
  }
  for (const auto& [key, rows] : origins) {
    double ratio_sum = 0, cost_sum = 0;
    int unallocated = 0;
    std::set<std::string> allocated_ids;
    for (size_t r : rows) cost_sum += t.Num(r, "EffectiveCost");
    for (size_t r : rows) {
      double row_ratio = 0;
      const auto details = nlohmann::json::parse(t.Str(r, "AllocatedMethodDetails"));
      for (const auto& e : details["Elements"]) {
        row_ratio += e["AllocatedRatio"].get<double>();
      }
      ratio_sum += row_ratio;
      if (cost_sum > 0 && !Near(row_ratio, t.Num(r, "EffectiveCost") / cost_sum, 1e-9)) {
        bad(r, "AllocatedMethodDetails", "AllocatedRatio is not the row's share of its origin");
      }
      if (!t.At(r, "AllocatedResourceId")) {
        ++unallocated;
      } else if (!allocated_ids.insert(t.Str(r, "AllocatedResourceId")).second) {
        bad(r, "AllocatedResourceId", "not unique within its origin charge");
      }
      for (std::string_view dim : kOriginDims) {
        if (t.At(r, dim) != t.At(rows[0], dim)) {
          bad(r, dim, "differs from the other charges of origin " + key);
        }
      }
    }
    if (!Near(ratio_sum, 1.0, 1e-9)) {
      rep.violations.push_back("origin " + key + ": AllocatedRatio sums to " +
                               std::to_string(ratio_sum) + ", not 1");
    }
    if (unallocated > 1) {
      rep.violations.push_back("origin " + key + ": more than one unallocated charge");
    }
  }
  return rep;
}

}  // namespace gpucost::focus_test
