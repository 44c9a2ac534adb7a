// `gpucost serve --remote-write URL`: the flags of the remote-write client (promsource/
// remote_write.h) and the turning of serve's /metrics exposition into the series it sends, so
// that what a Prometheus scrape of serve would store and what is remote-written are the same
// series with the same labels.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

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

// Every sample of a text exposition as a series with one sample at `timestamp_ms` (samples that
// carry their own timestamp keep it). Comments and metadata are left out.
Result<std::vector<promsource::WriteSeries>> SeriesOfExposition(std::string_view text,
                                                                int64_t timestamp_ms);

}  // namespace gpucost::cli
