#include "k8s/kube_config.h"

#include <fcntl.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>

#include "core/files.h"
#include "core/redact.h"
#include "core/strings.h"
#include "core/yaml_keys.h"

namespace gpucost::k8s {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kInCluster = "in-cluster";

bool FileExists(const std::string& path) {
  std::error_code ec;
  return fs::exists(path, ec);
}

// Standard base64 (RFC 4648 §4); line breaks and spaces are skipped, padding is optional.
std::optional<std::string> DecodeBase64(std::string_view text) {
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  bool padded = false;
  for (const char c : text) {
    int v;
    if (c >= 'A' && c <= 'Z') {
      v = c - 'A';
    } else if (c >= 'a' && c <= 'z') {
      v = c - 'a' + 26;
    } else if (c >= '0' && c <= '9') {
      v = c - '0' + 52;
    } else if (c == '+') {
      v = 62;
    } else if (c == '/') {
      v = 63;
    } else if (c == '=') {
      padded = true;
      continue;
    } else if (c == '\n' || c == '\r' || c == ' ' || c == '\t') {
      continue;
    } else {
      return std::nullopt;
    }
    if (padded) return std::nullopt;  // data after padding
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xFF));
    }
  }
  if (bits >= 6) return std::nullopt;  // a lone trailing character carries no whole byte
  return out;
}

// yaml-cpp: a missing key yields a node on which only IsDefined() may be asked.
bool IsScalar(const YAML::Node& n) { return n.IsDefined() && n.IsScalar(); }

bool LooksLikePem(std::string_view text) {
  return text.find("-----BEGIN ") != std::string_view::npos;
}

// One named entry of a kubeconfig list (contexts, clusters, users) and where it came from.
struct Entry {
  YAML::Node body;    // the entry's "context" / "cluster" / "user" mapping
  std::string file;   // the kubeconfig it came from, for messages
  fs::path dir;       // that file's directory, for relative paths
  std::string field;  // "users[aws].user", for messages
};

struct Merged {
  std::map<std::string, Entry> contexts, clusters, users;
  std::string current_context;
};

std::string Names(const std::map<std::string, Entry>& entries) {
  std::vector<std::string> names;
  for (const auto& [name, entry] : entries) names.push_back(name);
  return names.empty() ? std::string("none") : Join(names, ", ");
}

// Typed reads of one entry's fields, with errors of the form "FILE: FIELD.KEY: problem".
class EntryReader {
 public:
  explicit EntryReader(const Entry& entry) : entry_(entry) {}

  std::string Where(std::string_view key) const {
    return StrCat(entry_.file, ": ", entry_.field, ".", key);
  }
  Status Error(std::string_view key, std::string_view problem) const {
    return Status::InvalidArgument(StrCat(Where(key), ": ", problem));
  }
  bool Has(const char* key) const {
    const YAML::Node n = entry_.body[key];
    return n.IsDefined() && !n.IsNull();
  }

  // "" when absent.
  Result<std::string> String(const char* key) const {
    const YAML::Node n = entry_.body[key];
    if (!n.IsDefined() || n.IsNull()) return std::string();
    if (!n.IsScalar()) return Error(key, "expected a string");
    return n.Scalar();
  }

  // false when absent.
  Result<bool> Bool(const char* key) const {
    const YAML::Node n = entry_.body[key];
    if (!n.IsDefined() || n.IsNull()) return false;
    bool value = false;
    if (!n.IsScalar() || !YAML::convert<bool>::decode(n, value)) {
      return Error(key, "expected true or false");
    }
    return value;
  }

  // A path relative to the kubeconfig's directory made usable from here.
  std::string Resolve(const std::string& path) const {
    if (path.empty() || fs::path(path).is_absolute() || entry_.dir.empty()) return path;
    return (entry_.dir / path).string();
  }

