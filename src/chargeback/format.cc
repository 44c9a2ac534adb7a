#include "chargeback/format.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <map>
#include <set>

#include "core/money.h"
#include "core/strings.h"
#include "core/utf8.h"

namespace gpucost::chargeback {
namespace {

bool HasDigit(std::string_view s) {
  return std::any_of(s.begin(), s.end(),
                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
}

// Vendor words as dcgm-exporter (spaces) and GPU feature discovery labels (hyphens) write them.
constexpr std::string_view kVendorPrefixes[] = {"NVIDIA ", "NVIDIA-", "Tesla ",   "Tesla-",
                                                "AMD ",    "AMD-",    "Instinct "};

std::string_view StripVendor(std::string_view model) {
  for (std::string_view prefix : kVendorPrefixes) {
    if (model.substr(0, prefix.size()) == prefix) model.remove_prefix(prefix.size());
  }
  return Trim(model);
}

}  // namespace

std::string FormatUnits(int64_t units, int decimals) { return FormatGroupedUnits(units, decimals); }

std::string FormatHours(double hours, int decimals) {
  return FormatUnits(RoundUnits(hours, decimals), decimals);
}

std::string FormatCents(int64_t cents) { return FormatDollarUnits(cents, 2); }

std::string FormatPercent(double ratio) {
  if (!std::isfinite(ratio)) return "-";
  return FormatUnits(std::llround(ratio * 1000.0), 1) + "%";
}

std::string FormatTarget(double ratio) {
  const int64_t tenths = std::llround(ratio * 1000.0);
  return tenths % 10 == 0 ? FormatUnits(tenths / 10, 0) + "%" : FormatUnits(tenths, 1) + "%";
}

std::string FormatRate(double usd, int decimals) {
  if (!std::isfinite(usd)) return "unknown price";
  return FormatRateUsd(usd, decimals);
}

int StatementRateDecimals(const StatementSet& set) {
  int decimals = 2;
  for (const Statement& s : set.statements) {
    for (const StatementLine& line : s.lines) {
      decimals = std::max(decimals, RateDecimals(line.rate_usd_per_gpu_hour));
    }
  }
  return decimals;
}

std::string FormatDate(Instant t) { return FormatRfc3339(t).substr(0, 10); }

namespace {

constexpr std::string_view kMonthAbbrev[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                             "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

struct CivilDay {
  int year = 0;
  unsigned month = 1;
  unsigned day = 1;
};

CivilDay CivilDayOf(Instant t) {
  const std::chrono::year_month_day d{std::chrono::floor<std::chrono::days>(t)};
  return {static_cast<int>(d.year()), static_cast<unsigned>(d.month()),
          static_cast<unsigned>(d.day())};
}

std::string MonthDay(const CivilDay& d) {
  return StrCat(kMonthAbbrev[(d.month - 1) % 12], " ", d.day);
}

std::string ClockTime(Instant t) { return FormatRfc3339(t).substr(11, 5); }  // "06:00"

bool AtMidnight(Instant t) { return std::chrono::floor<std::chrono::days>(t) == t; }

}  // namespace

std::string FormatReadablePeriod(Window w) {
  if (w.end <= w.start)
    return StrCat(MonthDay(CivilDayOf(w.start)), ", ", CivilDayOf(w.start).year);
  if (AtMidnight(w.start) && AtMidnight(w.end)) {
    const CivilDay first = CivilDayOf(w.start);
    const CivilDay last = CivilDayOf(w.end - std::chrono::days(1));  // the end is exclusive
    if (first.year == last.year && first.month == last.month && first.day == last.day) {
      return StrCat(MonthDay(first), ", ", first.year);  // one whole day
    }
    if (first.year == last.year) {
      return StrCat(MonthDay(first), "\u2013", MonthDay(last), ", ", last.year);
    }
    return StrCat(MonthDay(first), ", ", first.year, "\u2013", MonthDay(last), ", ", last.year);
  }
  const CivilDay first = CivilDayOf(w.start);
  const CivilDay last = CivilDayOf(w.end);
  const auto same = [](const CivilDay& a, const CivilDay& b) {
    return a.year == b.year && a.month == b.month && a.day == b.day;
  };
  const bool same_day = same(first, last);
  const bool ends_at_midnight =
      AtMidnight(w.end) && same(first, CivilDayOf(w.end - std::chrono::days(1)));
  if (same_day || ends_at_midnight) {
    return StrCat(MonthDay(first), ", ", first.year, ", ", ClockTime(w.start), "\u2013",
                  same_day ? ClockTime(w.end) : "24:00", " UTC");
  }
  return StrCat(MonthDay(first), ", ", first.year, " ", ClockTime(w.start), "\u2013",
                MonthDay(last), ", ", last.year, " ", ClockTime(w.end), " UTC");
}

std::string EscapeXml(std::string_view raw) {
  const std::string text = PrintableText(raw);
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out.push_back(c);
    }
  }
  return out;
}

std::string HoursNoun::Hours() const {
  if (accelerators && gpus) return "GPU- and accelerator-hours";
  return accelerators ? "accelerator-hours" : "GPU-hours";
}

std::string HoursNoun::Hrs() const {
  if (accelerators && gpus) return "GPU- and accelerator-hrs";
  return accelerators ? "accelerator-hrs" : "GPU-hrs";
}

std::string HoursNoun::HoursCapitalised() const {
  return accelerators && !gpus ? "Accelerator-hours" : Hours();
}

std::string HoursNoun::Thing() const {
  if (accelerators && gpus) return "GPU and accelerator";
  return accelerators ? "Accelerator" : "GPU";
}

HoursNoun HoursNounOf(const Statement& s) {
  HoursNoun n;
  for (const StatementLine& line : s.lines) {
    (line.unit_kind == UnitKind::kGpu ? n.gpus : n.accelerators) = true;
  }
  if (!n.accelerators) n.gpus = true;  // no lines: a GPU statement, as ever
  return n;
}

HoursNoun HoursNounOf(const std::vector<std::pair<std::string, double>>& unit_kind_hours) {
  HoursNoun n;
  for (const auto& [kind, hours] : unit_kind_hours) {
    if (!(hours > 0)) continue;
    (kind == UnitKindName(UnitKind::kGpu) ? n.gpus : n.accelerators) = true;
  }
  if (!n.accelerators) n.gpus = true;
  return n;
}

std::string GpuShortName(std::string_view model) {
  const std::string_view rest = StripVendor(model);
  if (rest.empty()) return "GPU";
  // Words up to and including the first with a digit ("RTX A6000"); a hyphen ends it too
  // ("A100-SXM4-80GB").
  std::string out;
  for (std::string_view word : Split(rest, ' ')) {
    if (word.empty()) continue;
    const std::string_view head = word.substr(0, word.find('-'));
    if (!out.empty()) out.push_back(' ');
    out.append(head);
    if (HasDigit(head) || head.size() != word.size()) break;
  }
  return out;
}

std::string CapacityLabel(std::string_view capacity_type) {
  if (capacity_type.empty()) return "unknown capacity";
  std::string out(capacity_type);
  std::replace(out.begin(), out.end(), '_', '-');
  return out;
}

std::vector<std::string> LineLabels(const Statement& s) {
  std::map<std::string, std::set<std::string>> models_by_short;
  for (const StatementLine& line : s.lines) {
    models_by_short[GpuShortName(line.gpu_model)].insert(line.gpu_model);
  }
  std::vector<std::string> out;
  for (const StatementLine& line : s.lines) {
    std::string name = GpuShortName(line.gpu_model);
    if (models_by_short[name].size() > 1) name = std::string(StripVendor(line.gpu_model));
    out.push_back(StrCat(name, " ", CapacityLabel(line.capacity_type)));
  }
  return out;
}

std::vector<std::string> WorkloadLabels(const Statement& s) {
  std::map<std::string, int> count;
  for (const WorkloadUsage& w : s.workloads) ++count[w.workload];
  std::vector<std::string> out;
  for (const WorkloadUsage& w : s.workloads) {
    out.push_back(count[w.workload] > 1 ? StrCat(w.namespace_name, "/", w.workload) : w.workload);
  }
  return out;
}

std::vector<std::string> QualifiedWorkloadLabels(const Statement& s) {
  std::vector<std::string> out;
  out.reserve(s.workloads.size());
  for (const WorkloadUsage& w : s.workloads) {
    out.push_back(w.namespace_name.empty() ? w.workload
                                           : StrCat(w.namespace_name, "/", w.workload));
  }
  return out;
}

}  // namespace gpucost::chargeback
