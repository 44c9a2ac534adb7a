// Tests of the fake API server itself, through plain libcurl, so that the client's tests can
// trust it: paging, watch replay and live events, compaction, bookmarks, authentication, TLS,
// dropped connections.
#include "k8s/fake_apiserver.h"

#include <curl/curl.h>
#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>
#include <thread>

#include "cli/cli_test_util.h"
#include "core/strings.h"
#include "k8s/k8s_fixtures.h"

namespace gpucost::k8s::testing {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr milliseconds kWait{5000};

const bool kCurlReady = curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK;

struct CurlOptions {
  std::string ca_file{};  // empty: no TLS verification settings
  std::string cert_file{};
  std::string key_file{};
  std::string header{};   // one extra request header, e.g. "Authorization: Bearer x"
  std::string method{};   // empty: GET
  std::string resolve{};  // CURLOPT_RESOLVE entry
};

struct Reply {
  CURLcode code = CURLE_OK;
  long status = 0;
  std::string headers{};
  std::string body{};
};

size_t Append(char* data, size_t size, size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
}

// Applies `o` to `curl`; the returned list must outlive the transfer.
curl_slist* Configure(CURL* curl, const std::string& url, const CurlOptions& o) {
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  if (!o.ca_file.empty()) curl_easy_setopt(curl, CURLOPT_CAINFO, o.ca_file.c_str());
  if (!o.cert_file.empty()) curl_easy_setopt(curl, CURLOPT_SSLCERT, o.cert_file.c_str());
  if (!o.key_file.empty()) curl_easy_setopt(curl, CURLOPT_SSLKEY, o.key_file.c_str());
  if (!o.method.empty()) curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, o.method.c_str());
  curl_slist* list = nullptr;
  if (!o.header.empty()) list = curl_slist_append(list, o.header.c_str());
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, list);
  return list;
}

Reply Fetch(const std::string& url, const CurlOptions& o = {}) {
  Reply r;
  CURL* curl = curl_easy_init();
  curl_slist* headers = Configure(curl, url, o);
  curl_slist* resolve = o.resolve.empty() ? nullptr : curl_slist_append(nullptr, o.resolve.c_str());
  curl_easy_setopt(curl, CURLOPT_RESOLVE, resolve);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, 10000L);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, Append);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &r.body);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, Append);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &r.headers);
  r.code = curl_easy_perform(curl);
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &r.status);
  curl_slist_free_all(headers);
  curl_slist_free_all(resolve);
  curl_easy_cleanup(curl);
  return r;
}

// A watch read by libcurl on its own thread, line by line.
class WatchStream {
 public:
  explicit WatchStream(std::string url, CurlOptions o = {})
      : url_(std::move(url)), options_(std::move(o)), thread_([this] { Run(); }) {}
  ~WatchStream() {
    cancel_ = true;
    thread_.join();
  }

  // The i-th line (0-based) once it has arrived; null after kWait.
  json Line(size_t i) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait_for(lock, kWait, [&] { return lines_.size() > i; });
    return lines_.size() > i ? json::parse(lines_[i]) : json();
  }
  // How the transfer ended; CURLE_OPERATION_TIMEDOUT if it has not after kWait.
  CURLcode Result() {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, kWait, [&] { return done_; }) ? code_ : CURLE_OPERATION_TIMEDOUT;
  }
  size_t LineCount() {
    std::lock_guard<std::mutex> lock(mu_);
    return lines_.size();
  }
  const std::string& headers() const { return headers_; }  // after Result()
  long status() const { return status_; }                  // after Result()
  void Cancel() { cancel_ = true; }

 private:
  static size_t OnData(char* data, size_t size, size_t n, void* self_ptr) {
    auto* self = static_cast<WatchStream*>(self_ptr);
    std::lock_guard<std::mutex> lock(self->mu_);
    self->partial_.append(data, size * n);
    size_t nl;
    while ((nl = self->partial_.find('\n')) != std::string::npos) {
      self->lines_.push_back(self->partial_.substr(0, nl));
      self->partial_.erase(0, nl + 1);
    }
    self->cv_.notify_all();
    return size * n;
  }
  static int OnProgress(void* self_ptr, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
    return static_cast<WatchStream*>(self_ptr)->cancel_ ? 1 : 0;
  }

  void Run() {
    CURL* curl = curl_easy_init();
    curl_slist* headers = Configure(curl, url_, options_);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, OnData);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, this);
    curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, Append);
    curl_easy_setopt(curl, CURLOPT_HEADERDATA, &headers_);
    curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, OnProgress);
    curl_easy_setopt(curl, CURLOPT_XFERINFODATA, this);
    const CURLcode code = curl_easy_perform(curl);
    long status = 0;
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
    curl_slist_free_all(headers);
    curl_easy_cleanup(curl);
    std::lock_guard<std::mutex> lock(mu_);
    status_ = status;
    code_ = code;
    done_ = true;
    cv_.notify_all();
  }

  const std::string url_;
  const CurlOptions options_;
  std::string headers_{};
  long status_ = 0;
  std::atomic<bool> cancel_{false};
  std::mutex mu_;
  std::condition_variable cv_;
  std::string partial_{};
  std::vector<std::string> lines_{};
  bool done_ = false;
  CURLcode code_ = CURLE_OK;
  std::thread thread_;  // last: starts once the rest is built
};

