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

// An answer that holds a turn of `turns` from the time the constructor returns until Release().
class HeldTurn {
 public:
  explicit HeldTurn(ApiTurns& turns) : go_(release_.get_future().share()) {
    std::future<void> in = entered_.get_future();
    thread_ = std::thread([&turns, this] {
      httplib::Response res;
      turns.Run(res, [this] {
        entered_.set_value();
        go_.wait();
      });
    });
    in.wait();
  }
  void Release() {
    release_.set_value();
    thread_.join();
  }

 private:
  std::promise<void> entered_;
  std::promise<void> release_;
  std::shared_future<void> go_;
  std::thread thread_;
};

TEST(ApiTurns, OneMoreThanAtOnceWaitsForATurnOrIsRefused) {
  ApiTurns turns(1, Duration(0));
  HeldTurn first(turns);
  // The one turn is taken, and this one does not wait: refused, and its answer not computed.
  httplib::Response refused;
  bool ran = false;
  turns.Run(refused, [&] { ran = true; });
  EXPECT_FALSE(ran);
  EXPECT_EQ(refused.status, 503);
  EXPECT_EQ(refused.get_header_value("Retry-After"), "5");
  EXPECT_NE(refused.body.find("busy"), std::string::npos) << refused.body;
  EXPECT_EQ(turns.refused(), 1u);
  first.Release();
  // The turn is free again.
  httplib::Response next;
  turns.Run(next, [&] { ran = true; });
  EXPECT_TRUE(ran);
  EXPECT_EQ(turns.refused(), 1u);
}

TEST(ApiTurns, AnAnswerThatWaitsRunsWhenTheTurnBeforeEnds) {
  ApiTurns turns(1, std::chrono::seconds(60));
  HeldTurn first(turns);
  std::atomic<bool> ran{false};
  std::thread second([&] {
    httplib::Response res;
    turns.Run(res, [&] { ran = true; });
  });
  EXPECT_FALSE(ran);  // the first holds the only turn until it is released
  first.Release();
  second.join();
  EXPECT_TRUE(ran);
  EXPECT_EQ(turns.refused(), 0u);
}

}  // namespace
}  // namespace gpucost::serve
