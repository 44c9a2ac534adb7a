// HttpWorkers, the HTTP servers' connection threads: past the connections that may wait for a
// thread, the accepting thread waits too (the rest wait in the kernel, not as descriptors), and
// every connection queued is served.
#include "core/http_workers.h"

#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <thread>

namespace gpucost {
namespace {

TEST(HttpWorkers, TheAcceptingThreadWaitsWhileTheQueueIsFull) {
  HttpWorkers workers(/*max_threads=*/1, /*max_waiting=*/2);
  std::promise<void> full;
  workers.on_full = [&full] { full.set_value(); };
  std::promise<void> gate;
  std::shared_future<void> open = gate.get_future().share();
  std::promise<void> first_running;
  std::atomic<int> served{0};
  // The one thread holds the first connection until the gate opens; two more wait for it.
  workers.enqueue([&] {
    first_running.set_value();
    open.wait();
    ++served;
  });
  first_running.get_future().wait();
  workers.enqueue([&] { ++served; });
  workers.enqueue([&] { ++served; });
  // A fourth finds the queue full: its enqueue waits until a waiting connection is taken.
  std::atomic<bool> accepted{false};
  std::thread acceptor([&] {
    workers.enqueue([&] { ++served; });
    accepted = true;
  });
  full.get_future().wait();
  EXPECT_FALSE(accepted.load());  // nothing can make room while the gate is closed
  gate.set_value();
  acceptor.join();
  EXPECT_TRUE(accepted.load());
  workers.shutdown();  // runs what is queued, then joins
  EXPECT_EQ(served.load(), 4);
  EXPECT_EQ(workers.threads(), 0u);
}

}  // namespace
}  // namespace gpucost
