// Whole-file CUR import throughput (scripts/bench-cur.sh, docs/perf.md).
//   cur_load --generate=FILE [--nodes=125] [--hours=730]   write a legacy CUR (gzip if FILE ends
//                                                         in .gz): per node-hour one p5.48xlarge
//                                                         usage row, 8 EKS split rows, an EBS and
//                                                         a data transfer row
//   cur_load FILE                                         import it; print rows, charges, rows/s
#include <zlib.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "billing/cur.h"
#include "core/strings.h"
#include "core/time.h"

namespace {

constexpr char kHeader[] =
    "identity/LineItemId,identity/TimeInterval,bill/InvoiceId,bill/BillingEntity,bill/BillType,"
    "bill/PayerAccountId,bill/BillingPeriodStartDate,bill/BillingPeriodEndDate,"
    "lineItem/UsageAccountId,lineItem/LineItemType,lineItem/UsageStartDate,lineItem/UsageEndDate,"
    "lineItem/ProductCode,lineItem/UsageType,lineItem/Operation,lineItem/AvailabilityZone,"
    "lineItem/ResourceId,lineItem/UsageAmount,lineItem/CurrencyCode,lineItem/UnblendedRate,"
    "lineItem/UnblendedCost,lineItem/LineItemDescription,lineItem/LegalEntity,product/ProductName,"
    "product/instanceType,product/region,pricing/publicOnDemandRate,pricing/publicOnDemandCost,"
    "pricing/term,pricing/unit,reservation/ReservationARN,reservation/EffectiveCost,"
    "savingsPlan/SavingsPlanARN,savingsPlan/SavingsPlanEffectiveCost,"
    "splitLineItem/ParentResourceId,splitLineItem/SplitUsage,splitLineItem/SplitCost,"
    "splitLineItem/UnusedCost,resourceTags/user:team\n";

class Writer {
 public:
  explicit Writer(const std::string& path) : gz_(path.ends_with(".gz")) {
    if (gz_) {
      g_ = gzopen(path.c_str(), "wb6");
    } else {
      f_ = std::fopen(path.c_str(), "wb");
    }
    if (g_ == nullptr && f_ == nullptr) {
      std::fprintf(stderr, "cannot write %s\n", path.c_str());
      std::exit(1);
    }
  }
  ~Writer() {
    Flush();
    if (g_ != nullptr) gzclose(g_);
    if (f_ != nullptr) std::fclose(f_);
  }
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;
  std::string& buf() { return buf_; }
  void MaybeFlush() {
    if (buf_.size() > (1u << 20)) Flush();
  }

