// What reaches stderr from a message that echoes input: no terminal control, and no line that
// passes for a message of its own.
#include "core/log.h"

#include <gtest/gtest.h>

#include <string>

namespace gpucost {
namespace {

std::string Logged(std::string_view message) {
  testing::internal::CaptureStderr();
  LogWarn(message);
  return testing::internal::GetCapturedStderr();
}

TEST(Log, ANewlineInAValueCannotForgeAMessage) {
  EXPECT_EQ(Logged("pod ml/a\ngpucost error: all money lost"),
            "gpucost warn: pod ml/a\n  gpucost error: all money lost\n");
  // Continuation lines the message indents itself are kept as they are.
  EXPECT_EQ(Logged("3 problems:\n  one\n\ttwo"), "gpucost warn: 3 problems:\n  one\n\ttwo\n");
}

TEST(Log, ControlCharactersAndBadUtf8AreReplaced) {
  EXPECT_EQ(Logged("team \x1b[2J\rx\xff"),
            "gpucost warn: team \xEF\xBF\xBD[2J\xEF\xBF\xBDx\xEF\xBF\xBD\n");
}

TEST(Log, UrlPasswordsAreHidden) {
  const std::string out = Logged("cannot reach https://u:hunter2@prom:9090/api");
  EXPECT_EQ(out.find("hunter2"), std::string::npos) << out;
}

}  // namespace
}  // namespace gpucost
