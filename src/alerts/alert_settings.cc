#include "alerts/alert_settings.h"

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "core/strings.h"

namespace gpucost::alerts {
namespace {

using S = AlertSettings;
constexpr auto R = SettingKind::kRatio;
constexpr auto D = SettingKind::kDuration;
constexpr auto N = SettingKind::kNumber;

constexpr std::array<SettingDef, 11> kDefs = {{
    {"idle-threshold", R, "5%", "Utilization under this counts as idle (5% or 0.05)",
     &S::idle_threshold, nullptr},
    {"idle-for", D, "2h", "GpuIdleOnDemand: on-demand GPUs idle at least this long", nullptr,
     &S::idle_for},
    {"notebook-idle-for", D, "1h", "GpuNotebookIdle: notebooks holding idle GPUs this long",
     nullptr, &S::notebook_idle_for},
    {"spot-ratio-target", R, "70%",
     "GpuSpotRatioLow: a team's spot GPU-hours / GPU-hours on known capacity under this",
     &S::spot_ratio_target, nullptr},
    {"efficiency-target", R, "80%",
     "GpuEfficiencyLow: a team's effective / allocated cost (measured hours) under this",
     &S::efficiency_target, nullptr},
    {"ratio-window", D, "1d", "Trailing window over which the team ratios are computed", nullptr,
     &S::ratio_window},
    {"min-gpu-hours", N, "1", "Teams holding fewer GPU-hours in the ratio window are not rated",
     &S::min_gpu_hours, nullptr},
    {"telemetry-missing-for", D, "15m",
     "GpuTelemetryMissing: a node's GPUs held with no usage sample this long", nullptr,
     &S::telemetry_missing_for},
    {"forecast-lookback", D, "7d", "The budget forecast's run rate is the cost of this long",
     nullptr, &S::forecast_lookback},
    {"kueue-wait-threshold", D, "1h", "KueueAdmissionWaitHigh: p90 admission wait above this",
     nullptr, &S::kueue_wait_threshold},
    {"kueue-stall-for", D, "30m",
     "KueueQueueStalled, KueueWorkloadsInadmissible: pending with no admission this long", nullptr,
     &S::kueue_stall_for},
}};

std::string Trimmed(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

Result<double> ParseNumber(std::string_view flag, std::string_view text, bool allow_percent) {
  std::string number(Trim(text));
  const bool percent = allow_percent && !number.empty() && number.back() == '%';
  if (percent) number.pop_back();
  char* end = nullptr;
  const double v = std::strtod(number.c_str(), &end);
  if (number.empty() || end != number.c_str() + number.size() || !std::isfinite(v)) {
    return Status::InvalidArgument(StrCat(
        "--", flag, ": \"", text, "\" is not ",
        allow_percent ? "a fraction (0.8) or a percent (80%)" : "a number"));
  }
  return percent ? v / 100 : v;
}

}  // namespace

std::span<const SettingDef> AlertSettingDefs() { return kDefs; }

const SettingDef* FindAlertSetting(std::string_view name) {
  for (const SettingDef& d : kDefs) {
    if (d.name == name) return &d;
  }
  return nullptr;
}

Status SetAlertSetting(AlertSettings& settings, std::string_view name, std::string_view text) {
  const SettingDef* def = FindAlertSetting(name);
  if (def == nullptr)
    return Status::InvalidArgument(StrCat("unknown alert setting \"", name, "\""));
  switch (def->kind) {
    case SettingKind::kRatio: {
      GPUCOST_ASSIGN_OR_RETURN(double v, ParseNumber(name, text, true));
      if (v < 0 || v > 1) {
        return Status::InvalidArgument(StrCat("--", name, ": \"", text, "\" is outside [0, 1]"));
      }
      settings.*(def->number) = v;
      return Status::Ok();
    }
    case SettingKind::kNumber: {
      GPUCOST_ASSIGN_OR_RETURN(double v, ParseNumber(name, text, false));
      if (v < 0) return Status::InvalidArgument(StrCat("--", name, ": must be >= 0, got ", text));
      settings.*(def->number) = v;
      return Status::Ok();
    }
    case SettingKind::kDuration: {
      Result<Duration> d = ParseDuration(Trim(text));
      if (!d.ok()) return d.status().WithContext(StrCat("--", name));
      if (d->count() <= 0) {
        return Status::InvalidArgument(StrCat("--", name, ": must be positive, got ", text));
      }
      settings.*(def->duration) = *d;
      return Status::Ok();
    }
  }
  return Status::Ok();
}

std::string FormatPercent(double ratio) { return Trimmed(ratio * 100) + "%"; }

std::string SettingText(const AlertSettings& settings, std::string_view name) {
  const SettingDef* def = FindAlertSetting(name);
  if (def == nullptr) return "";
  switch (def->kind) {
    case SettingKind::kRatio: return FormatPercent(settings.*(def->number));
    case SettingKind::kNumber: return Trimmed(settings.*(def->number));
    case SettingKind::kDuration: return FormatDuration(settings.*(def->duration));
  }
  return "";
}

std::string SettingPromQL(const AlertSettings& settings, std::string_view name) {
  const SettingDef* def = FindAlertSetting(name);
  if (def == nullptr) return "";
  if (def->kind == SettingKind::kDuration) return FormatDuration(settings.*(def->duration));
  return Trimmed(settings.*(def->number));
}

std::string SettingSeconds(const AlertSettings& settings, std::string_view name) {
  const SettingDef* def = FindAlertSetting(name);
  if (def == nullptr) return "";
  if (def->kind == SettingKind::kDuration) return Trimmed(Seconds(settings.*(def->duration)));
  return SettingPromQL(settings, name);
}

std::string ExpandSettings(std::string_view text, const AlertSettings& settings) {
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    const size_t open = text.find("${", i);
    if (open == std::string_view::npos) break;
    const size_t close = text.find('}', open);
    if (close == std::string_view::npos) break;
    out.append(text.substr(i, open - i));
    std::string_view ref = text.substr(open + 2, close - open - 2);
    std::string_view form;
    if (const size_t colon = ref.find(':'); colon != std::string_view::npos) {
      form = ref.substr(colon + 1);
      ref = ref.substr(0, colon);
    }
    if (FindAlertSetting(ref) == nullptr) {
      out.append(text.substr(open, close + 1 - open));
    } else if (form == "text") {
      out += SettingText(settings, ref);
    } else if (form == "seconds") {
      out += SettingSeconds(settings, ref);
    } else {
      out += SettingPromQL(settings, ref);
    }
    i = close + 1;
  }
  out.append(text.substr(i));
  return out;
}

}  // namespace gpucost::alerts