  // PEM text from `data_key` (base64) or else from the file `file_key` names; "" when neither.
  Result<std::string> Pem(const char* file_key, const char* data_key) const {
    GPUCOST_ASSIGN_OR_RETURN(std::string data, String(data_key));
    if (!data.empty()) {
      std::optional<std::string> decoded = DecodeBase64(data);
      if (!decoded) return Error(data_key, "not valid base64");
      if (!LooksLikePem(*decoded))
        return Error(data_key, "the decoded data is not PEM (no -----BEGIN line)");
      return std::move(*decoded);
    }
    GPUCOST_ASSIGN_OR_RETURN(std::string path, String(file_key));
    if (path.empty()) return std::string();
    path = Resolve(path);
    Result<std::string> text = ReadWholeFile(path);
    if (!text.ok()) return Error(file_key, text.status().message());
    if (!LooksLikePem(*text))
      return Error(file_key, StrCat(path, " is not PEM (no -----BEGIN line)"));
    return std::move(*text);
  }

  const YAML::Node& body() const { return entry_.body; }

 private:
  const Entry& entry_;
};

Status MergeList(const YAML::Node& root, const char* list_key, const char* body_key,
                 const std::string& file, std::map<std::string, Entry>& into) {
  const YAML::Node list = root[list_key];
  if (!list.IsDefined() || list.IsNull()) return Status::Ok();
  if (!list.IsSequence())
    return Status::InvalidArgument(StrCat(file, ": ", list_key, ": expected a list"));
  for (size_t i = 0; i < list.size(); ++i) {
    const YAML::Node item = list[i];
    const std::string where = StrCat(file, ": ", list_key, "[", i, "]");
    if (!item.IsMap()) return Status::InvalidArgument(StrCat(where, ": expected a mapping"));
    const YAML::Node name = item["name"];
    if (!IsScalar(name) || name.Scalar().empty()) {
      return Status::InvalidArgument(StrCat(where, ": missing name"));
    }
    YAML::Node body = item[body_key];
    const std::string field = StrCat(list_key, "[", name.Scalar(), "].", body_key);
    if (!body.IsDefined() || body.IsNull()) {
      body = YAML::Node(YAML::NodeType::Map);
    } else if (!body.IsMap()) {
      return Status::InvalidArgument(StrCat(file, ": ", field, ": expected a mapping"));
    }
    // kubectl: the first file that names an entry wins.
    into.try_emplace(name.Scalar(), Entry{body, file, fs::path(file).parent_path(), field});
  }
  return Status::Ok();
}

Status MergeFile(const std::string& file, Merged& merged) {
  GPUCOST_ASSIGN_OR_RETURN(std::string text, ReadWholeFile(file));
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return Status::ParseError(
        StrCat(file, ":", e.mark.line + 1, ":", e.mark.column + 1, ": malformed YAML: ", e.msg));
  }
  if (!root.IsDefined() || root.IsNull()) return Status::Ok();  // an empty file adds nothing
  GPUCOST_RETURN_IF_ERROR(CheckUniqueYamlKeys(root, file));
  if (!root.IsMap()) return Status::ParseError(StrCat(file, ": expected a kubeconfig mapping"));
  GPUCOST_RETURN_IF_ERROR(MergeList(root, "contexts", "context", file, merged.contexts));
  GPUCOST_RETURN_IF_ERROR(MergeList(root, "clusters", "cluster", file, merged.clusters));
  GPUCOST_RETURN_IF_ERROR(MergeList(root, "users", "user", file, merged.users));
  const YAML::Node current = root["current-context"];
  if (IsScalar(current) && merged.current_context.empty()) {
    merged.current_context = current.Scalar();
  }
  return Status::Ok();
}

Status ReadCluster(const Entry& entry, KubeConnection& c) {
  const EntryReader r(entry);
  GPUCOST_ASSIGN_OR_RETURN(std::string server, r.String("server"));
  if (server.empty()) return r.Error("server", "not set");
  if (server.find("://") == std::string::npos) server = StrCat("https://", server);  // as kubectl
  if (!server.starts_with("https://") && !server.starts_with("http://")) {
    return r.Error("server", StrCat("\"", RedactUri(server), "\" is not an http or https URL"));
  }
  while (server.ends_with('/')) server.pop_back();
  c.server = std::move(server);
  GPUCOST_ASSIGN_OR_RETURN(c.ca_pem, r.Pem("certificate-authority", "certificate-authority-data"));
  GPUCOST_ASSIGN_OR_RETURN(c.insecure_skip_tls_verify, r.Bool("insecure-skip-tls-verify"));
  if (c.insecure_skip_tls_verify && !c.ca_pem.empty()) {
    return r.Error("insecure-skip-tls-verify",
                   "cannot be combined with a certificate authority (kubectl refuses it too)");
  }
  GPUCOST_ASSIGN_OR_RETURN(c.tls_server_name, r.String("tls-server-name"));
  GPUCOST_ASSIGN_OR_RETURN(c.proxy_url, r.String("proxy-url"));
  return Status::Ok();
}

