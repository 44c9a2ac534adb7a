#include "k8s/credentials.h"

#include <fcntl.h>
#include <openssl/evp.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>

#include "core/files.h"
#include "core/strings.h"

namespace gpucost::k8s {
namespace {

using Json = nlohmann::json;

std::string EncodeBase64(std::string_view data) {
  std::string out(4 * ((data.size() + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(data.data()),
                                static_cast<int>(data.size()));
  out.resize(static_cast<size_t>(n));
  return out;
}

// An optional string member of `object`; errors name the field, never its value.
Result<std::string> OptionalString(const Json& object, const char* key, std::string_view where) {
  const auto it = object.find(key);
  if (it == object.end() || it->is_null()) return std::string();
  if (!it->is_string()) return Status::ParseError(StrCat(where, key, ": expected a string"));
  return it->get<std::string>();
}

}  // namespace

CredentialSource::CredentialSource(KubeConnection connection, const Clock& clock,
                                   CommandRunner runner, Duration token_file_refresh)
    : connection_(std::move(connection)),
      clock_(clock),
      runner_(runner ? std::move(runner)
                     : CommandRunner([](const std::vector<std::string>& argv,
                                        const std::vector<std::string>& env) {
                         return RunCommand(argv, env, CommandOptions{.timeout = kExecTimeout});
                       })),
      token_file_refresh_(token_file_refresh) {}

Result<Credentials> CredentialSource::Get() {
  std::lock_guard<std::mutex> lock(mu_);
  Credentials c;
  c.client_cert_pem = connection_.client_cert_pem;
  c.client_key_pem = connection_.client_key_pem;
  c.username = connection_.username;
  c.password = connection_.password;
  if (!connection_.token.empty()) {
    c.bearer_token = connection_.token;
  } else if (!connection_.token_file.empty()) {
    GPUCOST_ASSIGN_OR_RETURN(c.bearer_token, FileTokenLocked());
  }
  if (connection_.exec) {
    const bool expired =
        exec_ && exec_->expires_at && clock_.Now() >= *exec_->expires_at - kExpiryMargin;
    if (!exec_ || expired) {
      exec_.reset();
      GPUCOST_ASSIGN_OR_RETURN(ExecResult fresh, RunPlugin());
      exec_ = std::move(fresh);
    }
    if (!exec_->token.empty()) c.bearer_token = exec_->token;
    if (!exec_->client_cert_pem.empty()) {
      c.client_cert_pem = exec_->client_cert_pem;
      c.client_key_pem = exec_->client_key_pem;
    }
  }
  return c;
}

void CredentialSource::Invalidate() {
  std::lock_guard<std::mutex> lock(mu_);
  file_token_.reset();
  exec_.reset();
}

Result<std::string> CredentialSource::FileTokenLocked() {
  const Instant now = clock_.Now();
  if (file_token_ && now - file_token_->read_at < token_file_refresh_) return file_token_->token;
  GPUCOST_ASSIGN_OR_RETURN(std::string text, ReadWholeFile(connection_.token_file));
  std::string token(Trim(text));
  if (token.empty()) {
    return Status::InvalidArgument(StrCat("user \"", connection_.user, "\": the token file ",
                                          connection_.token_file, " is empty"));
  }
  file_token_ = FileToken{token, now};
  return token;
}

std::string CredentialSource::PluginName() const {
  return StrCat("user \"", connection_.user, "\": exec plugin ", connection_.exec->command);
}

std::string CredentialSource::ExecInfo() const {
  Json spec = {{"interactive", false}};
  if (connection_.exec->provide_cluster_info) {
    Json cluster = {{"server", connection_.server}};
    if (!connection_.tls_server_name.empty())
      cluster["tls-server-name"] = connection_.tls_server_name;
    if (connection_.insecure_skip_tls_verify) cluster["insecure-skip-tls-verify"] = true;
    if (!connection_.ca_pem.empty())
      cluster["certificate-authority-data"] = EncodeBase64(connection_.ca_pem);
    if (!connection_.proxy_url.empty()) cluster["proxy-url"] = connection_.proxy_url;
    spec["cluster"] = std::move(cluster);
  }
  const Json info = {{"apiVersion", connection_.exec->api_version},
                     {"kind", "ExecCredential"},
                     {"spec", std::move(spec)}};
  return info.dump();
}

Result<CredentialSource::ExecResult> CredentialSource::RunPlugin() const {
  const ExecPlugin& plugin = *connection_.exec;
  std::vector<std::string> argv = {plugin.command};
  argv.insert(argv.end(), plugin.args.begin(), plugin.args.end());
  std::vector<std::string> env;
  for (const auto& [name, value] : plugin.env) env.push_back(StrCat(name, "=", value));
  env.push_back(StrCat("KUBERNETES_EXEC_INFO=", ExecInfo()));
  Result<CommandOutput> out = runner_(argv, env);
  if (!out.ok()) {
    if (out.status().code() == StatusCode::kNotFound) {
      return Status::NotFound(StrCat(PluginName(), " was not found (", out.status().message(), ")",
                                     plugin.install_hint.empty() ? "" : "; ",
                                     Trim(plugin.install_hint)));
    }
    return out.status().WithContext(PluginName());
  }
  return ParseExecCredential(out->out);
}

Result<CredentialSource::ExecResult> CredentialSource::ParseExecCredential(
    const std::string& output) const {
  const std::string where = StrCat(PluginName(), ": ExecCredential ");
  Json doc;
  try {
    doc = Json::parse(output);
  } catch (const Json::parse_error& e) {
    // Not e.what(): it quotes the text around the error, which may be part of a token.
    return Status::ParseError(StrCat(where, "output is not JSON (error at byte ", e.byte, ")"));
  }
  if (!doc.is_object()) return Status::ParseError(StrCat(where, "output is not a JSON object"));
  GPUCOST_ASSIGN_OR_RETURN(std::string api_version, OptionalString(doc, "apiVersion", where));
  if (api_version != connection_.exec->api_version) {
    return Status::ParseError(StrCat(where, "apiVersion \"", api_version,
                                     "\" is not the configured \"", connection_.exec->api_version,
                                     "\""));
  }
  GPUCOST_ASSIGN_OR_RETURN(std::string kind, OptionalString(doc, "kind", where));
  if (kind != "ExecCredential") {
    return Status::ParseError(StrCat(where, "kind \"", kind, "\" is not \"ExecCredential\""));
  }
  const auto status = doc.find("status");
  if (status == doc.end() || !status->is_object()) {
    return Status::ParseError(StrCat(where, "status: missing or not an object"));
  }
  const std::string in_status = StrCat(where, "status.");
  ExecResult r;
  GPUCOST_ASSIGN_OR_RETURN(r.token, OptionalString(*status, "token", in_status));
  GPUCOST_ASSIGN_OR_RETURN(r.client_cert_pem,
                           OptionalString(*status, "clientCertificateData", in_status));
  GPUCOST_ASSIGN_OR_RETURN(r.client_key_pem, OptionalString(*status, "clientKeyData", in_status));
  if (r.client_cert_pem.empty() != r.client_key_pem.empty()) {
    return Status::ParseError(
        StrCat(in_status, "clientCertificateData and clientKeyData must be given together"));
  }
  if (r.token.empty() && r.client_cert_pem.empty()) {
    return Status::ParseError(
        StrCat(in_status, "token: missing (and no clientCertificateData/clientKeyData either)"));
  }
  GPUCOST_ASSIGN_OR_RETURN(std::string expiry,
                           OptionalString(*status, "expirationTimestamp", in_status));
  if (!expiry.empty()) {
    Result<Instant> at = ParseInstant(expiry);
    if (!at.ok()) {
      return Status::ParseError(
          StrCat(in_status, "expirationTimestamp: \"", expiry, "\" is not an RFC 3339 time"));
    }
    r.expires_at = *at;
  }
  return r;
}

}  // namespace gpucost::k8s
