// Where the Kubernetes API server is and how to authenticate to it: kubeconfig files (kubectl's
// merge rules), the in-cluster service account, and the order in which they are tried. Files
// named in a kubeconfig (CA, client certificate and key) are read here; a token file is only
// named, so that it can be re-read when it rotates (see CredentialSource). Stateless functions;
// thread-safe as long as an injected getenv is.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/result.h"

namespace gpucost::k8s {

inline constexpr std::string_view kExecApiV1 = "client.authentication.k8s.io/v1";
inline constexpr std::string_view kExecApiV1beta1 = "client.authentication.k8s.io/v1beta1";

// users[].user.exec of a kubeconfig: a credential plugin (aws eks get-token,
// gke-gcloud-auth-plugin, kubelogin, ...) run to obtain a token or a client certificate.
struct ExecPlugin {
  std::string api_version;  // kExecApiV1 or kExecApiV1beta1
  std::string command;      // a name looked up in PATH, or a path (relative ones resolved)
  std::vector<std::string> args;
  std::vector<std::pair<std::string, std::string>> env;  // added to the plugin's environment
  bool provide_cluster_info = false;                     // pass the cluster in KUBERNETES_EXEC_INFO
  std::string install_hint;                              // shown when the command cannot be found
};

struct KubeConnection {
  std::string server;  // "https://10.0.0.1:6443", no trailing slash
  std::string ca_pem;  // cluster CA as PEM text; empty: the system's CAs
  bool insecure_skip_tls_verify = false;
  std::string tls_server_name;  // name checked in the server's certificate; "" : the host
  std::string client_cert_pem, client_key_pem;  // static mutual TLS
  std::string token;               // static bearer token; wins over token_file when both are set
  std::string token_file;          // bearer token read from this file, re-read on rotation
  std::string username, password;  // basic auth
  std::optional<ExecPlugin> exec;
  std::string context, cluster, user;  // names, for messages ("in-cluster" for the SA)
  std::string namespace_name;          // the context's namespace, "" when unset
  std::string proxy_url;               // clusters[].cluster.proxy-url, "" when unset
};

struct ConnectionOptions {
  // Explicit path(s), colon-separated, each of which must exist. "" : $KUBECONFIG (files that
  // do not exist are skipped, as kubectl does), then the in-cluster service account, then
  // ~/.kube/config.
  std::string kubeconfig;
  std::string context;      // "" : the kubeconfig's current-context
  bool in_cluster = false;  // force the service account, ignoring kubeconfig files
  std::string service_account_dir = "/var/run/secrets/kubernetes.io/serviceaccount";
  std::function<std::optional<std::string>(std::string_view)> getenv;  // null: ::getenv
  std::string home;                                                    // "" : $HOME
};

// Loads and merges kubeconfig files as kubectl does: the first file that sets a map key (a
// context, cluster or user name) wins, and current-context comes from the first file that sets
// it. Relative paths in a file (certificate-authority, client-certificate, client-key,
// tokenFile, an exec command containing a slash) resolve against that file's directory.
// `context` "" selects current-context. Errors name the file and the field.
Result<KubeConnection> LoadKubeconfig(const std::vector<std::string>& paths,
                                      std::string_view context);

// The pod's service account: KUBERNETES_SERVICE_HOST / KUBERNETES_SERVICE_PORT (an IPv6 host is
// bracketed), <dir>/token (checked, not read: token_file is set so it is re-read), <dir>/ca.crt
// (system CAs when absent, as client-go does) and the namespace ($POD_NAMESPACE, else
// <dir>/namespace).
Result<KubeConnection> InClusterConnection(const ConnectionOptions& options);

// Tries the sources in the order ConnectionOptions describes. A non-empty `context` skips the
// in-cluster step (it names a kubeconfig entry). When nothing is found the error says which
// sources were tried and why each was passed over.
Result<KubeConnection> ResolveConnection(const ConnectionOptions& options);

}  // namespace gpucost::k8s