 private:
  void Flush() {
    if (gz_) {
      gzwrite(g_, buf_.data(), static_cast<unsigned>(buf_.size()));
    } else {
      std::fwrite(buf_.data(), 1, buf_.size(), f_);
    }
    buf_.clear();
  }
  bool gz_;
  gzFile g_ = nullptr;
  std::FILE* f_ = nullptr;
  std::string buf_;
};

// The tail of a split row after the shared columns: parent instance and split amounts.
std::string SplitTail(const char* instance) {
  return gpucost::StrCat(",us-east-1,,,,,,,,,", instance,
                         ",48.0000000000,2.6200000000,0.6550000000,team-a\n");
}

int Generate(const std::string& path, int nodes, int hours) {
  Writer w(path);
  w.buf() += kHeader;
  const gpucost::Instant t0 = *gpucost::ParseInstant("2026-10-01T00:00:00Z");
  uint64_t id = 0;
  int64_t rows = 0;
  char line[2048];
  for (int h = 0; h < hours; ++h) {
    const std::string start = gpucost::FormatRfc3339(t0 + std::chrono::hours(h));
    const std::string end = gpucost::FormatRfc3339(t0 + std::chrono::hours(h + 1));
    for (int n = 0; n < nodes; ++n) {
      const auto common = [&](const char* type, const char* product, const char* usage_type,
                              const char* op, const std::string& resource, const char* amount,
                              const char* cost, const char* desc) {
        return std::snprintf(
            line, sizeof line,
            "%016llx%024d,%s/%s,1234567890,AWS,Anniversary,111122223333,2026-10-01T00:00:00Z,"
            "2026-11-01T00:00:00Z,111122223333,%s,%s,%s,%s,%s,%s,us-east-1a,%s,%s,USD,%s,%s,%s,"
            "\"Amazon Web Services, Inc.\",Amazon Elastic Compute Cloud,",
            static_cast<unsigned long long>(++id), 0, start.c_str(), end.c_str(), type,
            start.c_str(), end.c_str(), product, usage_type, op, resource.c_str(), amount, cost,
            cost, desc);
      };
      char instance[32];
      std::snprintf(instance, sizeof instance, "i-0%016x", 0x5a000000u + static_cast<unsigned>(n));
      int k = common("Usage", "AmazonEC2", "BoxUsage:p5.48xlarge", "RunInstances", instance,
                     "1.0000000000", "55.0400000000",
                     "$55.04 per On Demand Linux p5.48xlarge Instance Hour");
      w.buf().append(line, static_cast<size_t>(k));
      w.buf() += "p5.48xlarge,us-east-1,55.0400000000,55.0400000000,OnDemand,Hrs,,,,,,,,,team-a\n";
      for (int pod = 0; pod < 4; ++pod) {
        for (const char* res : {"vCPU", "GB"}) {
          char usage_type[40], arn[160];
          std::snprintf(usage_type, sizeof usage_type, "EKS-EC2-%s-Hours", res);
          std::snprintf(arn, sizeof arn,
                        "arn:aws:eks:us-east-1:111122223333:pod/gpu/ns-%d/pod-%d-%d/"
                        "5f0c1a2e-3b4d-4e5f-8a9b-%012d",
                        pod, n, pod, n * 4 + pod);
          k = common("Usage", "AmazonEC2", usage_type, "EKSPod-EC2", arn, "1.0000000000",
                     "0.0000000000", "pod usage");
          w.buf().append(line, static_cast<size_t>(k));
          w.buf() += SplitTail(instance);
        }
      }
      char vol[32];
      std::snprintf(vol, sizeof vol, "vol-0%016x", 0x7b000000u + static_cast<unsigned>(n));
      k = common("Usage", "AmazonEC2", "EBS:VolumeUsage.gp3", "CreateVolume-Gp3", vol,
                 "2.6881720430", "0.2150537634", "$0.08 per GB-month of gp3 storage");
      w.buf().append(line, static_cast<size_t>(k));
      w.buf() += ",us-east-1,0.0800000000,0.2150537634,OnDemand,GB-Mo,,,,,,,,,team-a\n";
      k = common("Usage", "AWSDataTransfer", "DataTransfer-Regional-Bytes", "InterZone-In",
                 instance, "12.5000000000", "0.1250000000", "$0.010 per GB regional transfer");
      w.buf().append(line, static_cast<size_t>(k));
      w.buf() += ",us-east-1,0.0100000000,0.1250000000,OnDemand,GB,,,,,,,,,\n";
      rows += 11;
      w.MaybeFlush();
    }
  }
  std::fprintf(stderr, "wrote %lld rows to %s\n", static_cast<long long>(rows), path.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string generate, file;
  int nodes = 125, hours = 730;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a.starts_with("--generate=")) {
      generate = a.substr(11);
    } else if (a.starts_with("--nodes=")) {
      nodes = std::atoi(argv[i] + 8);
    } else if (a.starts_with("--hours=")) {
      hours = std::atoi(argv[i] + 8);
    } else {
      file = a;
    }
  }
  if (!generate.empty()) return Generate(generate, nodes, hours);
  if (file.empty()) {
    std::fprintf(stderr, "usage: cur_load --generate=FILE [--nodes=N] [--hours=H] | cur_load FILE\n");
    return 2;
  }
  const auto t0 = std::chrono::steady_clock::now();
  auto bill = gpucost::billing::LoadCur(file);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!bill.ok()) {
    std::fprintf(stderr, "%s\n", bill.status().ToString().c_str());
    return 1;
  }
  const auto& d = bill->diagnostics;
  std::printf("rows %lld  charges %zu  split skipped %lld  effective $%.2f  %.3f s  %.0f rows/s\n",
              static_cast<long long>(d.rows_read), bill->charges.size(),
              static_cast<long long>(d.split_cost_skipped.rows), d.total_effective_usd(), s,
              static_cast<double>(d.rows_read) / s);
  return 0;
}
