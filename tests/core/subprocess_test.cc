// RunCommand: output of both streams, environment overrides (set and remove), stdin from
// /dev/null, the exit status and stderr in errors, NotFound for a missing program, and the time
// limit killing the child's whole process group.
#include "core/subprocess.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>

namespace gpucost {
namespace {

using ::testing::HasSubstr;

TEST(SubprocessTest, CollectsStdoutAndAppliesEnvironmentOverrides) {
  ::setenv("GPUCOST_SUBPROCESS_KEEP", "kept", 1);
  ::setenv("GPUCOST_SUBPROCESS_DROP", "dropped", 1);
  ::setenv("GPUCOST_SUBPROCESS_SET", "old", 1);
  auto r = RunCommand({"/bin/sh", "-c",
                       "echo \"$GPUCOST_SUBPROCESS_KEEP ${GPUCOST_SUBPROCESS_DROP-unset} "
                       "$GPUCOST_SUBPROCESS_SET\"; echo warn >&2"},
                      {"GPUCOST_SUBPROCESS_DROP", "GPUCOST_SUBPROCESS_SET=new"});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->out, "kept unset new\n");
  EXPECT_EQ(r->err, "warn\n");
}

TEST(SubprocessTest, StdinIsEmptyUnlessInherited) {
  auto r = RunCommand({"/bin/sh", "-c", "if read line; then echo got; else echo eof; fi"}, {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->out, "eof\n");
}

TEST(SubprocessTest, FailuresCarryStatusAndStderr) {
  auto exit3 = RunCommand({"/bin/sh", "-c", "echo '  no credentials  ' >&2; exit 3"}, {});
  ASSERT_FALSE(exit3.ok());
  EXPECT_EQ(exit3.status().code(), StatusCode::kUnavailable);
  EXPECT_THAT(std::string(exit3.status().message()),
              HasSubstr("exited with status 3: no credentials"));

  auto missing = RunCommand({"gpucost-no-such-program"}, {});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(std::string(missing.status().message()),
              HasSubstr("cannot run gpucost-no-such-program"));

  EXPECT_FALSE(RunCommand({}, {}).ok());
}

// Whether `pid` has exited (gone, or a zombie not yet reaped by its new parent).
bool Exited(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!std::getline(stat, text)) return true;
  const size_t paren = text.rfind(')');
  return paren != std::string::npos && paren + 2 < text.size() && text[paren + 2] == 'Z';
}

TEST(SubprocessTest, TimeoutKillsTheChildAndWhatItStarted) {
  const auto start = std::chrono::steady_clock::now();
  auto r = RunCommand({"/bin/sh", "-c", "sleep 30 & echo $! >&2; wait"}, {},
                      CommandOptions{.timeout = std::chrono::milliseconds(200)});
  ASSERT_FALSE(r.ok());
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  const std::string m(r.status().message());
  EXPECT_THAT(m, HasSubstr("did not finish within 200ms: "));
  // The grandchild (its pid is the stderr the error carries) was killed with the group; SIGKILL
  // lands asynchronously, so allow it a moment.
  const pid_t grandchild = static_cast<pid_t>(std::stol(m.substr(m.rfind(": ") + 2)));
  bool exited = false;
  for (int i = 0; i < 200 && !exited; ++i) {
    exited = Exited(grandchild);
    if (!exited) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(exited) << "grandchild " << grandchild << " still running";

  auto quick =
      RunCommand({"/bin/echo", "fast"}, {}, CommandOptions{.timeout = std::chrono::seconds(30)});
  ASSERT_TRUE(quick.ok()) << quick.status().ToString();
  EXPECT_EQ(quick->out, "fast\n");
}

}  // namespace
}  // namespace gpucost
