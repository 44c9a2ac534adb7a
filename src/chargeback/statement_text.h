// StatementText: a statement's printed phrases (title, lines, total, waste, spot ratio, top
// consumers) with money and hours rounded once (rounding.h), so that the text, Markdown and
// HTML renderers say exactly the same thing. Plain value type; DescribeStatement is stateless.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "chargeback/rounding.h"
#include "chargeback/statement.h"

namespace gpucost::chargeback {

struct StatementText {
  struct Line {
    std::string label;   // "A100 on-demand"
    std::string hours;   // "312"
    std::string rate;    // "$3.06" or "unknown price"
    std::string amount;  // "$954.72" or "unknown"
  };
  struct Consumer {
    int rank = 0;
    std::string name;    // "training-llama-ft-v3"
    std::string hours;   // "1,200"
    std::string amount;  // "$1,404.00", "unknown", "$12.00 + unknown"
  };
  std::string title;   // "Monthly GPU Report — ml-research"
  std::string period;  // "2026-10-01T00:00:00Z to 2026-11-01T00:00:00Z"
  // The same for people, the last day included: "Oct 1–Oct 31, 2026" (and what the data covers).
  std::string readable_period;
  std::string hours;   // "2,847 hrs"
  // What the hours are hours of (HoursNoun, format.h): GPUs, AWS Neuron devices or both.
  std::string hours_heading = "GPU-hours";  // "Accelerator-hours", "GPU- and accelerator-hours"
  std::string hrs = "GPU-hrs";              // "accelerator-hrs", "GPU- and accelerator-hrs"
  std::string thing = "GPU";                // "Accelerator", "GPU and accelerator"
  std::vector<Line> lines;
  // "" or "$12.34": the cluster's idle shared to the team; its label names the policy.
  std::string shared_idle;
  std::string shared_idle_label;  // "Idle shared (proportional, by node)"
  // "" or "+$0.01": the total less the printed lines, each rounded on its own (rounding.h).
  std::string rounding;
  std::string total;         // "$3,428.67", or "$3,428.67 + unknown (10 hrs have no price)"
  std::string waste;         // "idle GPU-hours 423 hrs (14.9%), idle cost $495.09, efficiency ..."
  std::string waste_detail;  // "utilization-weighted waste $511.02, effective cost $2,917.65 ..."
  // The page's one waste figure and what it is of, apart from the idle time (hours only):
  std::string waste_usd;      // "$511.31": allocated − effective, the report's waste_usd
  std::string effective_usd;  // "$2,917.36"
  std::string efficiency;     // "85.1% (target > 80%)"
  std::string idle_time;      // "423 hrs (14.9%) under 5% utilization"
  std::string spot;          // "89.0% (target > 70%)"
  std::string unmeasured;    // "" or why efficiency is a lower bound
  std::vector<Consumer> consumers;  // the top N workloads
};

StatementText DescribeStatement(const StatementSet& set, const Statement& statement);

// The cluster summary after the statements (StatementSet::cluster), each amount rounded on its
// own and a rounding line where the parts do not add up to the printed cost.
struct ClusterText {
  struct Part {
    std::string label;   // "7 teams' statements", "Idle, charged to no team (3,313.86 GPU-hrs)"
    std::string amount;  // "$28,116.88"
  };
  std::string title;  // "Cluster — 2026-10-01T00:00:00Z to 2026-10-08T00:00:00Z"
  std::vector<Part> parts;
  std::string total;   // "$39,163.48"
  std::string total_label = "Total GPU cost";  // "Total GPU and accelerator cost"
  std::string prices;  // "catalog 8,064.00 GPU-hrs, spot 4,032.00 GPU-hrs"; "" when unknown
  std::string note;    // "" or what the cost leaves out (unpriced hours)
};
ClusterText DescribeCluster(const StatementSet& set);

// Describes every statement of `set` and writes each with `write`, a blank line between them.
void WriteEachStatement(const StatementSet& set, std::ostream& out,
                        void (*write)(const StatementText&, std::ostream&));

}  // namespace gpucost::chargeback
