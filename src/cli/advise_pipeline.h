// What `gpucost recommend` and `gpucost whatif` share: their flags (inputs, prices, window, the
// advice settings) and the run that turns them into workload profiles — the same inputs and
// prices as `gpucost report`, one engine run, a ProfileSink beside the report's conservation
// check.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "advise/advise_settings.h"
#include "advise/workload_profile.h"
#include "cli/input_flags.h"
#include "core/result.h"
#include "pricing/price_fn.h"

namespace gpucost::cli {

struct AdviseFlags {
  InputFlags input;
  PriceOptions price;
  std::string window;
  std::string step = "5m";
  std::string team;
  std::string idle_threshold = "5%";
  std::string notebook_idle = "1h";
  std::string idle_for = "24h";
  std::string target_utilization = "80%";
  std::string consolidate_below = "50%";
  int max_replicas = 8;
  double spot_interruptions_per_hour = 0.02;
  std::string checkpoint_interval = "1h";
  std::string spot_discount;
  std::string commitment_discount = "31%";
  double min_savings = 1;
  std::string min_window = "1h";
};

// Registers the flags on `cmd`; `flags` must outlive it.
void AddAdviseFlags(CLI::App& cmd, AdviseFlags& flags);

struct AdviseRun {
  Window window;
  Duration step{0};
  advise::AdviseSettings settings;
  std::vector<advise::WorkloadProfile> profiles;  // of the --team teams when given
};

// Loads the input, runs the engine with a ProfileSink, and returns the profiles.
Result<AdviseRun> RunAdvise(const AdviseFlags& flags);

}  // namespace gpucost::cli
