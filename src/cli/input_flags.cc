#include "cli/input_flags.h"

#include "cli/format_flag.h"

namespace gpucost::cli {

void AddInputFlags(CLI::App& cmd, InputFlags& f) {
  cmd.add_option("--input", f.inputs,
                 "kube-state-metrics + dcgm-exporter files or folders (*.prom, *.txt, *.om, .gz; "
                 "- is stdin)");
  cmd.add_option("--untimestamped-at", f.untimestamped_at,
                 "With --input: take samples written without a timestamp (a saved /metrics "
                 "scrape) as one scrape at this time (RFC 3339 or unix seconds), or at the files' "
                 "modification time (mtime); default: such samples are skipped");
  cmd.add_option("--ledger", f.ledger,
                 "Read cost records from this ledger (written by `gpucost ledger write`) instead "
                 "of attributing inputs: no engine run, the records' own step and prices");
  cmd.add_option("--prometheus", f.prometheus,
                 "Read the series from this Prometheus-compatible HTTP API instead of files, "
                 "e.g. http://prometheus:9090 (needs --window)");
  cmd.add_option("--prometheus-chunk", f.prometheus_chunk,
                 "Time span fetched per query with --prometheus (remote read: the first span)")
      ->capture_default_str();
  cmd.add_option("--prometheus-max-chunk", f.prometheus_max_chunk,
                 "Remote read: spans grow (doubling) from --prometheus-chunk up to this while "
                 "responses stay under 16 MiB; set it to --prometheus-chunk to keep spans fixed")
      ->capture_default_str();
  cmd.add_option("--prometheus-api", f.prometheus_api,
                 "auto (remote read, else the query API) | remote-read | query")
      ->transform(OneOf({"auto", "remote-read", "query"}))
      ->capture_default_str();
  cmd.add_option("--prometheus-header", f.prometheus_headers,
                 "With --prometheus: NAME=VALUE header on every request, e.g. "
                 "X-Scope-OrgID=team-a for a multi-tenant store (Mimir, Cortex, Thanos); "
                 "repeatable");
  cmd.add_option("--bearer-token-file", f.auth.bearer_token_file,
                 "With --prometheus: send this file's token as a bearer token (re-read per "
                 "request)");
  cmd.add_option("--bearer-token-env", f.auth.bearer_token_env,
                 "With --prometheus: send the token in this environment variable");
  cmd.add_option("--basic-auth-user", f.auth.basic_user, "With --prometheus: basic-auth user");
  cmd.add_option("--basic-auth-password-file", f.auth.basic_password_file,
                 "With --prometheus: file holding the basic-auth password");
  cmd.add_flag("--sigv4", f.auth.sigv4,
               "With --prometheus: sign requests with AWS SigV4 (Amazon Managed Prometheus); "
               "credentials from AWS_* variables or ~/.aws profiles");
  cmd.add_option("--sigv4-region", f.auth.sigv4_region,
                 "AWS region for --sigv4 (default: AWS_REGION, AWS_DEFAULT_REGION or the "
                 "profile's region)");
  cmd.add_option("--sigv4-service", f.auth.sigv4_service, "AWS service name for --sigv4")
      ->capture_default_str();
  cmd.add_option("--aws-profile", f.auth.aws_profile,
                 "AWS profile for --sigv4 (default: the AWS_* keys, else AWS_PROFILE or default)");
  cmd.add_option("--ca-file", f.ca_file, "With --prometheus: PEM CA bundle to verify the server");
  cmd.add_option("--cert-file", f.cert_file, "With --prometheus: PEM client certificate");
  cmd.add_option("--key-file", f.key_file, "With --prometheus: PEM key of --cert-file");
  cmd.add_flag("--insecure-skip-verify", f.insecure_skip_verify,
               "With --prometheus: do not verify the server's certificate (testing only)");
  cmd.add_option("--slurm-sacct", f.slurm_sacct,
                 "Slurm accounting: `sacct --parsable2` output with a header line (- is stdin); "
                 "with --input, both clusters are attributed together");
  cmd.add_flag("--slurm", f.slurm,
               "Run sacct for the window (all users, all states) instead of reading a file");
  cmd.add_option("--slurm-sacct-bin", f.slurm_sacct_bin, "The sacct program run by --slurm")
      ->capture_default_str();
  cmd.add_option("--slurm-clusters", f.slurm_clusters,
                 "With --slurm: clusters to ask sacct for (--clusters), comma-separated");
  cmd.add_option("--slurm-account-teams", f.slurm_account_teams,
                 "File mapping Slurm accounts to teams, one \"ACCOUNT TEAM\" a line (default: "
                 "the team is the account)");
  cmd.add_option("--slurm-billing-weights", f.slurm_billing_weights,
                 "`scontrol show partition` output (or slurm.conf PartitionName lines): "
                 "recompute each job's billing TRES from its partition's TRESBillingWeights");
  cmd.add_flag("--slurm-billing-max-tres", f.slurm_billing_max_tres,
               "Billing as with PriorityFlags=MAX_TRES (also read from a PriorityFlags line "
               "in the weights file)");
  cmd.add_option("--slurm-time-zone", f.slurm_time_zone,
                 "Time zone of sacct's times: local, UTC, +02:00 or an IANA name")
      ->capture_default_str();
  cmd.add_option("--slurm-gpus-per-node", f.slurm_gpus_per_node,
                 "Physical GPUs per Slurm node (0: the most its jobs held at once)")
      ->capture_default_str()
      ->check(CLI::Range(0, 65536));
  cmd.add_option("--slurm-gpu-model", f.slurm_gpu_model,
                 "GPU model of the Slurm nodes (MIG fractions, the gpu_model dimension)");
  AddKubeFlags(cmd, f.kube);
  AddKubeObjectsFlags(cmd, f.kube);
}

void AddTimelineFlags(CLI::App& cmd, InputFlags& f) {
  cmd.add_option("--label-allowlist", f.label_allowlist,
                 "Pod and namespace labels kept on holders (the label:KEY dimension), "
                 "comma-separated original keys; default: all")
      ->capture_default_str();
  cmd.add_option("--cluster", f.cluster, "Cluster name for series without a cluster label")
      ->capture_default_str();
  cmd.add_option("--team-labels", f.team_labels,
                 "Team label chain, first match wins, then the namespace name")
      ->capture_default_str();
  cmd.add_option("--staleness", f.staleness,
                 "Longest a sample stands for its series (usage and presence)")
      ->capture_default_str();
  cmd.add_option("--max-warnings", f.max_warnings, "Warnings printed to stderr")
      ->capture_default_str();
}

}  // namespace gpucost::cli
