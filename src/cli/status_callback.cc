#include "cli/commands.h"
#include "cli/every_flag.h"
#include "core/log.h"

namespace gpucost::cli {

void SetStatusCallback(CLI::App& cmd, int& exit_code, std::function<Status()> run) {
  cmd.callback([&cmd, &exit_code, run = std::move(run)] {
    const Status s = RefuseStepWithLedger(cmd).ok() ? run() : RefuseStepWithLedger(cmd);
    if (!s.ok()) LogError(s.ToString());
    exit_code = s.ok() ? 0 : 2;
  });
}

}  // namespace gpucost::cli