json SimplePod(const std::string& ns, const std::string& name, const std::string& gen = "0") {
  return {{"metadata", {{"namespace", ns}, {"name", name}, {"labels", {{"gen", gen}}}}},
          {"spec", {{"nodeName", "n1"}}}};
}

std::string PodName(int i) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "pod-%03d", i);
  return buf;
}

TEST(FakeApiServer, ListIsSortedAndHasTheRealShape) {
  ASSERT_TRUE(kCurlReady);
  FakeApiServer server;
  server.Upsert("pods", SimplePod("b", "x"));
  server.Upsert("pods", SimplePod("a", "y"));
  server.Upsert("nodes", {{"metadata", {{"name", "gpu-1"}, {"namespace", "ignored"}}}});
  const Reply r = Fetch(server.url() + "/api/v1/pods");
  ASSERT_EQ(r.code, CURLE_OK);
  EXPECT_EQ(r.status, 200);
  EXPECT_NE(r.headers.find("Content-Type: application/json"), std::string::npos);
  const json list = json::parse(r.body);
  EXPECT_EQ(list["kind"], "PodList");
  EXPECT_EQ(list["apiVersion"], "v1");
  EXPECT_EQ(list["metadata"]["resourceVersion"], std::to_string(server.resource_version()));
  EXPECT_FALSE(list["metadata"].contains("continue"));
  ASSERT_EQ(list["items"].size(), 2u);
  EXPECT_EQ(list["items"][0]["metadata"]["namespace"], "a");
  EXPECT_EQ(list["items"][1]["metadata"]["namespace"], "b");
  EXPECT_FALSE(list["items"][0].contains("kind"));
  EXPECT_FALSE(list["items"][0].contains("apiVersion"));
  EXPECT_FALSE(list["items"][0]["metadata"]["uid"].get<std::string>().empty());

  const json nodes = json::parse(Fetch(server.url() + "/api/v1/nodes").body);
  EXPECT_EQ(nodes["kind"], "NodeList");
  EXPECT_FALSE(nodes["items"][0]["metadata"].contains("namespace"));
  const json jobs = json::parse(Fetch(server.url() + "/apis/batch/v1/jobs").body);
  EXPECT_EQ(jobs["kind"], "JobList");
  EXPECT_EQ(jobs["apiVersion"], "batch/v1");
  EXPECT_TRUE(jobs["items"].empty());
  EXPECT_EQ(server.ListCount("pods"), 1);
  EXPECT_EQ(server.Queries("pods"), std::vector<std::string>{""});
}

