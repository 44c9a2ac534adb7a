// The price flags shared by `gpucost report` and `gpucost prices` (--price-per-gpu-hour,
// --prices, --no-catalog, --bill, --bill-net), registered straight into a PriceOptions.
#pragma once

#include <CLI/CLI.hpp>

#include "pricing/price_fn.h"

namespace gpucost::cli {

// `options` must outlive the command (it lives in the command's flag struct).
void AddPriceFlags(CLI::App& cmd, PriceOptions& options);

}  // namespace gpucost::cli
