#include "alerts/alertmanager.h"

#include <curl/curl.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>

#include "core/redact.h"
#include "core/strings.h"

namespace gpucost::alerts {
namespace {

using Json = nlohmann::ordered_json;

Json Annotations(const Alert& a) {
  return Json{{"summary", a.summary}, {"description", a.description}};
}

// The pairs every map in `maps` shares.
std::map<std::string, std::string> Common(
    const std::vector<std::map<std::string, std::string>>& maps) {
  if (maps.empty()) return {};
  std::map<std::string, std::string> common = maps.front();
  for (const auto& m : maps) {
    for (auto it = common.begin(); it != common.end();) {
      auto found = m.find(it->first);
      it = found == m.end() || found->second != it->second ? common.erase(it) : std::next(it);
    }
  }
  return common;
}

size_t Collect(char* data, size_t size, size_t n, void* out) {
  auto* body = static_cast<std::string*>(out);
  if (body->size() < 4096) body->append(data, size * n);
  return size * n;
}

}  // namespace

std::map<std::string, std::string> SentLabels(const Alert& alert) {
  std::map<std::string, std::string> labels = alert.labels;
  labels["alertname"] = alert.alertname;
  labels["severity"] = alert.severity;
  return labels;
}

std::string Fingerprint(const std::map<std::string, std::string>& labels) {
  uint64_t h = 14695981039346656037ull;
  auto add = [&h](std::string_view s) {
    for (unsigned char c : s) {
      h ^= c;
      h *= 1099511628211ull;
    }
  };
  for (const auto& [name, value] : labels) {  // std::map: sorted by name, as Alertmanager sorts
    add(name);
    add("\xff");
    add(value);
    add("\xff");
  }
  char buf[24];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

std::string AlertmanagerPayload(const std::vector<Alert>& alerts, Instant ends_at,
                                std::string_view generator_url) {
  Json out = Json::array();
  for (const Alert& a : alerts) {
    Json j;
    j["labels"] = SentLabels(a);
    j["annotations"] = Annotations(a);
    j["startsAt"] = FormatRfc3339(a.starts_at);
    j["endsAt"] = FormatRfc3339(std::max(ends_at, a.starts_at + std::chrono::seconds(1)));
    if (!generator_url.empty()) j["generatorURL"] = generator_url;
    out.push_back(std::move(j));
  }
  return out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string WebhookPayload(const std::vector<Alert>& alerts, std::string_view receiver,
                           std::string_view external_url) {
  std::vector<std::map<std::string, std::string>> labels, annotations;
  Json list = Json::array();
  for (const Alert& a : alerts) {
    labels.push_back(SentLabels(a));
    annotations.push_back({{"summary", a.summary}, {"description", a.description}});
    Json j;
    j["status"] = "firing";
    j["labels"] = labels.back();
    j["annotations"] = annotations.back();
    j["startsAt"] = FormatRfc3339(a.starts_at);
    j["endsAt"] = "0001-01-01T00:00:00Z";  // what Alertmanager sends for a firing alert
    j["generatorURL"] = "";
    j["fingerprint"] = Fingerprint(labels.back());
    list.push_back(std::move(j));
  }
  Json doc;
  doc["version"] = "4";
  doc["groupKey"] = StrCat("{}:{receiver=\"", receiver, "\"}");
  doc["truncatedAlerts"] = 0;
  doc["status"] = "firing";
  doc["receiver"] = receiver;
  doc["groupLabels"] = Json::object();
  doc["commonLabels"] = Common(labels);
  doc["commonAnnotations"] = Common(annotations);
  doc["externalURL"] = external_url;
  doc["alerts"] = std::move(list);
  return doc.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string AlertmanagerAlertsUrl(std::string_view base) {
  std::string url(base);
  if (url.ends_with("/api/v2/alerts")) return url;
  while (!url.empty() && url.back() == '/') url.pop_back();
  return url + "/api/v2/alerts";
}

Status PostJson(const std::string& url, const std::string& body, Duration timeout) {
  std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> curl(curl_easy_init(), curl_easy_cleanup);
  if (!curl) return Status::Internal("curl_easy_init failed");
  std::unique_ptr<curl_slist, decltype(&curl_slist_free_all)> headers(
      curl_slist_append(nullptr, "Content-Type: application/json"), curl_slist_free_all);
  std::string answer;
  CURL* c = curl.get();
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_POST, 1L);
  curl_easy_setopt(c, CURLOPT_POSTFIELDS, body.data());
  curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers.get());
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, static_cast<long>(timeout.count()));
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, &Collect);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &answer);
  const CURLcode rc = curl_easy_perform(c);
  if (rc != CURLE_OK) {
    return Status::Unavailable(StrCat("POST ", RedactUri(url), ": ", curl_easy_strerror(rc)));
  }
  long status = 0;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
  if (status < 200 || status >= 300) {
    if (answer.size() > 200) answer.resize(200);
    return Status::Unavailable(StrCat("POST ", RedactUri(url), ": HTTP ", status, ": ", answer));
  }
  return Status::Ok();
}

}  // namespace gpucost::alerts
