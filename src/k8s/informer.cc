#include "k8s/informer.h"

#include <algorithm>
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "core/strings.h"

namespace gpucost::k8s {
namespace {

using nlohmann::json;

std::string UrlEncode(std::string_view s) {
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) != 0 || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      static const char* kHex = "0123456789ABCDEF";
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

bool Retryable(const ApiResponse& r) {
  return (r.status == 0 && r.retryable) || r.status == 429 || r.status >= 500;
}

}  // namespace

Informer::Informer(const ApiClient& client, ResourceType type, ObjectStore& store,
                   const Clock& clock, InformerOptions options)
    : client_(client), type_(std::move(type)), store_(store), clock_(clock),
      options_(options), backoff_(options.initial_backoff) {}

void Informer::Fail(std::string message) {
  std::lock_guard lock(mu_);
  ++stats_.errors;
  stats_.last_error = std::move(message);
}

Status Informer::List() {
  std::string cont;
  std::string list_rv;
  bool restarted = false;
  store_.BeginReplace();
  for (;;) {
    std::string q = StrCat(type_.path, "?limit=", options_.page_size);
    if (!cont.empty()) q += StrCat("&continue=", UrlEncode(cont));
    auto r = client_.Get(q);
    if (!r.ok()) return r.status();
    // A server that is restarting or shedding load (5xx, 429, no answer) is asked again, a few
    // times, backing off; the page's continue token stays valid meanwhile.
    for (int attempt = 1; attempt < options_.list_attempts && Retryable(*r) && !stop_.load();
         ++attempt) {
      Fail(StrCat("list ", type_.name, ": ",
                  r->status == 0 ? r->error : StrCat("HTTP ", r->status, ": ", StatusMessage(r->body))));
      Backoff(r->retry_after);
      r = client_.Get(q);
      if (!r.ok()) return r.status();
    }
    if (r->status == 410 && !cont.empty() && !restarted) {
      // The continue token expired (etcd compacted): a list starts over, once.
      restarted = true;
      cont.clear();
      list_rv.clear();
      store_.BeginReplace();
      continue;
    }
    if (type_.optional && (r->status == 404 || r->status == 403)) {
      // Not served here (or not to us): an empty list, asked again later.
      store_.EndReplace(clock_.Now());
      std::lock_guard lock(mu_);
      stats_.unserved = StrCat("HTTP ", r->status, ": ", StatusMessage(r->body));
      stats_.synced = true;
      cv_.notify_all();
      return Status::Ok();
    }
    if (r->status != 200) {
      const std::string why = r->status == 0 ? r->error
                                             : StrCat("HTTP ", r->status, ": ", StatusMessage(r->body));
      return Status(Retryable(*r) ? StatusCode::kUnavailable : StatusCode::kFailedPrecondition,
                    StrCat("list ", type_.name, ": ", why));
    }
    json page = json::parse(r->body, nullptr, false);
    if (!page.is_object()) return Status::ParseError(StrCat("list ", type_.name, ": not JSON"));
    if (auto items = page.find("items"); items != page.end() && items->is_array()) {
      for (const json& item : *items) store_.Upsert(item);
    }
    if (auto meta = page.find("metadata"); meta != page.end() && meta->is_object()) {
      // Every page of one list carries the version of its snapshot; the first one's is kept.
      if (list_rv.empty()) list_rv = meta->value("resourceVersion", "");
      cont = meta->value("continue", "");
    } else {
      cont.clear();
    }
    {
      std::lock_guard lock(mu_);
      ++stats_.pages;
    }
    if (cont.empty()) break;
  }
  store_.EndReplace(clock_.Now());
  std::lock_guard lock(mu_);
  stats_.unserved.clear();
  stats_.resource_version = list_rv;
  backoff_ = options_.initial_backoff;
  ++stats_.lists;
  stats_.synced = true;
  cv_.notify_all();
  return Status::Ok();
}

Status Informer::ListOnce() { return List(); }

Informer::WatchEnd Informer::Watch() {
  std::string rv;
  {
    std::lock_guard lock(mu_);
    rv = stats_.resource_version;
    ++stats_.watches;
  }
  const int64_t timeout_s = std::max<int64_t>(1, options_.watch_timeout.count() / 1000);
  const std::string q = StrCat(type_.path, "?watch=true&allowWatchBookmarks=true&resourceVersion=",
                               UrlEncode(rv), "&timeoutSeconds=", timeout_s);
  WatchEnd end = WatchEnd::kResume;
  auto on_line = [&](std::string_view line) {
    if (Trim(line).empty()) return true;
    json ev = json::parse(line, nullptr, false);
    if (!ev.is_object()) {
      Fail(StrCat("watch ", type_.name, ": malformed event line"));
      return true;  // one bad line loses that event only
    }
    const std::string type = ev.value("type", "");
    auto obj = ev.find("object");
    if (obj == ev.end() || !obj->is_object()) return true;
    if (type == "ERROR") {
      const int code = obj->value("code", 0);
      if (code == 410) {
        end = WatchEnd::kRelist;
      } else {
        Fail(StrCat("watch ", type_.name, ": ", StatusMessage(obj->dump())));
        end = WatchEnd::kBackoff;
      }
      return false;
    }
    std::string new_rv;
    if (auto meta = obj->find("metadata"); meta != obj->end() && meta->is_object()) {
      new_rv = meta->value("resourceVersion", "");
    }
    if (type == "ADDED" || type == "MODIFIED") {
      store_.Upsert(*obj);
    } else if (type == "DELETED") {
      store_.Delete(*obj, clock_.Now());
    }
    std::lock_guard lock(mu_);
    if (type == "BOOKMARK") ++stats_.bookmarks;
    else ++stats_.events;
    if (!new_rv.empty()) stats_.resource_version = new_rv;
    backoff_ = options_.initial_backoff;  // the watch works
    return true;
  };
  const Duration client_timeout = options_.watch_timeout + std::chrono::seconds(30);
  auto r = client_.Stream(q, client_timeout, on_line, &stop_);
  if (!r.ok()) {
    Fail(StrCat("watch ", type_.name, ": ", r.status().message()));
    return WatchEnd::kBackoff;
  }
  if (r->status == 410) return WatchEnd::kRelist;
  if (r->status != 200) {
    Fail(StrCat("watch ", type_.name, ": HTTP ", r->status, ": ",
                r->status == 0 ? r->error : StatusMessage(r->body)));
    std::lock_guard lock(mu_);
    retry_after_ = r->retry_after;
    return WatchEnd::kBackoff;
  }
  return end;
}

void Informer::Backoff(const std::string& retry_after) {
  Duration wait;
  {
    std::lock_guard lock(mu_);
    wait = backoff_;
    backoff_ = std::min(options_.max_backoff, backoff_ * 2);
  }
  if (!retry_after.empty()) {
    const long s = std::strtol(retry_after.c_str(), nullptr, 10);
    // Honoured up to the longest backoff: a server cannot park the informer for long.
    if (s > 0) wait = std::max(wait, std::min(options_.max_backoff, Duration(std::chrono::seconds(s))));
  }
  std::unique_lock lock(mu_);
  cv_.wait_for(lock, wait, [&] { return stop_.load(); });
}

void Informer::Run() {
  bool need_list = true;
  while (!stop_.load()) {
    if (need_list) {
      Status s = List();
      if (!s.ok()) {
        Fail(s.ToString());
        Backoff("");
        continue;
      }
      need_list = false;
    }
    {
      std::unique_lock lock(mu_);
      if (!stats_.unserved.empty()) {
        // Nothing to watch: ask again later, or stop.
        cv_.wait_for(lock, options_.unserved_recheck, [this] { return stop_.load(); });
        need_list = true;
        continue;
      }
    }
    switch (Watch()) {
      case WatchEnd::kResume:
        break;
      case WatchEnd::kRelist: {
        std::lock_guard lock(mu_);
        ++stats_.relists;
        need_list = true;
        break;
      }
      case WatchEnd::kBackoff: {
        std::string retry_after;
        {
          std::lock_guard lock(mu_);
          retry_after.swap(retry_after_);
        }
        Backoff(retry_after);
        break;
      }
    }
  }
}

void Informer::Stop() {
  stop_.store(true);
  std::lock_guard lock(mu_);
  cv_.notify_all();
}

bool Informer::WaitForSync(Duration timeout) {
  std::unique_lock lock(mu_);
  return cv_.wait_for(lock, timeout, [&] { return stats_.synced || stop_.load(); }) && stats_.synced;
}

InformerStats Informer::stats() const {
  std::lock_guard lock(mu_);
  InformerStats out = stats_;
  out.optional = type_.optional;
  return out;
}

}  // namespace gpucost::k8s