// Pages are served as of the first page's resourceVersion while a writer changes the store.
TEST(FakeApiServer, PagedListIsConsistentUnderConcurrentWrites) {
  FakeApiServer server;
  std::map<std::string, std::string> state;  // name -> gen label
  for (int i = 0; i < 40; ++i) {
    server.Upsert("pods", SimplePod("ml", PodName(i)));
    state[PodName(i)] = "0";
  }
  struct Op {
    int64_t rv;
    std::string name;
    std::string gen;  // "" for a delete
  };
  std::vector<Op> ops{};
  std::atomic<bool> stop{false};
  std::thread writer([&] {
    for (int i = 0; !stop && i < 2000; ++i) {
      const std::string name = PodName((i * 7) % 50);
      if (i % 5 == 4) {
        const int64_t rv = server.Delete("pods", "ml", name);
        if (rv != 0) ops.push_back({rv, name, ""});
      } else {
        const std::string gen = std::to_string(i + 1);
        ops.push_back({server.Upsert("pods", SimplePod("ml", name, gen)), name, gen});
      }
    }
  });
  std::map<std::string, std::string> listed;
  std::string token{};
  std::string snapshot{};
  int pages = 0;
  do {
    const Reply r =
        Fetch(server.url() + "/api/v1/pods?limit=7" + (token.empty() ? "" : "&continue=" + token));
    ASSERT_EQ(r.status, 200) << r.body;
    const json page = json::parse(r.body);
    if (snapshot.empty()) snapshot = page["metadata"]["resourceVersion"];
    EXPECT_EQ(page["metadata"]["resourceVersion"], snapshot);
    for (const json& item : page["items"]) {
      EXPECT_LE(std::stoll(item["metadata"]["resourceVersion"].get<std::string>()),
                std::stoll(snapshot));
      listed[item["metadata"]["name"]] = item["metadata"]["labels"]["gen"];
    }
    token = page["metadata"].value("continue", "");
    if (!token.empty()) {
      EXPECT_EQ(page["items"].size(), 7u);
      EXPECT_GT(page["metadata"]["remainingItemCount"].get<int>(), 0);
    }
    ++pages;
  } while (!token.empty());
  stop = true;
  writer.join();
  EXPECT_GE(pages, 2);
  for (const Op& op : ops) {
    if (op.rv > std::stoll(snapshot)) break;
    if (op.gen.empty()) {
      state.erase(op.name);
    } else {
      state[op.name] = op.gen;
    }
  }
  EXPECT_EQ(listed, state);
  EXPECT_EQ(server.ListCount("pods"), pages);
  EXPECT_EQ(server.Queries("pods")[0], "limit=7");
}

TEST(FakeApiServer, WatchReplaysHistoryThenStreamsLiveEvents) {
  FakeApiServer server;
  const int64_t rv1 = server.Upsert("pods", SimplePod("ml", "a"));
  const int64_t rv2 = server.Upsert("pods", SimplePod("ml", "b"));
  server.Upsert("nodes", {{"metadata", {{"name", "n1"}}}});  // another resource: not sent
  const int64_t rv3 = server.Upsert("pods", SimplePod("ml", "a", "1"));
  const int64_t rv4 = server.Delete("pods", "ml", "b");
  EXPECT_EQ(server.Delete("pods", "ml", "b"), 0);
  EXPECT_LT(rv1, rv2);

  WatchStream w(server.url() + "/api/v1/pods?watch=1&resourceVersion=" + std::to_string(rv1) +
                "&timeoutSeconds=2");
  const json e0 = w.Line(0);
  EXPECT_EQ(e0["type"], "ADDED");
  EXPECT_EQ(e0["object"]["kind"], "Pod");
  EXPECT_EQ(e0["object"]["apiVersion"], "v1");
  EXPECT_EQ(e0["object"]["metadata"]["resourceVersion"], std::to_string(rv2));
  EXPECT_EQ(w.Line(1)["type"], "MODIFIED");
  EXPECT_EQ(w.Line(1)["object"]["metadata"]["labels"]["gen"], "1");
  EXPECT_EQ(w.Line(1)["object"]["metadata"]["resourceVersion"], std::to_string(rv3));
  EXPECT_EQ(w.Line(2)["type"], "DELETED");
  EXPECT_EQ(w.Line(2)["object"]["metadata"]["name"], "b");
  EXPECT_EQ(w.Line(2)["object"]["metadata"]["resourceVersion"], std::to_string(rv4));
  ASSERT_TRUE(server.WaitForWatches("pods", 1, kWait));

  const int64_t rv5 = server.Upsert("pods", SimplePod("ml", "c"));
  EXPECT_EQ(w.Line(3)["type"], "ADDED");
  EXPECT_EQ(w.Line(3)["object"]["metadata"]["resourceVersion"], std::to_string(rv5));
  // timeoutSeconds ends the response cleanly (terminating chunk).
  EXPECT_EQ(w.Result(), CURLE_OK);
  EXPECT_EQ(w.status(), 200);
  EXPECT_NE(w.headers().find("Transfer-Encoding: chunked"), std::string::npos);
  EXPECT_NE(w.headers().find("Content-Type: application/json"), std::string::npos);
  EXPECT_EQ(w.LineCount(), 4u);
  EXPECT_TRUE(server.WaitForWatches("pods", 0, kWait));
  EXPECT_EQ(server.WatchCount("pods"), 1);
  EXPECT_EQ(server.ListCount("pods"), 0);
}

