#include "cli/price_flags.h"

namespace gpucost::cli {

void AddPriceFlags(CLI::App& cmd, PriceOptions& options) {
  cmd.add_option("--price-per-gpu-hour", options.usd_per_gpu_hour,
                 "Flat $/GPU-hour for every node (with --prices: the default rate for nodes "
                 "nothing else prices)");
  cmd.add_option("--prices", options.prices_file,
                 "Price file (YAML): overrides, rate-card rules, spot, commitments, GPU share; "
                 "see docs/pricing.md");
  cmd.add_flag_callback(
      "--no-catalog", [&options] { options.use_catalog = false; },
      "Do not price nodes from the built-in catalog");
  cmd.add_option("--bill", options.bill_file,
                 "AWS Cost and Usage Report (legacy or 2.0, CSV or gzip): price nodes by their "
                 "billed instance-hours (docs/billing.md)");
  cmd.add_flag("--bill-net", options.bill_net,
               "With --bill: use the net (after-discount) columns");
}

}  // namespace gpucost::cli
