#include "serve/api_turns.h"

#include <httplib.h>
#include <malloc.h>

#include <algorithm>
#include <thread>

#include "core/strings.h"
#include "report/report_query.h"

namespace gpucost::serve {

void ApiTurns::Run(httplib::Response& res, const std::function<void()>& answer) {
  {
    std::unique_lock<std::mutex> lock(mu_);
    if (!free_.wait_for(lock, wait_, [this] { return running_ < at_once_; })) {
      ++refused_;
      res.status = 503;
      res.set_header("Retry-After", "5");
      res.set_content(JsonErrorBody(StrCat("busy: ", at_once_,
                                           " answers are being computed; try again shortly")),
                      "application/json");
      return;
    }
    ++running_;
  }
  struct Leave {
    ApiTurns& turns;
    ~Leave() {
      bool last = false;
      {
        std::lock_guard<std::mutex> lock(turns.mu_);
        last = --turns.running_ == 0;
      }
      turns.free_.notify_one();
      // glibc keeps freed memory in its arenas: what a large answer took stays resident.
      if (last) malloc_trim(0);
    }
  } leave{*this};
  answer();
}

uint64_t ApiTurns::refused() const {
  std::lock_guard<std::mutex> lock(mu_);
  return refused_;
}

int ApiTurnsAtOnce() { return std::max(2, static_cast<int>(std::thread::hardware_concurrency())); }

}  // namespace gpucost::serve