// The legacy in-tree auth providers were removed from client-go; each has an exec replacement.
std::string ExecReplacement(std::string_view provider) {
  if (provider == "gcp") return "gke-gcloud-auth-plugin";
  if (provider == "azure") return "kubelogin (Azure/kubelogin)";
  if (provider == "oidc") return "kubelogin (int128/kubelogin, `kubectl oidc-login`)";
  return "the provider's client-go credential plugin";
}

Result<ExecPlugin> ReadExec(const Entry& user) {
  const YAML::Node node = user.body["exec"];
  if (!node.IsMap()) {
    return Status::InvalidArgument(
        StrCat(user.file, ": ", user.field, ".exec: expected a mapping"));
  }
  const Entry exec_entry{node, user.file, user.dir, StrCat(user.field, ".exec")};
  const EntryReader r(exec_entry);
  ExecPlugin p;
  GPUCOST_ASSIGN_OR_RETURN(p.api_version, r.String("apiVersion"));
  if (p.api_version != kExecApiV1 && p.api_version != kExecApiV1beta1) {
    return r.Error("apiVersion", StrCat("\"", p.api_version, "\" is not supported; use ",
                                        kExecApiV1, " or ", kExecApiV1beta1));
  }
  GPUCOST_ASSIGN_OR_RETURN(p.command, r.String("command"));
  if (p.command.empty()) return r.Error("command", "not set");
  if (p.command.find('/') != std::string::npos) p.command = r.Resolve(p.command);
  const YAML::Node args = node["args"];
  if (args.IsDefined() && !args.IsNull()) {
    if (!args.IsSequence()) return r.Error("args", "expected a list of strings");
    for (size_t i = 0; i < args.size(); ++i) {
      if (!args[i].IsScalar()) return r.Error(StrCat("args[", i, "]"), "expected a string");
      p.args.push_back(args[i].Scalar());
    }
  }
  const YAML::Node env = node["env"];
  if (env.IsDefined() && !env.IsNull()) {
    if (!env.IsSequence()) return r.Error("env", "expected a list of {name, value}");
    for (size_t i = 0; i < env.size(); ++i) {
      const YAML::Node item = env[i];
      if (!item.IsMap() || !IsScalar(item["name"]) || item["name"].Scalar().empty()) {
        return r.Error(StrCat("env[", i, "]"), "expected {name, value} with a name");
      }
      const YAML::Node name = item["name"];
      const YAML::Node value = item["value"];
      if (value.IsDefined() && !value.IsNull() && !value.IsScalar()) {
        return r.Error(StrCat("env[", i, "].value"), "expected a string");
      }
      p.env.emplace_back(name.Scalar(), IsScalar(value) ? value.Scalar() : std::string());
    }
  }
  GPUCOST_ASSIGN_OR_RETURN(p.provide_cluster_info, r.Bool("provideClusterInfo"));
  GPUCOST_ASSIGN_OR_RETURN(p.install_hint, r.String("installHint"));
  GPUCOST_ASSIGN_OR_RETURN(std::string interactive, r.String("interactiveMode"));
  if (interactive == "Always") {
    return r.Error("interactiveMode",
                   "\"Always\" needs a terminal; gpucost runs plugins without one");
  }
  return p;
}

