// Renders an AlertReport for people (text: the firing alerts, then the budget table) and for
// programs (JSON, docs/alerts.md "Output"). Money the prices do not cover is "unknown" in text
// and null in JSON, never zero. Stateless and thread-safe.
#pragma once

#include <ostream>
#include <string>
#include <string_view>

#include "alerts/alert.h"
#include "alerts/alert_settings.h"
#include "core/result.h"

namespace gpucost::alerts {

enum class AlertFormat : uint8_t { kText, kJson };
Result<AlertFormat> ParseAlertFormat(std::string_view text);

void RenderAlerts(const AlertReport& report, const AlertSettings& settings, AlertFormat format,
                  std::ostream& out);

}  // namespace gpucost::alerts
