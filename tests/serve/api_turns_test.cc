// ApiTurns: at most `at_once` API answers are computed at once; one more waits for a turn, and is
// answered 503 with Retry-After when none comes within the wait.
#include "serve/api_turns.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <chrono>
#include <future>
#include <thread>

namespace gpucost::serve {
namespace {

TEST(ApiTurns, OneMoreThanAtOnceWaitsForATurnOrIsRefused) {
  ApiTurns turns(1, Duration(0));
  std::promise<void> entered;
  std::promise<void> release;
  std::shared_future<void> go = release.get_future().share();
  std::thread first([&] {
    httplib::Response res;
    turns.Run(res, [&] {
      entered.set_value();
      go.wait();
    });
  });
  entered.get_future().wait();
  // The one turn is taken, and this one does not wait: refused, and its answer not computed.
  httplib::Response refused;
  bool ran = false;
  turns.Run(refused, [&] { ran = true; });
  EXPECT_FALSE(ran);
  EXPECT_EQ(refused.status, 503);
  EXPECT_EQ(refused.get_header_value("Retry-After"), "5");
  EXPECT_NE(refused.body.find("busy"), std::string::npos) << refused.body;
  EXPECT_EQ(turns.refused(), 1u);
  release.set_value();
  first.join();
  // The turn is free again.
  httplib::Response next;
  turns.Run(next, [&] { ran = true; });
  EXPECT_TRUE(ran);
  EXPECT_EQ(turns.refused(), 1u);
}

TEST(ApiTurns, AnAnswerThatWaitsRunsWhenTheTurnBeforeEnds) {
  ApiTurns turns(1, std::chrono::seconds(60));
  std::promise<void> entered;
  std::promise<void> release;
  std::shared_future<void> go = release.get_future().share();
  std::thread first([&] {
    httplib::Response res;
    turns.Run(res, [&] {
      entered.set_value();
      go.wait();
    });
  });
  entered.get_future().wait();
  std::atomic<bool> ran{false};
  std::thread second([&] {
    httplib::Response res;
    turns.Run(res, [&] { ran = true; });
  });
  EXPECT_FALSE(ran);  // the first holds the only turn until it is released
  release.set_value();
  first.join();
  second.join();
  EXPECT_TRUE(ran);
  EXPECT_EQ(turns.refused(), 0u);
}

}  // namespace
}  // namespace gpucost::serve
