// The request bodies belay ingests, as the tests send them: the native trigger, PagerDuty
// Events v2 and the Alertmanager webhook. `more` is JSON put inside the object after the
// fields named, starting with a comma: R"(,"severity":"warning")".
#pragma once

#include <string>

namespace belay::test {

// POST /api/v1/incidents.
inline std::string trigger_body(const std::string& dedup_key,
                                const std::string& policy = "default",
                                const std::string& more = "",
                                const std::string& title = "t") {
  return R"({"dedupKey":")" + dedup_key + R"(","title":")" + title + R"(","policy":")" +
         policy + R"(")" + more + "}";
}

// POST /v2/enqueue; an empty `dedup_key` is left out.
inline std::string pd_event(const std::string& routing_key, const std::string& action,
                            const std::string& dedup_key, const std::string& more = "") {
  return R"({"routing_key":")" + routing_key + R"(","event_action":")" + action + R"(")" +
         (dedup_key.empty() ? "" : R"(,"dedup_key":")" + dedup_key + R"(")") + more + "}";
}

// A PagerDuty trigger with the least payload there is: summary, source and severity.
inline std::string pd_trigger(const std::string& routing_key,
                              const std::string& dedup_key,
                              const std::string& more = "") {
  return pd_event(routing_key, "trigger", dedup_key,
                  R"(,"payload":{"summary":"s","source":"db1","severity":"error"})" +
                      more);
}

// POST /api/v1/integrations/alertmanager: a firing version 4 notification carrying
// `alerts`, JSON objects separated by commas.
inline std::string alertmanager_body(const std::string& alerts) {
  return R"({"version":"4","status":"firing","receiver":"belay","alerts":[)" + alerts +
         "]}";
}

} // namespace belay::test
