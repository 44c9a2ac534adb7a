// The writer role of `gpucost serve` (docs/serve.md): every cycle it attributes the closed steps
// since its clusters' resume points (re-attributing the last `grace` for late data; ledger writes
// are idempotent) in chunks of at most `max_chunk`, holds the writer lease of its clusters (a
// serve that does not hold it stands by), keeps what a step without data held, carries the
// holdings over a hole it did not watch, seals what no later cycle rewrites and applies the
// retention. Runs on serve's loop thread only: not thread-safe.
//
//   ServeWriter writer(options, *ledger);
//   const ServeWriter::Outcome outcome = writer.Cycle(now, [&] { return stopping; });
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "attribution/inventory_union.h"
#include "core/result.h"
#include "core/time.h"
#include "ledger/ledger.h"
#include "pipeline/input.h"
#include "serve/outage_log.h"
#include "serve/serve_server.h"

namespace gpucost::serve {

// Steps without data in a chunk [start, start + data.size() x step), and a hole left open by
// the chunks before (`pending`); exposed for tests.
struct HoleScan {
  std::vector<ledger::GapRun> keep;  // runs of steps without data: their records are kept
  std::vector<Window> carry;         // holes closed by data after them, to carry over
  std::optional<Instant> pending;    // a hole still open at the chunk's end
};
HoleScan ScanHoles(Instant start, Duration step, const std::vector<bool>& data,
                   std::optional<Instant> pending, std::optional<Instant> unwatched_from);

// The clusters of `scopes` that no serve writes at `now` (no writer, or its lease ran out): those a
// --read-only serve exports on /metrics, as their writer would (the others' writer does).
std::vector<std::string> UnwrittenClusters(const std::vector<ledger::ScopeState>& scopes,
                                           Instant now);

// This process's name as a writer of the ledger: host, process and a random part, so that a
// restarted serve is a new writer and a lease names where its holder runs.
std::string WriterName();

// Whether the writer `name` (WriterName) was a process of this host that is no longer running.
bool GoneFromThisHost(const std::string& name);

class ServeWriter {
 public:
  struct Outcome {
    bool caught_up = false;  // everything due is attributed, or serve stands by
    bool completed = false;  // a full cycle ran: its series go to remote-write
  };
  // What went wrong so far, for /metrics.
  struct Counts {
    int64_t source_errors = 0;        // cycles whose source failed
    int64_t ledger_write_errors = 0;  // chunks the ledger could not keep
    int64_t gap_steps = 0;            // unwatched steps given the holdings before them
  };

  // `options` and `ledger` outlive the writer.
  ServeWriter(const ServeOptions& options, ledger::Ledger& ledger);

  // Attributes what is due at `now`; `stopping` is asked between chunks.
  Outcome Cycle(Instant now, const std::function<bool()>& stopping);
  // Gives the writer lease back (a clean stop), so that a standby takes over at its next cycle.
  void Release(Instant now);

  const std::string& name() const { return name_; }
  const std::vector<std::string>& clusters() const { return clusters_; }
  bool writing() const { return writing_; }
  const std::optional<Instant>& processed() const { return processed_; }
  const Counts& counts() const { return counts_; }
  // The damage a write or read of the ledger found (DataLoss); OK while none was.
  const Status& damage() const { return damage_; }
  // The Kubernetes API's optional kinds as the last cycle that read the API found them, refused
  // (403) when any of its reads was refused; none while standing by, which reads nothing.
  const std::vector<KubeKindAccess>& kube_kinds() const { return kube_kinds_; }

 private:
  Outcome RunCycle(Instant now, const std::function<bool()>& stopping);
  Result<LoadedInput> Load(Window w);
  Result<LoadedInput> LoadSource(Window w);
  Status Attribute(Window w, Instant now, bool& ledger_failed);
  ledger::WriteScope Scope(Instant now) const;
  Status LearnClusters(Instant end);
  bool HoldLease(Instant now);
  void GoStandby();
  Status Resume();
  void Finish(Instant now);
  int64_t StepMs() const;

  const ServeOptions& s_;
  ledger::Ledger& ledger_;
  InputOptions source_;  // s_.source without its ledger
  const std::string name_ = WriterName();
  std::vector<std::string> clusters_;  // the clusters serve writes (LearnClusters), sorted
  bool writing_ = false;               // it holds their writer lease
  bool standing_by_ = false;           // another serve holds it
  std::optional<Instant> processed_;
  int64_t grid_offset_ = 0;  // where the ledger's steps start, past multiples of the step (Resume)
  bool resumed_ = false;
  bool fresh_ = false;  // a cluster of serve's is new to the ledger: it starts at --from
  // Where serve stopped attributing steps as they closed (a restart, a failed cycle); cleared once
  // caught up with no hole open.
  std::optional<Instant> unwatched_from_;
  std::optional<Instant> hole_;  // the start of a hole no data has closed yet
  // Whether the source has nothing before hole_ either (the steps re-read before it were empty):
  // a file or a store that lost the time (retention) rather than recorded a gap.
  bool hole_lost_ = false;
  // The pool draws of holdings running at the end of the last chunk attributed: the next chunk
  // places them on the same units, as one attribution of both would (docs/serve.md).
  std::vector<KeyedDraw> draws_;
  Counts counts_;
  Status damage_;
  std::vector<KubeKindAccess> kube_kinds_;
  std::optional<std::vector<KubeKindAccess>> cycle_kube_kinds_;  // of this cycle's reads so far
  ParsedFileCache parsed_;  // the scrape spool's files that the next cycle reads again
  OutageLog outages_{"attribution", true};  // a failing source or ledger, logged per outage
};

}  // namespace gpucost::serve
