// FakeApiServer: a Kubernetes API server on 127.0.0.1 (port 0, plain HTTP or TLS) that speaks the
// real wire protocol to our libcurl client: paged LISTs served from a consistent snapshot, WATCH
// streams (history replay, live events, bookmarks, 410 Expired after compaction), bearer / basic /
// client-certificate authentication and Status error bodies, plus controls to break things on
// purpose. The store keeps every version of every object, numbered by one global resourceVersion
// counter like etcd. One thread per connection; every public method is thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace gpucost::k8s::testing {

struct ApiServerTls {
  std::string cert_file{};  // server certificate chain, PEM
  std::string key_file{};
  std::string client_ca_file{};      // when set, client certificates signed by it authenticate
  bool require_client_cert = false;  // refuse the handshake without a valid one
};

// The request kinds FailNext() and WaitForRequests() tell apart.
enum class Verb { kAny, kList, kWatch };

struct RecordedRequest {
  std::string method{};
  std::string path{};
  std::string query{};     // as received, without '?', still percent-encoded
  std::string resource{};  // "pods", "nodes", ...; "" for other paths
  bool watch = false;
  std::string authorization{};   // the Authorization header; "" when absent
  std::string client_subject{};  // verified client certificate's subject ("/CN=..."); "" if none
  int status = 0;                // the HTTP status answered
};

// Requests served: GET <collection path> is a LIST (limit, continue) or, with watch=1|true, a
// WATCH (resourceVersion: the events after it, or with "" or "0" the current objects as ADDED
// first; allowWatchBookmarks; timeoutSeconds); GET /version. Other paths answer 404 and other
// methods on a collection 405, each with a Status body.
class FakeApiServer {
 public:
  // The resources served, by plural name: pods, nodes, namespaces, replicasets, statefulsets,
  // daemonsets, jobs, cronjobs, endpointslices, endpoints. A LIST may give an equality-based
  // labelSelector; one of endpointslices or endpoints may also name a namespace
  // (/api/v1/namespaces/NS/endpoints), as endpoints discovery (src/scrape) asks.
  static const std::vector<std::string>& Resources();
  // The collection path of a resource ("/api/v1/pods", "/apis/batch/v1/jobs"); "" if unknown.
  static std::string CollectionPath(std::string_view resource);

  // Starts listening. Throws std::runtime_error when the socket or the TLS files cannot be set up
  // (a broken test environment, not a case to test).
  explicit FakeApiServer(std::optional<ApiServerTls> tls = std::nullopt);
  ~FakeApiServer();  // Stop()
  FakeApiServer(const FakeApiServer&) = delete;
  FakeApiServer& operator=(const FakeApiServer&) = delete;

  // Ends open watches cleanly, closes every connection and joins every thread. Idempotent.
  void Stop();

  int port() const;
  std::string url() const;  // "http://127.0.0.1:PORT" or "https://..."

  // --- The store. Objects are keyed by metadata.namespace/metadata.name (namespace ignored for
  // nodes and namespaces, "default" when missing for the others). Each change takes the next
  // resourceVersion, is recorded in the resource's history and goes to the open watches.
  // Throws std::invalid_argument for an unknown resource or an object without metadata.name.

  // Adds (ADDED) or replaces (MODIFIED) an object; sets kind, apiVersion, resourceVersion and,
  // when missing, uid and creationTimestamp. Returns the new resourceVersion.
  int64_t Upsert(std::string_view resource, nlohmann::json object);
  // Removes an object (DELETED, carrying its last state at the new resourceVersion). Returns the
  // new resourceVersion, or 0 when there was no such object.
  int64_t Delete(std::string_view resource, std::string_view ns, std::string_view name);
  std::optional<nlohmann::json> Get(std::string_view resource, std::string_view ns,
                                    std::string_view name) const;
  int64_t resource_version() const;  // the latest one handed out

  // --- Controls.

  // Like an etcd compaction: every resourceVersion and continue token handed out before the call
  // is too old now (WATCH answers an ERROR 410 event, a continued LIST answers HTTP 410); a LIST
  // made afterwards and a WATCH from its resourceVersion work.
  void Compact();
  // Drops every open watch connection without the terminating chunk, like a load balancer would.
  // Returns how many were dropped, once their connections are closed.
  int HangUpWatches();
  // Sends an ERROR event (a Status with this code and reason) on each open watch of the resource,
  // then ends it. Returns how many got it, once they have ended.
  int InjectWatchError(std::string_view resource, int status_code, std::string_view reason);
  // Sends a BOOKMARK at the resourceVersion of the moment on each open watch of the resource that
  // asked for bookmarks (allowWatchBookmarks=true), after the earlier events it has not yet sent.
  void SendBookmark(std::string_view resource);
  // Answers the next `n` requests whose path starts with `path_prefix` (and, unless kAny, of that
  // kind) with `http_status` and a Status body; 429 and 503 come with "Retry-After: 1".
  // Checked after authentication, so FailNext(..., 401, ...) plays an expired credential.
  void FailNext(std::string path_prefix, int http_status, int n, Verb verb = Verb::kAny);
  // Drops the failures FailNext() asked for that have not been answered yet.
  void ClearFailures();
  // Accepted bearer tokens. Authentication is required while tokens or basic credentials are set:
  // a request without a valid bearer token, basic credentials or client certificate gets 401.
  void SetTokens(std::set<std::string> tokens);
  void SetBasicAuth(std::string user, std::string password);  // empty user: none

  // --- What was asked.

  int ListCount(std::string_view resource) const;   // LIST requests received, answered or not
  int WatchCount(std::string_view resource) const;  // WATCH requests received
  std::vector<std::string> Queries(std::string_view resource) const;  // raw, in order
  std::string LastAuthorization() const;  // of the latest request; "" when it had none
  std::string LastClientSubject() const;  // of the latest request on a TLS connection
  std::vector<RecordedRequest> Requests() const;
  int FailedHandshakes() const;
  int OpenWatches(std::string_view resource) const;

  // Wait (without polling) until exactly `n` watches of the resource are open (0: the client has
  // closed them, which the server notices within 50 ms) / at least `n` requests of that kind were
  // received; false on timeout.
  bool WaitForWatches(std::string_view resource, int n, std::chrono::milliseconds timeout) const;
  bool WaitForRequests(std::string_view resource, Verb verb, int n,
                       std::chrono::milliseconds timeout) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Files for a TLS test: a CA, a server certificate for IP:127.0.0.1 and DNS:localhost, a client
// certificate (CN gpucost-client, O system:masters) signed by the CA, and a second, unrelated CA
// that signed nothing here. P-256 keys, valid for two days, made with the openssl command line.
struct TestPki {
  std::filesystem::path ca_cert{};
  std::filesystem::path server_cert{};
  std::filesystem::path server_key{};
  std::filesystem::path client_cert{};
  std::filesystem::path client_key{};
  std::filesystem::path other_ca_cert{};
};
Result<TestPki> MakeTestPki(const std::filesystem::path& dir);

}  // namespace gpucost::k8s::testing