Status ReadUser(const Entry& entry, KubeConnection& c) {
  const EntryReader r(entry);
  if (r.Has("auth-provider")) {
    const YAML::Node provider_node = entry.body["auth-provider"];
    const std::string provider = provider_node.IsMap() && IsScalar(provider_node["name"])
                                     ? provider_node["name"].Scalar()
                                     : std::string("?");
    return r.Error("auth-provider",
                   StrCat("the legacy \"", provider,
                          "\" auth provider is not supported (client-go removed it); configure an "
                          "exec credential plugin instead: ",
                          ExecReplacement(provider)));
  }
  for (const char* key : {"as", "as-uid", "as-groups", "as-user-extra"}) {
    if (r.Has(key))
      return Status::Unimplemented(StrCat(r.Where(key), ": impersonation is not supported"));
  }
  GPUCOST_ASSIGN_OR_RETURN(c.client_cert_pem,
                           r.Pem("client-certificate", "client-certificate-data"));
  GPUCOST_ASSIGN_OR_RETURN(c.client_key_pem, r.Pem("client-key", "client-key-data"));
  if (c.client_cert_pem.empty() != c.client_key_pem.empty()) {
    return r.Error(c.client_cert_pem.empty() ? "client-certificate" : "client-key",
                   "a client certificate needs both the certificate and its key");
  }
  GPUCOST_ASSIGN_OR_RETURN(c.token, r.String("token"));
  GPUCOST_ASSIGN_OR_RETURN(std::string token_file, r.String("tokenFile"));
  c.token_file = r.Resolve(token_file);
  GPUCOST_ASSIGN_OR_RETURN(c.username, r.String("username"));
  GPUCOST_ASSIGN_OR_RETURN(c.password, r.String("password"));
  const bool token = !c.token.empty() || !c.token_file.empty();
  const bool basic = !c.username.empty() || !c.password.empty();
  if (token && basic) {
    return r.Error("username",
                   "more than one authentication method (a token and username/password)");
  }
  if (r.Has("exec")) {
    GPUCOST_ASSIGN_OR_RETURN(ExecPlugin exec, ReadExec(entry));
    c.exec = std::move(exec);
  }
  return Status::Ok();
}

std::string LookupEnv(const ConnectionOptions& options, std::string_view name) {
  if (options.getenv) return options.getenv(name).value_or("");
  const char* v = std::getenv(std::string(name).c_str());
  return v == nullptr ? std::string() : std::string(v);
}

std::vector<std::string> SplitPathList(std::string_view list) {
  std::vector<std::string> out;
  for (std::string_view p : Split(list, ':')) {
    p = Trim(p);
    if (p.empty()) continue;
    bool seen = false;
    for (const std::string& q : out) seen = seen || q == p;
    if (!seen) out.emplace_back(p);
  }
  return out;
}

Result<KubeConnection> Load(const std::vector<std::string>& paths, std::string_view context) {
  Merged merged;
  for (const std::string& path : paths) GPUCOST_RETURN_IF_ERROR(MergeFile(path, merged));
  const std::string files = Join(paths, ", ");

  std::string name(context);
  if (name.empty()) {
    if (merged.current_context.empty()) {
      return Status::InvalidArgument(StrCat(
          files, ": no current-context is set; name a context (available: ", Names(merged.contexts),
          ")"));
    }
    name = merged.current_context;
  }
  const auto ctx = merged.contexts.find(name);
  if (ctx == merged.contexts.end()) {
    return Status::NotFound(StrCat(files, ": context \"", name,
                                   "\" not found (available: ", Names(merged.contexts), ")"));
  }
  const EntryReader cr(ctx->second);
  KubeConnection c;
  c.context = name;
  GPUCOST_ASSIGN_OR_RETURN(c.cluster, cr.String("cluster"));
  GPUCOST_ASSIGN_OR_RETURN(c.user, cr.String("user"));
  GPUCOST_ASSIGN_OR_RETURN(c.namespace_name, cr.String("namespace"));
  if (c.cluster.empty()) return cr.Error("cluster", "not set");
  const auto cluster = merged.clusters.find(c.cluster);
  if (cluster == merged.clusters.end()) {
    return Status::NotFound(StrCat(cr.Where("cluster"), ": cluster \"", c.cluster,
                                   "\" not found (available: ", Names(merged.clusters), ")"));
  }
  GPUCOST_RETURN_IF_ERROR(ReadCluster(cluster->second, c));
  if (!c.user.empty()) {  // no user: anonymous, as kubectl allows
    const auto user = merged.users.find(c.user);
    if (user == merged.users.end()) {
      return Status::NotFound(StrCat(cr.Where("user"), ": user \"", c.user,
                                     "\" not found (available: ", Names(merged.users), ")"));
    }
    GPUCOST_RETURN_IF_ERROR(ReadUser(user->second, c));
  }
  return c;
}

}  // namespace

