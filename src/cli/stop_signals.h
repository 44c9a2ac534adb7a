// How the long-running commands (`gpucost agent`, `gpucost serve`) stop: SIGINT and SIGTERM are
// blocked in every thread and taken by one thread that waits for them (a signal handler may not
// stop a server), which calls the server's stop.
#pragma once

#include <functional>

#include "core/status.h"

namespace gpucost::cli {

// Blocks SIGINT and SIGTERM in the calling thread and the threads it starts afterwards. Call it
// before starting any thread.
void BlockStopSignals();

// Runs `run` (a server's blocking loop) while a thread waits for SIGINT or SIGTERM and then calls
// `stop`; when `run` has not returned 5 s after the signal (a request or cycle still running),
// the process exits with status 0. When `run` ends on its own with an error, the waiter is
// released. Returns run's status.
Status RunUntilStopSignal(const std::function<Status()>& run, const std::function<void()>& stop);

}  // namespace gpucost::cli
