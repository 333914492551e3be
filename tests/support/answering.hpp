// Answering pages as a person, Twilio or Slack would, against the served binary: form
// posts, inbound signatures computed by Python's hmac and hashlib
// (tests/http/inbound_sign.py, not by belay), and what the HTTP sink received.
#pragma once

#include "support/form.hpp"
#include "support/http_sink.hpp"
#include "support/served_belay.hpp"
#include "support/shell.hpp"

#include <catch2/catch.hpp>
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

} // namespace belay::test
