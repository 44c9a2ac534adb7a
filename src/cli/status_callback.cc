#include "cli/commands.h"
#include "core/log.h"

namespace gpucost::cli {

void SetStatusCallback(CLI::App& cmd, int& exit_code, std::function<Status()> run) {
  cmd.callback([&exit_code, run = std::move(run)] {
    const Status s = run();
    if (!s.ok()) LogError(s.ToString());
    exit_code = s.ok() ? 0 : 2;
  });
}

}  // namespace gpucost::cli