Result<KubeConnection> LoadKubeconfig(const std::vector<std::string>& paths,
                                      std::string_view context) {
  if (paths.empty()) return Status::InvalidArgument("no kubeconfig file given");
  try {
    return Load(paths, context);
  } catch (const YAML::Exception& e) {  // a shape the checks above did not foresee
    return Status::ParseError(StrCat(Join(paths, ", "), ": ", e.what()));
  }
}

Result<KubeConnection> InClusterConnection(const ConnectionOptions& options) {
  const std::string host = LookupEnv(options, "KUBERNETES_SERVICE_HOST");
  const std::string port = LookupEnv(options, "KUBERNETES_SERVICE_PORT");
  if (host.empty() || port.empty()) {
    return Status::FailedPrecondition(
        "not running in a pod: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not both "
        "set");
  }
  const fs::path dir(options.service_account_dir);
  KubeConnection c;
  c.context = c.cluster = c.user = std::string(kInCluster);
  const bool ipv6 = host.find(':') != std::string::npos && !host.starts_with('[');
  c.server = StrCat("https://", ipv6 ? "[" : "", host, ipv6 ? "]" : "", ":", port);
  c.token_file = (dir / "token").string();
  if (::access(c.token_file.c_str(), R_OK) != 0) {
    return Status::FailedPrecondition(StrCat("in-cluster: cannot read the service account token ",
                                             c.token_file, ": ", std::strerror(errno)));
  }
  const std::string ca_path = (dir / "ca.crt").string();
  if (FileExists(ca_path)) {
    GPUCOST_ASSIGN_OR_RETURN(c.ca_pem, ReadWholeFile(ca_path));
    if (!LooksLikePem(c.ca_pem)) {
      return Status::InvalidArgument(
          StrCat("in-cluster: ", ca_path, " is not PEM (no -----BEGIN line)"));
    }
  }
  c.namespace_name = LookupEnv(options, "POD_NAMESPACE");
  if (c.namespace_name.empty()) {
    const std::string ns_path = (dir / "namespace").string();
    if (FileExists(ns_path)) {
      GPUCOST_ASSIGN_OR_RETURN(std::string ns, ReadWholeFile(ns_path));
      c.namespace_name = std::string(Trim(ns));
    }
  }
  return c;
}

Result<KubeConnection> ResolveConnection(const ConnectionOptions& options) {
  if (options.in_cluster) return InClusterConnection(options);
  if (!options.kubeconfig.empty()) {
    return LoadKubeconfig(SplitPathList(options.kubeconfig), options.context);
  }
  std::vector<std::string> tried;
  const std::string env_list = LookupEnv(options, "KUBECONFIG");
  if (!env_list.empty()) {
    std::vector<std::string> existing;
    for (std::string& p : SplitPathList(env_list)) {
      if (FileExists(p)) existing.push_back(std::move(p));
    }
    if (!existing.empty()) return LoadKubeconfig(existing, options.context);
    tried.push_back(StrCat("$KUBECONFIG (none of its files exist: ", env_list, ")"));
  } else {
    tried.emplace_back("$KUBECONFIG (not set)");
  }
  if (options.context.empty()) {
    Result<KubeConnection> in_cluster = InClusterConnection(options);
    if (in_cluster.ok()) return in_cluster;
    tried.push_back(StrCat("in-cluster (", in_cluster.status().message(), ")"));
  } else {
    tried.push_back(
        StrCat("in-cluster (skipped: context \"", options.context, "\" names a kubeconfig entry)"));
  }
  const std::string home = options.home.empty() ? LookupEnv(options, "HOME") : options.home;
  if (home.empty()) {
    tried.emplace_back("~/.kube/config ($HOME not set)");
  } else {
    const std::string path = (fs::path(home) / ".kube" / "config").string();
    if (FileExists(path)) return LoadKubeconfig({path}, options.context);
    tried.push_back(StrCat(path, " (not found)"));
  }
  return Status::NotFound(StrCat("no Kubernetes API server configured; tried ", Join(tried, "; ")));
}

}  // namespace gpucost::k8s
