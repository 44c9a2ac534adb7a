// Sending firing alerts on: to an Alertmanager (API v2, POST /api/v2/alerts) or to any webhook
// receiver (the JSON payload Alertmanager's webhook_config sends, version "4"), by libcurl.
// Payload builders are pure; PostJson does one blocking HTTP request. Thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "alerts/alert.h"
#include "core/status.h"
#include "core/time.h"

namespace gpucost::alerts {

// The labels an alert is sent with: alertname, severity and its own labels.
std::map<std::string, std::string> SentLabels(const Alert& alert);

// Alertmanager's fingerprint of a label set (FNV-1a 64 over the sorted names and values, each
// followed by 0xff), as 16 hex digits: the same id Alertmanager gives the alert.
std::string Fingerprint(const std::map<std::string, std::string>& labels);

// The JSON array for POST /api/v2/alerts: labels, annotations (summary, description), startsAt,
// endsAt = `ends_at` (the alert resolves then unless sent again), generatorURL when given.
std::string AlertmanagerPayload(const std::vector<Alert>& alerts, Instant ends_at,
                                std::string_view generator_url);

// The webhook payload: {"version":"4","status":"firing","receiver",...,"alerts":[...]} with
// commonLabels/commonAnnotations the pairs every alert shares, and each alert's fingerprint.
std::string WebhookPayload(const std::vector<Alert>& alerts, std::string_view receiver,
                           std::string_view external_url);

// "http://am:9093" or "http://am:9093/" -> "http://am:9093/api/v2/alerts"; a URL that already
// ends in /api/v2/alerts is kept.
std::string AlertmanagerAlertsUrl(std::string_view base);

// POSTs `body` as application/json. Unavailable when the peer cannot be reached or answers
// other than 2xx (the message has the status and the start of the answer).
Status PostJson(const std::string& url, const std::string& body, Duration timeout);

}  // namespace gpucost::alerts
