#include "cli/scrape_flags.h"

namespace gpucost::cli {

void AddScrapeFlags(CLI::App& cmd, ScrapeFlags& f) {
  cmd.add_option("--scrape", f.targets,
                 "Scrape this exporter directly instead of reading a store: URL or JOB=URL of "
                 "dcgm-exporter, gpucost-agent or kube-state-metrics (repeatable)");
  cmd.add_option("--scrape-endpoints", f.endpoints,
                 "Scrape every ready endpoint of a Service, found through the Kubernetes API: "
                 "[JOB=]NAMESPACE/SERVICE[:PORT] or NAMESPACE/SELECTOR[:PORT] (repeatable)");
  cmd.add_option("--scrape-interval", f.interval, "How often every target is scraped")
      ->capture_default_str();
  cmd.add_option("--scrape-timeout", f.timeout, "A target slower than this fails its scrape")
      ->capture_default_str();
  cmd.add_option("--scrape-spool", f.spool,
                 "Folder of the scraped samples, one file per target and minute (default: the "
                 "ledger's path + .scrape)");
  cmd.add_option("--scrape-retention", f.retention,
                 "Spool files older than this are removed; keep it above --grace + --lag")
      ->capture_default_str();
  cmd.add_option("--scrape-spool-max-size", f.max_size,
                 "Bound on the spool's size (e.g. 500MiB, 20GiB; 0: none): past it the oldest "
                 "files go first, even before --scrape-retention (with a warning)")
      ->capture_default_str();
  cmd.add_option("--scrape-ca-file", f.ca_file, "PEM CA bundle for https targets");
  cmd.add_option("--scrape-cert-file", f.cert_file,
                 "PEM client certificate for targets that ask for one (mTLS)");
  cmd.add_option("--scrape-key-file", f.key_file, "PEM key of --scrape-cert-file");
  cmd.add_option("--scrape-bearer-token-file", f.auth.bearer_token_file,
                 "Send this file's token as a bearer token to every target, re-read per scrape "
                 "(e.g. the service account token for exporters behind kube-rbac-proxy)");
  cmd.add_option("--scrape-basic-auth-user", f.auth.basic_user, "Basic-auth user for the targets");
  cmd.add_option("--scrape-basic-auth-password-file", f.auth.basic_password_file,
                 "File holding the targets' basic-auth password");
}

}  // namespace gpucost::cli