TEST(FakeApiServer, WatchFromZeroSendsTheCurrentState) {
  FakeApiServer server;
  server.Upsert("nodes", {{"metadata", {{"name", "b"}}}});
  server.Upsert("nodes", {{"metadata", {{"name", "a"}}}});
  WatchStream w(server.url() + "/api/v1/nodes?watch=true&resourceVersion=0&timeoutSeconds=1");
  EXPECT_EQ(w.Line(0)["object"]["metadata"]["name"], "a");
  EXPECT_EQ(w.Line(1)["object"]["metadata"]["name"], "b");
  EXPECT_EQ(w.Line(1)["type"], "ADDED");
  EXPECT_EQ(w.Result(), CURLE_OK);
}

TEST(FakeApiServer, CompactExpiresOldVersionsAndContinueTokens) {
  FakeApiServer server;
  for (int i = 0; i < 3; ++i) server.Upsert("jobs", SimplePod("batch", PodName(i)));
  const json first = json::parse(Fetch(server.url() + "/apis/batch/v1/jobs?limit=2").body);
  const std::string token = first["metadata"]["continue"];
  const std::string rv = first["metadata"]["resourceVersion"];
  server.Compact();

  const Reply expired = Fetch(server.url() + "/apis/batch/v1/jobs?limit=2&continue=" + token);
  EXPECT_EQ(expired.status, 410);
  const json status = json::parse(expired.body);
  EXPECT_EQ(status["kind"], "Status");
  EXPECT_EQ(status["reason"], "Expired");
  EXPECT_EQ(status["code"], 410);
  EXPECT_NE(status["message"].get<std::string>().find("continue parameter is too old"),
            std::string::npos);

  WatchStream old(server.url() + "/apis/batch/v1/jobs?watch=1&resourceVersion=" + rv);
  const json error = old.Line(0);
  EXPECT_EQ(error["type"], "ERROR");
  EXPECT_EQ(error["object"]["code"], 410);
  EXPECT_EQ(error["object"]["reason"], "Expired");
  EXPECT_NE(error["object"]["message"].get<std::string>().find("too old resource version: " + rv),
            std::string::npos);
  EXPECT_EQ(old.Result(), CURLE_OK);
  EXPECT_EQ(old.status(), 200);

  // A relist after the compaction gives a version to watch from.
  const json relist = json::parse(Fetch(server.url() + "/apis/batch/v1/jobs").body);
  EXPECT_EQ(relist["items"].size(), 3u);
  WatchStream fresh(server.url() + "/apis/batch/v1/jobs?watch=1&timeoutSeconds=1&resourceVersion=" +
                    relist["metadata"]["resourceVersion"].get<std::string>());
  ASSERT_TRUE(server.WaitForWatches("jobs", 1, kWait));
  server.Upsert("jobs", SimplePod("batch", "late"));
  EXPECT_EQ(fresh.Line(0)["type"], "ADDED");
  EXPECT_EQ(fresh.Result(), CURLE_OK);
}

