// Informer: keeps an ObjectStore in step with one resource of the API server, the way client-go's
// reflector does. It lists in pages (limit/continue; an expired continue token restarts the list),
// then watches from the list's resourceVersion with bookmarks, resuming from the last version it
// saw when a watch ends or the server hangs up, and listing afresh when the server answers 410
// Gone. Failures back off exponentially (honouring Retry-After). ListOnce() is the one-shot form
// for batch reports. Run() blocks until Stop(); everything else is thread-safe.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>

#include "core/result.h"
#include "core/time.h"
#include "k8s/api_client.h"
#include "k8s/object_store.h"

namespace gpucost::k8s {

struct ResourceType {
  std::string path;  // collection path: "/api/v1/pods", "/apis/apps/v1/replicasets"
  std::string name;  // for messages and metrics: "pods"
  // A resource some clusters do not serve (resource.k8s.io/v1 before Kubernetes 1.34) or that
  // the account may not read: a list answered 404 or 403 is an empty list, asked again every
  // InformerOptions::unserved_recheck, instead of an error.
  bool optional = false;
};

struct InformerOptions {
  int page_size = 500;
  Duration watch_timeout = std::chrono::minutes(5);  // timeoutSeconds asked of the server
  Duration initial_backoff = std::chrono::seconds(1);
  Duration max_backoff = std::chrono::seconds(30);
  int list_attempts = 5;  // tries of one list page that fails with 5xx, 429 or no answer
  Duration unserved_recheck = std::chrono::minutes(10);  // an optional resource not served
};

struct InformerStats {
  uint64_t lists = 0;         // complete lists
  uint64_t pages = 0;
  uint64_t watches = 0;       // watch requests
  uint64_t events = 0;        // ADDED, MODIFIED, DELETED
  uint64_t bookmarks = 0;
  uint64_t relists = 0;       // lists forced by 410 Gone
  uint64_t errors = 0;        // failed requests
  std::string last_error;
  std::string resource_version;
  bool synced = false;        // a list has completed
  // An optional resource the server does not serve (or does not let this account read): why,
  // else "".
  std::string unserved;
  bool optional = false;  // the resource is optional (ResourceType::optional)
};

class Informer {
 public:
  Informer(const ApiClient& client, ResourceType type, ObjectStore& store, const Clock& clock,
           InformerOptions options = {});

  // Lists the resource into the store once (pages; restarts once on an expired continue token).
  Status ListOnce();
  // List, then watch, until Stop(). Errors are retried with backoff, and counted.
  void Run();
  void Stop();
  // Waits until the first list completed or `timeout` passed (real time).
  bool WaitForSync(Duration timeout);

  InformerStats stats() const;
  const ResourceType& type() const { return type_; }

 private:
  enum class WatchEnd { kResume, kRelist, kBackoff };
  Status List();
  WatchEnd Watch();
  void Backoff(const std::string& retry_after);
  void Fail(std::string message);

  const ApiClient& client_;
  ResourceType type_;
  ObjectStore& store_;
  const Clock& clock_;
  InformerOptions options_;
  std::atomic<bool> stop_{false};
  mutable std::mutex mu_;
  std::condition_variable cv_;
  InformerStats stats_;
  Duration backoff_{0};
  std::string retry_after_;  // of the last failed watch
};

}  // namespace gpucost::k8s
