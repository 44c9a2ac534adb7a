// Progress lines as a user meets them: the real binary with its stderr on a pseudo-terminal draws
// the line there (and clears it), while stdout stays clean JSON; --no-progress, or a stderr that is
// not a terminal, gets no line at all.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "cli/cli_test_util.h"

namespace gpucost {
namespace {

using testing_util::Contains;
using testing_util::RunResult;
using testing_util::RunShell;
using testing_util::TempDir;

struct PtyRun {
  int exit_code = -1;
  std::string terminal;  // what the pseudo-terminal showed (stderr)
};

// Runs gpucost with `args`, stderr on a pseudo-terminal and stdout into `stdout_path`.
PtyRun RunOnPty(const std::vector<std::string>& args, const std::string& stdout_path) {
  PtyRun run;
  int master = -1;
  const pid_t pid = ::forkpty(&master, nullptr, nullptr, nullptr);
  if (pid < 0) return run;
  if (pid == 0) {
    const int out = ::open(stdout_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (out < 0 || ::dup2(out, STDOUT_FILENO) < 0) ::_exit(126);
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(kBinary.c_str()));
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(kBinary.c_str(), argv.data());
    ::_exit(127);
  }
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(master, buf, sizeof buf);
    if (n > 0) {
      run.terminal.append(buf, static_cast<size_t>(n));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      break;  // EIO: the child closed the terminal
    }
  }
  ::close(master);
  int status = 0;
  ::waitpid(pid, &status, 0);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
}

class ProgressOnATerminal : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    input_ = (dir_->path() / "demo.om").string();
    const RunResult r = RunShell(kBinary + " demo --write-openmetrics " + input_ + " 2>&1");
    ASSERT_EQ(r.exit_code, 0) << r.output;
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  static TempDir* dir_;
  static std::string input_;
};
TempDir* ProgressOnATerminal::dir_ = nullptr;
std::string ProgressOnATerminal::input_;

TEST_F(ProgressOnATerminal, ReportDrawsTheLineOnStderrAndKeepsStdoutClean) {
  const std::string out = (dir_->path() / "report.json").string();
  const PtyRun run = RunOnPty(
      {"report", "--input", input_, "--price-per-gpu-hour", "12", "--format", "json"}, out);
  ASSERT_EQ(run.exit_code, 0) << run.terminal;
  EXPECT_TRUE(Contains(run.terminal, "\rgpucost: read ")) << run.terminal;
  // Then the engine's line: the demo node's one GPU.
  EXPECT_TRUE(Contains(run.terminal, "\rgpucost: attributed 1 of 1 GPU (100%)")) << run.terminal;
  EXPECT_LT(run.terminal.find("gpucost: read"), run.terminal.find("gpucost: attributed"));
  // Of the file's size, with its share.
  EXPECT_TRUE(std::regex_search(run.terminal, std::regex(R"( of [0-9.]+[KM]iB \([0-9]+%\))")))
      << run.terminal;
  // Cleared at the end: the last thing on the terminal is a blank line's carriage return.
  ASSERT_FALSE(run.terminal.empty());
  EXPECT_EQ(run.terminal.back(), '\r');
  const std::string written = testing_util::RunShell("cat " + out).output;
  EXPECT_FALSE(Contains(written, "\r"));
  const nlohmann::json doc = nlohmann::json::parse(written, nullptr, false);
  EXPECT_FALSE(doc.is_discarded()) << written.substr(0, 300);
  EXPECT_TRUE(doc.contains("totals")) << written.substr(0, 300);
}

TEST_F(ProgressOnATerminal, NoProgressMeansNone) {
  const std::string out = (dir_->path() / "quiet.json").string();
  const PtyRun run = RunOnPty({"report", "--input", input_, "--price-per-gpu-hour", "12",
                               "--format", "json", "--no-progress"},
                              out);
  ASSERT_EQ(run.exit_code, 0) << run.terminal;
  EXPECT_FALSE(Contains(run.terminal, "gpucost: read")) << run.terminal;
  // A terminal shows a newline as "\r\n"; a carriage return on its own is a redraw.
  for (size_t p = run.terminal.find('\r'); p != std::string::npos;
       p = run.terminal.find('\r', p + 1)) {
    EXPECT_TRUE(p + 1 < run.terminal.size() && run.terminal[p + 1] == '\n') << run.terminal;
  }
}

TEST_F(ProgressOnATerminal, AStderrThatIsNotATerminalGetsNoLineUnlessAsked) {
  const RunResult piped = RunShell(kBinary + " report --input " + input_ +
                                   " --price-per-gpu-hour 12 --format json 2>&1 >/dev/null");
  ASSERT_EQ(piped.exit_code, 0) << piped.output;
  EXPECT_FALSE(Contains(piped.output, "gpucost: read")) << piped.output;
  const RunResult forced = RunShell(kBinary + " report --input " + input_ +
                                    " --price-per-gpu-hour 12 --progress 2>&1 >/dev/null");
  EXPECT_TRUE(Contains(forced.output, "\rgpucost: read ")) << forced.output;
  const RunResult both =
      RunShell(kBinary + " report --input " + input_ + " --progress --no-progress 2>&1");
  EXPECT_EQ(both.exit_code, 2) << both.output;
}

TEST_F(ProgressOnATerminal, SimulateSaysTheTimeCovered) {
  const std::string om = (dir_->path() / "sim.om").string();
  const std::string out = (dir_->path() / "sim.out").string();
  const PtyRun run = RunOnPty({"simulate", "--nodes", "2", "--duration", "2h", "--out", om}, out);
  ASSERT_EQ(run.exit_code, 0) << run.terminal;
  EXPECT_TRUE(Contains(run.terminal, "\rsimulate: covered ")) << run.terminal;
  EXPECT_TRUE(Contains(run.terminal, " of 2.00h (")) << run.terminal;
}

}  // namespace
}  // namespace gpucost