TEST(FakeApiServer, BookmarksGoOnlyToWatchesThatAskedForThem) {
  FakeApiServer server;
  const std::string base = server.url() + "/apis/apps/v1/replicasets?watch=1&resourceVersion=" +
                           std::to_string(server.resource_version());
  WatchStream with(base + "&allowWatchBookmarks=true");
  WatchStream without(base);
  ASSERT_TRUE(server.WaitForWatches("replicasets", 2, kWait));
  server.Upsert("replicasets", SimplePod("ml", "rs-1"));
  server.Upsert("nodes", {{"metadata", {{"name", "n1"}}}});  // moves the global version
  server.SendBookmark("replicasets");
  server.Upsert("replicasets", SimplePod("ml", "rs-2"));

  EXPECT_EQ(with.Line(0)["type"], "ADDED");
  const json bookmark = with.Line(1);
  EXPECT_EQ(bookmark["type"], "BOOKMARK");
  EXPECT_EQ(bookmark["object"]["kind"], "ReplicaSet");
  EXPECT_EQ(bookmark["object"]["apiVersion"], "apps/v1");
  EXPECT_EQ(bookmark["object"]["metadata"]["resourceVersion"],
            std::to_string(server.resource_version() - 1));
  EXPECT_EQ(bookmark["object"]["metadata"]["annotations"]["k8s.io/initial-events-end"], "true");
  EXPECT_EQ(with.Line(2)["object"]["metadata"]["name"], "rs-2");

  EXPECT_EQ(without.Line(0)["object"]["metadata"]["name"], "rs-1");
  EXPECT_EQ(without.Line(1)["object"]["metadata"]["name"], "rs-2");
  server.Stop();  // ends both cleanly
  EXPECT_EQ(with.Result(), CURLE_OK);
  EXPECT_EQ(without.Result(), CURLE_OK);
  EXPECT_EQ(without.LineCount(), 2u);
}

TEST(FakeApiServer, InjectedWatchErrorEndsTheWatch) {
  FakeApiServer server;
  WatchStream pods(server.url() + "/api/v1/pods?watch=1");
  WatchStream nodes(server.url() + "/api/v1/nodes?watch=1&timeoutSeconds=1");
  ASSERT_TRUE(server.WaitForWatches("pods", 1, kWait));
  ASSERT_TRUE(server.WaitForWatches("nodes", 1, kWait));
  EXPECT_EQ(server.InjectWatchError("pods", 500, "InternalError"), 1);
  const json error = pods.Line(0);
  EXPECT_EQ(error["type"], "ERROR");
  EXPECT_EQ(error["object"]["kind"], "Status");
  EXPECT_EQ(error["object"]["code"], 500);
  EXPECT_EQ(error["object"]["reason"], "InternalError");
  EXPECT_EQ(pods.Result(), CURLE_OK);
  EXPECT_EQ(server.OpenWatches("pods"), 0);
  EXPECT_EQ(nodes.Result(), CURLE_OK);  // untouched, ended by its timeout
  EXPECT_EQ(nodes.LineCount(), 0u);
}

TEST(FakeApiServer, HangUpDropsWatchesWithoutTheTerminatingChunk) {
  FakeApiServer server;
  WatchStream pods(server.url() + "/api/v1/pods?watch=1");
  WatchStream jobs(server.url() + "/apis/batch/v1/jobs?watch=1");
  ASSERT_TRUE(server.WaitForWatches("pods", 1, kWait));
  ASSERT_TRUE(server.WaitForWatches("jobs", 1, kWait));
  server.Upsert("pods", SimplePod("ml", "a"));
  EXPECT_EQ(pods.Line(0)["type"], "ADDED");
  EXPECT_EQ(server.HangUpWatches(), 2);
  EXPECT_EQ(pods.Result(), CURLE_PARTIAL_FILE);
  EXPECT_EQ(jobs.Result(), CURLE_PARTIAL_FILE);
  EXPECT_EQ(server.OpenWatches("pods"), 0);
  // The server still answers.
  EXPECT_EQ(Fetch(server.url() + "/api/v1/pods").status, 200);
}

TEST(FakeApiServer, NoticesAClientThatCloses) {
  FakeApiServer server;
  WatchStream w(server.url() + "/api/v1/namespaces?watch=1");
  ASSERT_TRUE(server.WaitForWatches("namespaces", 1, kWait));
  w.Cancel();
  EXPECT_EQ(w.Result(), CURLE_ABORTED_BY_CALLBACK);
  EXPECT_TRUE(server.WaitForWatches("namespaces", 0, kWait));
}

TEST(FakeApiServer, ServesManyWatchesAndListsAtOnce) {
  FakeApiServer server;
  std::vector<std::unique_ptr<WatchStream>> streams;
  for (const std::string& r : FakeApiServer::Resources()) {
    streams.push_back(std::make_unique<WatchStream>(
        server.url() + FakeApiServer::CollectionPath(r) + "?watch=1&allowWatchBookmarks=true"));
  }
  for (const std::string& r : FakeApiServer::Resources()) {
    ASSERT_TRUE(server.WaitForWatches(r, 1, kWait)) << r;
  }
  for (const std::string& r : FakeApiServer::Resources()) {
    server.Upsert(r, SimplePod("ns", "obj-" + r));
    EXPECT_EQ(Fetch(server.url() + FakeApiServer::CollectionPath(r)).status, 200);
  }
  for (size_t i = 0; i < streams.size(); ++i) {
    EXPECT_EQ(streams[i]->Line(0)["object"]["metadata"]["name"],
              "obj-" + FakeApiServer::Resources()[i]);
  }
  server.Stop();
  for (const auto& s : streams) EXPECT_EQ(s->Result(), CURLE_OK);
}

