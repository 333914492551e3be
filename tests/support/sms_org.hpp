// A provisioning document for the tests of throttled channels.
#pragma once

#include <string>

namespace belay::test {

// Org "acme": channel "sms" (Twilio at `twilio_url`) with the default throttle of
// docs/guarantees.md#storms (one message a minute first); policy "default" texts one
// number at once.
inline std::string sms_org(const std::string& twilio_url) {
  return R"({"orgs":[{"name":"acme","apiKeys":["acme-key"],
    "channels":[{"name":"sms","type":"sms","url":")" +
         twilio_url + R"(","account":"AC0123","secret":"twilio-token",
      "from":"+15550001111"}],
    "policies":[{"name":"default","steps":[{"delaySeconds":0,
      "targets":[{"channel":"sms","to":"+15550002222"}]}]}]}]})";
}

} // namespace belay::test
