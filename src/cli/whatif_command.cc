// `gpucost whatif`: applies chosen policies (spot for batch, time-slicing for services, culling
// idle notebooks, a commitment on the steady on-demand base) to a past window and prints the cost
// before and after by category and team (docs/whatif.md).
#include <iostream>
#include <memory>
#include <string>

#include "advise/recommend_render.h"
#include "advise/whatif.h"
#include "advise/whatif_render.h"
#include "cli/advise_pipeline.h"
#include "cli/commands.h"
#include "cli/format_flag.h"

namespace gpucost::cli {
namespace {

struct WhatIfFlags {
  AdviseFlags advise;
  std::string policy;
  std::string format = "text";
};

Status Run(const WhatIfFlags& flags) {
  GPUCOST_ASSIGN_OR_RETURN(advise::RecommendFormat format,
                           advise::ParseRecommendFormat(flags.format));
  GPUCOST_ASSIGN_OR_RETURN(advise::Policies policies, advise::ParsePolicies(flags.policy));
  GPUCOST_ASSIGN_OR_RETURN(AdviseRun run, RunAdvise(flags.advise));
  const advise::Scenario scenario =
      advise::RunScenario(run.profiles, run.window, run.step, run.settings, policies);
  advise::RenderScenario(scenario, format, std::cout);
  return Status::Ok();
}

}  // namespace

void AddWhatIfCommand(CLI::App& app, int& exit_code) {
  auto f = std::make_shared<WhatIfFlags>();
  CLI::App* cmd = app.add_subcommand(
      "whatif",
      "Apply policies to a past window and compare the cost before and after by category and "
      "team: spot-batch, time-slice[=N], cull-notebooks, commit-base");
  cmd->add_option("--policy", f->policy,
                  "Comma-separated: spot-batch, time-slice[=N] (default 4), cull-notebooks, "
                  "commit-base")
      ->required();
  AddFormatOption(*cmd, f->format, {"text", "json"});
  // "Before" is the report's money: the same attribution step as `report` by default.
  f->advise.step = "60s";
  AddAdviseFlags(*cmd, f->advise);
  cmd->footer(
      "Money is over the window. Capacity without a price is in no figure and is reported. "
      "Exit status: 0 on success, 2 on bad flags or bad input.");
  SetStatusCallback(*cmd, exit_code, [f] { return Run(*f); });
}

}  // namespace gpucost::cli
