// The settings of the alert rules (docs/alerts.md "Settings"): thresholds and durations shared by
// `gpucost alerts` (evaluated here over the engine's records) and `gpucost rules` (written into
// PromQL), in one table (name, kind, default, help) that feeds both commands' flags. Plain value
// type and a constant table; thread-safe.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "core/status.h"
#include "core/time.h"

namespace gpucost::alerts {

struct AlertSettings {
  double idle_threshold = 0.05;          // utilization under this is idle
  Duration idle_for = std::chrono::hours(2);            // on-demand GPUs idle this long
  Duration notebook_idle_for = std::chrono::hours(1);   // notebooks idle this long
  double spot_ratio_target = 0.70;       // team spot GPU-hours / GPU-hours on known capacity
  double efficiency_target = 0.80;       // team effective / allocated over measured hours
  Duration ratio_window = std::chrono::hours(24);       // trailing window of the team ratios
  double min_gpu_hours = 1;              // teams holding less in the ratio window are skipped
  Duration telemetry_missing_for = std::chrono::minutes(15);  // held, no usage sample this long
  Duration forecast_lookback = std::chrono::hours(24 * 7);    // run rate of the budget forecast
  Duration kueue_wait_threshold = std::chrono::hours(1);      // p90 admission wait
  Duration kueue_stall_for = std::chrono::minutes(30);        // pending, nothing admitted
};

enum class SettingKind : uint8_t { kRatio, kDuration, kNumber };

struct SettingDef {
  std::string_view name;  // the flag without "--", and the ${name} of rule templates
  SettingKind kind;
  std::string_view default_text;
  std::string_view help;
  double AlertSettings::*number = nullptr;     // kRatio, kNumber
  Duration AlertSettings::*duration = nullptr;  // kDuration
};

// Every setting, in the order --help and docs/alerts.md list them.
std::span<const SettingDef> AlertSettingDefs();
const SettingDef* FindAlertSetting(std::string_view name);

// Sets `name` from its text: ratios as "0.8" or "80%" in [0, 1]; durations as "2h", "15m"
// (positive); numbers >= 0. InvalidArgument naming the flag ("--idle-threshold: ...").
Status SetAlertSetting(AlertSettings& settings, std::string_view name, std::string_view text);

// A setting as people read it ("5%", "2h", "1") and as PromQL needs it: ratios and numbers as
// plain numbers ("0.05"), durations as Prometheus durations ("2h"). Empty for an unknown name.
std::string SettingText(const AlertSettings& settings, std::string_view name);
std::string SettingPromQL(const AlertSettings& settings, std::string_view name);
// A duration setting in seconds ("900"); other kinds as SettingPromQL.
std::string SettingSeconds(const AlertSettings& settings, std::string_view name);

// Replaces ${name} with SettingPromQL, ${name:text} with SettingText and ${name:seconds} with
// SettingSeconds. Unknown names are left as they are (and caught by the catalogue's tests).
std::string ExpandSettings(std::string_view text, const AlertSettings& settings);

// "5%" for 0.05, "72.5%" for 0.725.
std::string FormatPercent(double ratio);

}  // namespace gpucost::alerts
