#include "cli/remote_write_flags.h"

#include "cli/input_flags.h"
#include "core/strings.h"

namespace gpucost::cli {
void AddRemoteWriteFlags(CLI::App& cmd, RemoteWriteFlags& f) {
  cmd.add_option("--remote-write", f.url,
                 "Also push the /metrics series every cycle to this Prometheus remote-write "
                 "endpoint (Prometheus, Thanos Receive, Mimir, Amazon Managed Prometheus), e.g. "
                 "http://prometheus:9090/api/v1/write");
  cmd.add_option("--remote-write-header", f.headers,
                 "NAME=VALUE header on every remote-write request, e.g. X-Scope-OrgID=team-a "
                 "(repeatable)");
  cmd.add_option("--remote-write-bearer-token-file", f.auth.bearer_token_file,
                 "Remote-write: send this file's token as a bearer token (re-read per request)");
  cmd.add_option("--remote-write-basic-auth-user", f.auth.basic_user,
                 "Remote-write: basic-auth user");
  cmd.add_option("--remote-write-basic-auth-password-file", f.auth.basic_password_file,
                 "Remote-write: file holding the basic-auth password");
  cmd.add_flag("--remote-write-sigv4", f.auth.sigv4,
               "Remote-write: sign requests with AWS SigV4 (Amazon Managed Prometheus)");
  cmd.add_option("--remote-write-sigv4-region", f.auth.sigv4_region,
                 "Remote-write: AWS region for SigV4 (default: AWS_REGION, AWS_DEFAULT_REGION or "
                 "the profile's region)");
  cmd.add_option("--remote-write-ca-file", f.ca_file,
                 "Remote-write: PEM CA bundle to verify the endpoint");
  cmd.add_option("--remote-write-cert-file", f.cert_file,
                 "Remote-write: PEM client certificate (with --remote-write-key-file)");
  cmd.add_option("--remote-write-key-file", f.key_file, "Remote-write: PEM key of the certificate");
  cmd.add_flag("--remote-write-insecure-skip-verify", f.insecure_skip_verify,
               "Remote-write: do not verify the endpoint's certificate (testing only)");
  cmd.add_option("--remote-write-queue-samples", f.queue_samples,
                 "Samples kept in memory while the endpoint is down; past this the oldest are "
                 "dropped (and counted)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd.add_option("--remote-write-batch-series", f.batch_series, "Series per remote-write request")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
}

Result<promsource::RemoteWriterOptions> RemoteWriterOptionsOf(const RemoteWriteFlags& f) {
  promsource::RemoteWriterOptions o;
  if (f.url.empty()) {
    const bool other = !f.headers.empty() || !f.auth.bearer_token_file.empty() ||
                       !f.auth.basic_user.empty() || f.auth.sigv4 || !f.ca_file.empty() ||
                       !f.cert_file.empty();
    if (other) return Status::InvalidArgument("--remote-write-* flags need --remote-write URL");
    return o;
  }
  o.url = f.url;
  GPUCOST_ASSIGN_OR_RETURN(o.headers, ParseHeaderFlags(f.headers, "--remote-write-header"));
  if (f.cert_file.empty() != f.key_file.empty()) {
    return Status::InvalidArgument("--remote-write-cert-file and --remote-write-key-file go together");
  }
  o.auth = f.auth;
  o.http.ca_file = f.ca_file;
  o.http.cert_file = f.cert_file;
  o.http.key_file = f.key_file;
  o.http.verify_tls = !f.insecure_skip_verify;
  o.max_queue_samples = f.queue_samples;
  o.max_batch_series = f.batch_series;
  return o;
}

}  // namespace gpucost::cli
