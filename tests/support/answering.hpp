// Answering pages as a person, Twilio or Slack would, against the served binary: form
// posts, inbound signatures computed by Python's hmac and hashlib
// (tests/http/inbound_sign.py, not by belay), and what the HTTP sink received.
#pragma once

#include "support/form.hpp"
#include "support/http_sink.hpp"
#include "support/json.hpp"
#include "support/served_belay.hpp"
#include "support/shell.hpp"

#include <catch2/catch.hpp>
#include <chrono>
#include <string>
#include <vector>

namespace belay::test {

inline std::string base_url(const served_belay& belay) {
  return "http://127.0.0.1:" + std::to_string(belay.process().port());
}

// tests/http/inbound_sign.py: `kind` twilio (key: auth token, extra: URL) or slack
// (key: signing secret, extra: timestamp), over `body`.
inline std::string python_signature(const std::string& kind, const std::string& key,
                                    const std::string& extra, const std::string& body) {
  temp_file input{body};
  auto signed_by =
      run_command("python3 '" BELAY_SOURCE_DIR "/tests/http/inbound_sign.py' '" + kind +
                  "' '" + key + "' '" + extra + "' < " + input.path());
  REQUIRE(signed_by.exit_code == 0);
  REQUIRE(!signed_by.output.empty());
  return signed_by.output;
}

inline reply post_form(served_belay& belay, const std::string& path,
                       const std::string& body, httplib::Headers headers = {}) {
  auto http = belay.client();
  return to_reply(
      http.Post(path.c_str(), headers, body, "application/x-www-form-urlencoded"));
}

// The requests the HTTP sink received on `path`.
inline std::vector<recorded_request> received(const http_sink& sink,
                                              const std::string& path) {
  std::vector<recorded_request> out;
  for (auto& r : sink.requests())
    if (r.path == path)
      out.push_back(r);
  return out;
}

inline const std::string twilio_sms_path = "/api/v1/integrations/twilio/sms";

// A MessageSid no earlier reply of this test process had, as Twilio gives each message.
inline std::string fresh_message_sid() {
  static int next = 0;
  return "SM" + std::to_string(1000000 + ++next);
}

// A Twilio SMS webhook from `from` to belay's number `to`, signed with `token`, as
// message `sid` (a new one unless given: a reply sent again is a replay).
inline reply sms_reply(served_belay& belay, const std::string& from,
                       const std::string& to, const std::string& text,
                       const std::string& token,
                       const std::string& sid = fresh_message_sid()) {
  auto body = form_body({{"AccountSid", "AC0123"},
                         {"From", from},
                         {"To", to},
                         {"Body", text},
                         {"MessageSid", sid}});
  auto signature =
      python_signature("twilio", token, base_url(belay) + twilio_sms_path, body);
  return post_form(belay, twilio_sms_path, body, {{"X-Twilio-Signature", signature}});
}

// The callback of a call's <Gather action="…">, from the TwiML it was made with.
inline std::string gather_action(const std::string& twiml) {
  const std::string action = "action=\"";
  auto start = twiml.find(action);
  REQUIRE(start != std::string::npos);
  start += action.size();
  return twiml.substr(start, twiml.find('"', start) - start);
}

// The value (an answer token) of the button labelled `label` in a Slack message; "" if
// none.
inline std::string slack_button_value(const std::string& message_json,
                                      const std::string& label) {
  auto message = json(message_json);
  REQUIRE(message.IsObject());
  for (auto& block : message["blocks"].GetArray())
    if (std::string{block["type"].GetString()} == "actions")
      for (auto& button : block["elements"].GetArray())
        if (label == button["text"]["text"].GetString())
          return button["value"].GetString();
  return {};
}

// The form body of carol's click on the button `action_id` carrying `token`, as Slack
// posts it.
inline std::string slack_click_body(const std::string& action_id,
                                    const std::string& token) {
  const std::string payload =
      R"({"type":"block_actions","user":{"id":"U042","username":"carol","name":"carol"},)"
      R"("actions":[{"action_id":")" +
      action_id + R"(","value":")" + token + R"(","type":"button"}]})";
  return "payload=" + percent_encode(payload);
}

inline long long unix_seconds_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Slack's POST of `body` to the actions route, signed with `secret` at `timestamp`.
inline reply slack_click(served_belay& belay, const std::string& body,
                         const std::string& secret, long long timestamp) {
  const auto ts = std::to_string(timestamp);
  return post_form(belay, "/api/v1/integrations/slack/actions", body,
                   {{"X-Slack-Request-Timestamp", ts},
                    {"X-Slack-Signature", python_signature("slack", secret, ts, body)}});
}

} // namespace belay::test