TEST(FakeApiServer, ChecksBearerTokensAndBasicAuth) {
  FakeApiServer server;
  const std::string url = server.url() + "/api/v1/pods";
  EXPECT_EQ(Fetch(url).status, 200);  // no credentials configured
  server.SetTokens({"good", "also-good"});
  const Reply anonymous = Fetch(url);
  EXPECT_EQ(anonymous.status, 401);
  const json status = json::parse(anonymous.body);
  EXPECT_EQ(status["kind"], "Status");
  EXPECT_EQ(status["reason"], "Unauthorized");
  EXPECT_EQ(status["code"], 401);
  EXPECT_EQ(Fetch(url, {.header = "Authorization: Bearer bad"}).status, 401);
  EXPECT_EQ(Fetch(url, {.header = "Authorization: Bearer also-good"}).status, 200);
  EXPECT_EQ(server.LastAuthorization(), "Bearer also-good");
  // Watches are checked too.
  EXPECT_EQ(Fetch(url + "?watch=1", {.header = "Authorization: Bearer bad"}).status, 401);

  server.SetBasicAuth("admin", "s3cret");
  EXPECT_EQ(Fetch(url, {.header = "Authorization: Basic YWRtaW46czNjcmV0"}).status, 200);
  EXPECT_EQ(Fetch(url, {.header = "Authorization: Basic YWRtaW46bm9wZQ=="}).status, 401);
  const std::vector<RecordedRequest> requests = server.Requests();
  ASSERT_EQ(requests.size(), 7u);
  EXPECT_EQ(requests[2].authorization, "Bearer bad");
  EXPECT_EQ(requests[2].status, 401);
  EXPECT_EQ(requests[4].watch, true);
  EXPECT_EQ(requests[4].resource, "pods");
}

TEST(FakeApiServer, FailNextAnswersWithStatusesThenRecovers) {
  FakeApiServer server;
  const std::string url = server.url() + "/api/v1/pods";
  server.FailNext("/api/v1/pods", 429, 2);
  const Reply throttled = Fetch(url);
  EXPECT_EQ(throttled.status, 429);
  EXPECT_NE(throttled.headers.find("Retry-After: 1"), std::string::npos);
  EXPECT_EQ(json::parse(throttled.body)["reason"], "TooManyRequests");
  EXPECT_EQ(Fetch(url).status, 429);
  EXPECT_EQ(Fetch(url).status, 200);
  EXPECT_EQ(server.ListCount("pods"), 3);

  server.FailNext("/api/v1/pods", 500, 1, Verb::kWatch);
  EXPECT_EQ(Fetch(url).status, 200);  // a list: not affected
  const Reply failed = Fetch(url + "?watch=1");
  EXPECT_EQ(failed.status, 500);
  EXPECT_EQ(json::parse(failed.body)["reason"], "InternalError");
  server.FailNext("/apis/", 503, 1);
  EXPECT_EQ(Fetch(server.url() + "/apis/apps/v1/daemonsets").status, 503);
  EXPECT_EQ(Fetch(server.url() + "/apis/apps/v1/daemonsets").status, 200);
}

TEST(FakeApiServer, UnknownPathsAndMethods) {
  FakeApiServer server;
  const Reply missing = Fetch(server.url() + "/api/v1/namespaces/ml/pods");
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(json::parse(missing.body)["reason"], "NotFound");
  const Reply post = Fetch(server.url() + "/api/v1/pods", {.method = "POST"});
  EXPECT_EQ(post.status, 405);
  EXPECT_EQ(json::parse(post.body)["reason"], "MethodNotAllowed");
  EXPECT_EQ(json::parse(Fetch(server.url() + "/version").body)["major"], "1");
  EXPECT_EQ(Fetch(server.url() + "/api/v1/pods?continue=garbage").status, 400);
  EXPECT_THROW(server.Upsert("deployments", SimplePod("a", "b")), std::invalid_argument);
  EXPECT_THROW(server.Upsert("pods", json{{"metadata", json::object()}}), std::invalid_argument);
}

