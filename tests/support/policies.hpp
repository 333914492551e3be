// Provisioning documents shared by the actor tests.
#pragma once

#include <string>

namespace belay::test {

// Org "acme": policy "default" pages at 0 s, 300 s and 900 s after the previous step
// (t = 0, 5 min, 20 min), grace 300 s; policy "looping" runs twice, 600 s apart.
inline std::string ladder_org(const std::string& hook_url = "http://127.0.0.1:9/hook",
                              const std::string& extra_channel_fields = "") {
  return R"({"orgs":[{"name":"acme","apiKeys":["acme-key"],
    "channels":[{"name":"hook","type":"webhook","url":")" +
         hook_url + R"(","secret":"s")" + extra_channel_fields + R"(}],
    "policies":[
      {"name":"default","graceSeconds":300,"steps":[
        {"delaySeconds":0,"targets":[{"channel":"hook","to":"#ops"}]},
        {"delaySeconds":300,"targets":[{"channel":"hook","to":"oncall"}]},
        {"delaySeconds":900,"targets":[{"channel":"hook","to":"lead"}]}]},
      {"name":"looping","repeat":1,"repeatDelaySeconds":600,"graceSeconds":60,"steps":[
        {"delaySeconds":0,"targets":[{"channel":"hook","to":"#ops"}]},
        {"delaySeconds":300,"targets":[{"channel":"hook","to":"oncall"}]}]}],
    "integrations":[{"name":"pd","type":"events","key":"acme-routing","policy":"default"}]}]})";
}

} // namespace belay::test
