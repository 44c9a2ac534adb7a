#include "cli/stop_signals.h"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <thread>

namespace gpucost::cli {
namespace {

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
  std::thread waiter([&stop] {
    const sigset_t set = StopSet();
    int sig = 0;
    sigwait(&set, &sig);
    stop();
  });
  const Status status = run();
  if (!status.ok()) ::kill(::getpid(), SIGTERM);  // release the waiter
  waiter.join();
  return status;
}

}  // namespace gpucost::cli