TEST(FakeApiServer, TlsWithTheGeneratedCa) {
  testing_util::TempDir dir;
  const Result<TestPki> pki = MakeTestPki(dir.path());
  ASSERT_TRUE(pki.ok()) << pki.status().message();
  FakeApiServer server(ApiServerTls{pki->server_cert, pki->server_key, pki->ca_cert, false});
  ASSERT_TRUE(server.url().starts_with("https://127.0.0.1:"));
  const std::string path = "/api/v1/pods";

  const Reply verified = Fetch(server.url() + path, {.ca_file = pki->ca_cert});
  EXPECT_EQ(verified.code, CURLE_OK);
  EXPECT_EQ(verified.status, 200);
  EXPECT_EQ(server.LastClientSubject(), "");
  // The certificate also names localhost.
  const std::string by_name = StrCat("https://localhost:", server.port(), path);
  EXPECT_EQ(Fetch(by_name, {.ca_file = pki->ca_cert,
                            .resolve = StrCat("localhost:", server.port(), ":127.0.0.1")})
                .status,
            200);
  EXPECT_EQ(Fetch(server.url() + path, {.ca_file = pki->other_ca_cert}).code,
            CURLE_PEER_FAILED_VERIFICATION);

  // A client certificate authenticates in place of a token.
  server.SetTokens({"token"});
  EXPECT_EQ(Fetch(server.url() + path, {.ca_file = pki->ca_cert}).status, 401);
  const Reply with_cert =
      Fetch(server.url() + path,
            {.ca_file = pki->ca_cert, .cert_file = pki->client_cert, .key_file = pki->client_key});
  EXPECT_EQ(with_cert.status, 200);
  EXPECT_EQ(server.LastClientSubject(), "/O=system:masters/CN=gpucost-client");

  // Watches over TLS: live events, then a hang-up.
  WatchStream w(server.url() + path + "?watch=1",
                {.ca_file = pki->ca_cert, .header = "Authorization: Bearer token"});
  ASSERT_TRUE(server.WaitForWatches("pods", 1, kWait));
  server.Upsert("pods", SimplePod("ml", "a"));
  EXPECT_EQ(w.Line(0)["type"], "ADDED");
  EXPECT_EQ(server.HangUpWatches(), 1);
  EXPECT_NE(w.Result(), CURLE_OK);
}

TEST(FakeApiServer, TlsCanRequireAClientCertificate) {
  testing_util::TempDir dir;
  const Result<TestPki> pki = MakeTestPki(dir.path());
  ASSERT_TRUE(pki.ok()) << pki.status().message();
  FakeApiServer server(ApiServerTls{pki->server_cert, pki->server_key, pki->ca_cert, true});
  const std::string url = server.url() + "/api/v1/nodes";
  EXPECT_NE(Fetch(url, {.ca_file = pki->ca_cert}).code, CURLE_OK);
  EXPECT_EQ(
      Fetch(url,
            {.ca_file = pki->ca_cert, .cert_file = pki->client_cert, .key_file = pki->client_key})
          .status,
      200);
  EXPECT_GE(server.FailedHandshakes(), 1);
  EXPECT_THROW(
      {
        FakeApiServer bad(ApiServerTls{"/nonexistent.crt", "/nonexistent.key", "", false});
      },
      std::runtime_error);
}

TEST(FakeApiServer, StopsPromptlyWithIdleKeepAliveConnections) {
  auto server = std::make_unique<FakeApiServer>();
  CURL* curl = curl_easy_init();  // keeps its connection open after the transfer
  std::string body{};
  const std::string url = server->url() + "/api/v1/pods";
  Configure(curl, url, {});
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, Append);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &body);
  ASSERT_EQ(curl_easy_perform(curl), CURLE_OK);
  ASSERT_EQ(curl_easy_perform(curl), CURLE_OK);  // reuses the connection
  long connects = -1;
  curl_easy_getinfo(curl, CURLINFO_NUM_CONNECTS, &connects);
  EXPECT_EQ(connects, 0);
  const auto start = std::chrono::steady_clock::now();
  server.reset();
  EXPECT_LT(std::chrono::steady_clock::now() - start, seconds(1));
  curl_easy_cleanup(curl);
}

