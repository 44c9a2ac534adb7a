// `gpucost serve --remote-write URL`: the flags of the remote-write client (promsource/
// remote_write.h); serve/serve_metrics.h turns /metrics into the series it sends.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "core/result.h"
#include "promsource/auth.h"
#include "promsource/remote_write.h"

namespace gpucost::cli {

struct RemoteWriteFlags {
  std::string url;
  std::vector<std::string> headers;  // NAME=VALUE
  promsource::AuthOptions auth;
  std::string ca_file;
  std::string cert_file;
  std::string key_file;
  bool insecure_skip_verify = false;
  size_t queue_samples = 100'000;
  size_t batch_series = 2'000;
};

// Registers --remote-write and its --remote-write-* flags; `flags` must outlive the command.
void AddRemoteWriteFlags(CLI::App& cmd, RemoteWriteFlags& flags);

// The writer's options; InvalidArgument for a header that is not NAME=VALUE, a client
// certificate without its key, or flags given without --remote-write.
Result<promsource::RemoteWriterOptions> RemoteWriterOptionsOf(const RemoteWriteFlags& flags);

}  // namespace gpucost::cli
