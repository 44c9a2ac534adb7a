// How many API answers serve computes at once. One report, allocation, alerts or savings answer
// may read much of the ledger and build a large document (a per-minute series by pod of three
// days took 1.7 GB and 5 s); twenty at once took every core and several times that memory, and
// glibc kept what they freed. ApiTurns lets `at_once` of them run; the others wait their turn, up
// to `wait`, and are then answered 503 with Retry-After. When the last answer running ends, the
// memory freed is given back to the system (malloc_trim). /healthz, /readyz, /metrics and the
// UI's files take no turn.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>

#include "core/time.h"

namespace httplib {
struct Response;
}

namespace gpucost::serve {

class ApiTurns {
 public:
  ApiTurns(int at_once, Duration wait) : at_once_(at_once), wait_(wait) {}

  // Runs `answer` in a turn; without one within the wait, answers `res` 503 instead.
  void Run(httplib::Response& res, const std::function<void()>& answer);

  uint64_t refused() const;  // answers refused for want of a turn, since start

 private:
  const int at_once_;
  const Duration wait_;
  mutable std::mutex mu_;
  std::condition_variable free_;
  int running_ = 0;
  uint64_t refused_ = 0;
};

// At once: the cores, at least two.
int ApiTurnsAtOnce();

}  // namespace gpucost::serve
