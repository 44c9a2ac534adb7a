// The credentials a request to the API server carries, kept fresh: a static token, client
// certificate or basic auth from the connection; a token file re-read as it rotates; an exec
// credential plugin (ExecCredential protocol) run again when its credential expires. Owns its
// copy of the connection and the cached credentials. Thread-safe: concurrent Get() calls run a
// plugin once. Token values never appear in errors or logs.
#pragma once

#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "core/subprocess.h"
#include "core/time.h"
#include "k8s/kube_config.h"

namespace gpucost::k8s {

struct Credentials {
  std::string bearer_token;                     // "" : none
  std::string client_cert_pem, client_key_pem;  // from the connection or an exec plugin
  std::string username, password;               // basic auth
};

// Runs argv with env_overrides ("NAME=value") added to the environment. Tests inject one.
using CommandRunner = std::function<Result<CommandOutput>(
    const std::vector<std::string>& argv, const std::vector<std::string>& env_overrides)>;

class CredentialSource {
 public:
  // A plugin that has not finished after this long is killed (the default runner only).
  static constexpr Duration kExecTimeout = std::chrono::minutes(2);
  // A plugin's credential is renewed this long before its expirationTimestamp.
  static constexpr Duration kExpiryMargin = std::chrono::seconds(10);

  // `runner` null: core RunCommand with kExecTimeout and no stdin. `clock` must outlive this.
  CredentialSource(KubeConnection connection, const Clock& clock, CommandRunner runner = nullptr,
                   Duration token_file_refresh = std::chrono::seconds(60));

  // The current credentials. The token file is re-read when the cached copy is older than
  // token_file_refresh; the plugin is run when it has no unexpired credential. A static token
  // wins over a token file; a plugin's token and certificate win over the connection's.
  Result<Credentials> Get();

  // Drops cached token-file and plugin credentials, so the next Get() fetches them again. Call
  // it after the server answers 401.
  void Invalidate();

 private:
  struct FileToken {
    std::string token;
    Instant read_at;
  };
  struct ExecResult {
    std::string token;
    std::string client_cert_pem, client_key_pem;
    std::optional<Instant> expires_at;
  };

  Result<std::string> FileTokenLocked();
  Result<ExecResult> RunPlugin() const;
  Result<ExecResult> ParseExecCredential(const std::string& output) const;
  std::string ExecInfo() const;  // KUBERNETES_EXEC_INFO
  std::string PluginName() const;

  const KubeConnection connection_;
  const Clock& clock_;
  const CommandRunner runner_;
  const Duration token_file_refresh_;

  std::mutex mu_;
  std::optional<FileToken> file_token_;  // guarded by mu_
  std::optional<ExecResult> exec_;       // guarded by mu_
};

}  // namespace gpucost::k8s
