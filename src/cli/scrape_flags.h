// `gpucost serve --scrape TARGET` / `--scrape-endpoints NS/SERVICE` and their --scrape-* flags,
// registered into a ScrapeFlags (serve/scrape_source.h's ScrapeOptions).
#pragma once

#include <CLI/CLI.hpp>

#include "serve/scrape_source.h"

namespace gpucost::cli {

using ScrapeFlags = serve::ScrapeOptions;

// `flags` must outlive the command.
void AddScrapeFlags(CLI::App& cmd, ScrapeFlags& flags);

}  // namespace gpucost::cli