TEST(FakeApiServer, LoadsTheClusterFixture) {
  FakeApiServer server;
  LoadClusterFixture(server);
  const json cluster = ClusterFixture();
  for (const std::string& r : FakeApiServer::Resources()) {
    const json list = json::parse(Fetch(server.url() + FakeApiServer::CollectionPath(r)).body);
    EXPECT_EQ(list["items"].size(), cluster.contains(r) ? cluster[r].size() : 0u) << r;
  }
}

// The data file hangs together: owners, nodes and namespaces that exist are referenced by their
// real uid and name.
TEST(FakeApiServerFixtures, ClusterIsConsistent) {
  const json cluster = ClusterFixture();
  const std::map<std::string, std::string> resource_of = {{"ReplicaSet", "replicasets"},
                                                          {"StatefulSet", "statefulsets"},
                                                          {"DaemonSet", "daemonsets"},
                                                          {"Job", "jobs"},
                                                          {"CronJob", "cronjobs"}};
  const auto find = [&](const std::string& resource, const std::string& ns,
                        const std::string& name) -> const json* {
    for (const json& o : cluster[resource]) {
      if (o["metadata"]["name"] == name && o["metadata"].value("namespace", "") == ns) return &o;
    }
    return nullptr;
  };
  int dangling = 0;
  for (const auto& [resource, objects] : cluster.items()) {
    for (const json& o : objects) {
      const std::string ns = o["metadata"].value("namespace", "");
      EXPECT_EQ(o["metadata"]["uid"],
                UidFor(o["kind"].get<std::string>(), ns, o["metadata"]["name"].get<std::string>()));
      if (!ns.empty()) {
        EXPECT_NE(find("namespaces", "", ns), nullptr) << ns;
      }
      for (const json& ref : o["metadata"].value("ownerReferences", json::array())) {
        const auto r = resource_of.find(ref["kind"]);
        if (r == resource_of.end()) continue;  // Deployments are not listed
        const json* owner = find(r->second, ns, ref["name"]);
        if (owner == nullptr) {
          ++dangling;
          continue;
        }
        EXPECT_EQ(ref["uid"], (*owner)["metadata"]["uid"]) << ref.dump();
      }
    }
  }
  EXPECT_EQ(dangling, 1);  // the Job of the deleted CronJob report-gen
  for (const json& pod : cluster["pods"]) {
    const std::string node = pod["spec"].value("nodeName", "");
    if (node.empty()) {
      EXPECT_EQ(pod["status"]["phase"], "Pending");
    } else {
      EXPECT_NE(find("nodes", "", node), nullptr) << node;
    }
  }
}

TEST(FakeApiServerFixtures, BuildersDefaultLikeTheApiServer) {
  const json pod = Pod({.ns = "ml",
                        .name = "p",
                        .node = "n",
                        .owners = {Owner("ReplicaSet", "rs-1")},
                        .containers = {Container{.limits = {{"nvidia.com/gpu", "1"}}}}});
  EXPECT_EQ(pod["spec"]["containers"][0]["resources"]["requests"]["nvidia.com/gpu"], "1");
  EXPECT_EQ(pod["metadata"]["ownerReferences"][0]["uid"], UidFor("ReplicaSet", "ml", "rs-1"));
  EXPECT_EQ(pod["metadata"]["ownerReferences"][0]["apiVersion"], "apps/v1");
  EXPECT_EQ(pod["metadata"]["generateName"], "rs-1-");
  EXPECT_EQ(pod["status"]["qosClass"], "BestEffort");
  EXPECT_TRUE(pod["status"]["containerStatuses"][0]["containerID"].get<std::string>().starts_with(
      "containerd://"));
  const std::string uid = UidFor("Pod", "ml", "p");
  EXPECT_EQ(uid.size(), 36u);
  EXPECT_EQ(uid[14], '5');
  EXPECT_EQ(Namespace({.name = "x"})["metadata"]["labels"]["kubernetes.io/metadata.name"], "x");
  EXPECT_EQ(Node({.name = "n"})["status"]["allocatable"]["pods"], "110");
}

}  // namespace
}  // namespace gpucost::k8s::testing
