// `gpucost recommend`: savings recommendations with dollars from the history of any input the
// report reads — idle allocations to scale to zero, whole GPUs to share, MIG slices and GPU counts
// to shrink, batch work to move to spot — each with its evidence and risk (docs/recommend.md).
#include <cmath>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "advise/recommend.h"
#include "advise/recommend_render.h"
#include "advise/workload_profile.h"
#include "cli/advise_pipeline.h"
#include "cli/commands.h"
#include "cli/format_flag.h"
#include "cli/input_flags.h"
#include "core/strings.h"

namespace gpucost::cli {
namespace {

struct RecommendFlags {
  AdviseFlags advise;
  std::string format = "text";
};

Status Run(const RecommendFlags& flags) {
  GPUCOST_ASSIGN_OR_RETURN(advise::RecommendFormat format,
                           advise::ParseRecommendFormat(flags.format));
  GPUCOST_ASSIGN_OR_RETURN(AdviseRun run, RunAdvise(flags.advise));
  const advise::Recommendations recs =
      advise::Recommend(run.profiles, run.window, run.step, run.settings);
  advise::RenderRecommendations(recs, format, std::cout);
  return Status::Ok();
}

}  // namespace

void AddRecommendCommand(CLI::App& app, int& exit_code) {
  auto f = std::make_shared<RecommendFlags>();
  CLI::App* cmd = app.add_subcommand(
      "recommend",
      "Savings recommendations with monthly dollars, evidence and risk: idle allocations to scale "
      "to zero, whole-GPU workloads to share by time-slicing or MPS, MIG right-sizing, multi-GPU "
      "pods leaving GPUs unused, batch work on on-demand capacity to move to spot");
  AddFormatOption(*cmd, f->format, {"text", "json"});
  AddAdviseFlags(*cmd, f->advise);
  cmd->footer(
      "Monthly figures are the window's rate times 730 hours. Savings on capacity without a price "
      "are unknown, never $0. Exit status: 0 on success, 2 on bad flags or bad input.");
  SetStatusCallback(*cmd, exit_code, [f] { return Run(*f); });
}

}  // namespace gpucost::cli
