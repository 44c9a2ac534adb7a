#include "cli/stop_signals.h"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>

#include "core/log.h"
#include "core/strings.h"

namespace gpucost::cli {
namespace {

// How long a stopping server may take before the process exits anyway.
constexpr std::chrono::seconds kStopDeadline{5};

sigset_t StopSet() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  return set;
}

}  // namespace

void BlockStopSignals() {
  const sigset_t set = StopSet();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

Status RunUntilStopSignal(const std::function<Status()>& run, const std::function<void()>& stop) {
  std::mutex mu;
  std::condition_variable ran;
  bool done = false;
  std::thread waiter([&] {
    const sigset_t set = StopSet();
    int sig = 0;
    sigwait(&set, &sig);
    stop();
    // A request or a cycle that runs on (a long report, a slow database) does not hold the
    // process: what it wrote is transactional, as after SIGKILL.
    std::unique_lock<std::mutex> lock(mu);
    if (!ran.wait_for(lock, kStopDeadline, [&done] { return done; })) {
      LogWarn(StrCat("stopping: still busy ", kStopDeadline.count(),
                     " s after the signal (a request or a cycle running); exiting now"));
      std::fflush(stdout);
      std::_Exit(0);
    }
  });
  const Status status = run();
  {
    std::lock_guard<std::mutex> lock(mu);
    done = true;
  }
  ran.notify_all();
  if (!status.ok()) ::kill(::getpid(), SIGTERM);  // release the waiter
  waiter.join();
  return status;
}

}  // namespace gpucost::cli
