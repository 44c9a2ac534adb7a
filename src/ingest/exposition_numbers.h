// Number parsing for exposition lines: sample values as Go's strconv.ParseFloat accepts them
// (what Prometheus uses) and timestamps in the three ExpositionFormat conventions. Internal to
// the ingest module; stateless and thread-safe.
#pragma once

#include <cstdint>
#include <string_view>

#include "ingest/exposition.h"

namespace gpucost::exposition_internal {

// Decimal and exponent forms, an optional sign, hex floats ("0x1p-2"), and case-insensitive
// "NaN", "Inf", "Infinity" with an optional sign on the infinities. False for anything else and
// for values beyond the double range.
bool ParseSampleValue(std::string_view text, double& out);

// Text: integer milliseconds. OpenMetrics: seconds, possibly fractional. Auto: a value whose
// magnitude is below 1e11 is seconds (1e11 s is the year 5138), anything larger milliseconds.
// Seconds are rounded to the nearest millisecond.
bool ParseTimestampMs(std::string_view text, ExpositionFormat format, int64_t& out_ms);

}  // namespace gpucost::exposition_internal
