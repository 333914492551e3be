#include "parsed_helpers.hpp"
#include "protocol/form.hpp"
#include "protocol/inbound_signatures.hpp"

using namespace belay::protocol;
using namespace belay::protocol::test;

namespace {

constexpr belay::micros second = 1'000'000;

// Twilio's worked example, as in Twilio's webhook-security documentation and the test
// suites of its official libraries (twilio-php's RequestValidatorTest, twilio-python's
// validation docs): auth token 12345, this URL and these fields.
const std::string twilio_docs_token = "12345";
const std::string twilio_docs_url = "https://mycompany.com/myapp.php?foo=1&bar=2";
const form_fields twilio_docs_fields = {{"CallSid", "CA1234567890ABCDE"},
                                        {"Caller", "+14158675309"},
                                        {"Digits", "1234"},
                                        {"From", "+14158675309"},
                                        {"To", "+18005551212"}};
const std::string twilio_docs_signature = "RSOYDt4T1cUTdK1PDd93/VVr8B8=";

// Slack's worked example in "Verifying requests from Slack" (api.slack.com), the same
// body as quoted by several independent SDK test suites; recomputed with Python's hmac
// before use.
const std::string slack_docs_secret = "8f742231b10e8888abcd99yyyzzz85a5";
const std::string slack_docs_timestamp = "1531420618";
const std::string slack_docs_body =
    "token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id="
    "G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%"
    "2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%"
    "2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015."
    "47445629121.803a0bc887a14d10d2c447fce8b6703c";
const std::string slack_docs_signature =
    "v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503";
constexpr belay::micros slack_docs_now = 1'531'420'618 * second;

form_fields form(std::string_view body) {
  return value_of(parse_form(body));
}

} // namespace

TEST_CASE("a form body yields its fields in order, decoded", "[signing]") {
  CHECK(form("a=1&b=2") == form_fields{{"a", "1"}, {"b", "2"}});
  CHECK(form("Body=ack+12&From=%2B15550100") ==
        form_fields{{"Body", "ack 12"}, {"From", "+15550100"}});
  CHECK(form("x=%e2%82%AC%20%26%3D") == form_fields{{"x", "€ &="}});
  CHECK(form("Digits=1&Digits=2") == form_fields{{"Digits", "1"}, {"Digits", "2"}});
}

TEST_CASE("form fields without a value, a name or a segment are read as browsers do",
          "[signing]") {
  CHECK(form("").empty());
  CHECK(form("&&a=1&") == form_fields{{"a", "1"}});
  CHECK(form("flag") == form_fields{{"flag", ""}});
  CHECK(form("a=") == form_fields{{"a", ""}});
  CHECK(form("=x") == form_fields{{"", "x"}});
  CHECK(form("a=b=c") == form_fields{{"a", "b=c"}});
  CHECK(form("a%3Db=c") == form_fields{{"a=b", "c"}});
}

TEST_CASE("a form with a broken percent escape is refused", "[signing]") {
  for (const char* body :
       {"a=%", "a=%4", "a=%zz", "a=%G1", "a=1&b=%4g", "%=1", "a=100%"}) {
    INFO(body);
    const error e = error_of(parse_form(body));
    CHECK(e.status == 400);
    CHECK(e.code == "invalid_form");
  }
}

TEST_CASE("a form with a NUL byte or invalid UTF-8 is refused", "[signing]") {
  CHECK(error_of(parse_form("a=x%00y")).code == "invalid_form");
  CHECK(error_of(parse_form("a%00=1")).code == "invalid_form");
  CHECK(error_of(parse_form("a=%ff")).code == "invalid_form");
  CHECK(error_of(parse_form("a=%C3")).code == "invalid_form");       // cut short
  CHECK(error_of(parse_form("a=%C0%AF")).code == "invalid_form");    // overlong '/'
  CHECK(error_of(parse_form("a=%ED%A0%80")).code == "invalid_form"); // a surrogate
  CHECK(form("a=%C3%BC") == form_fields{{"a", "ü"}});
}

TEST_CASE("a form holds at most max_form_fields fields", "[signing]") {
  std::string body;
  for (std::size_t i = 0; i < max_form_fields; ++i)
    body += "f=&";
  CHECK(form(body).size() == max_form_fields);
  CHECK(error_of(parse_form(body + "f=")).code == "invalid_form");
  // Empty segments do not count: they are never stored.
  CHECK(form(body + std::string(5000, '&')).size() == max_form_fields);
}

TEST_CASE("form_value finds the first field of a name", "[signing]") {
  const form_fields fields = form("a=1&b=2&a=3");
  CHECK(form_value(fields, "a") == std::string{"1"});
  CHECK(form_value(fields, "b") == std::string{"2"});
  CHECK_FALSE(form_value(fields, "A"));
}

TEST_CASE("Twilio's documented example signature is reproduced and accepted",
          "[signing]") {
  CHECK(twilio_signature(twilio_docs_token, twilio_docs_url, twilio_docs_fields) ==
        twilio_docs_signature);
  CHECK(twilio_signature_valid(twilio_docs_token, twilio_docs_url, twilio_docs_fields,
                               twilio_docs_signature));
}

TEST_CASE("Twilio signatures do not depend on the order the fields came in",
          "[signing]") {
  form_fields shuffled(twilio_docs_fields.rbegin(), twilio_docs_fields.rend());
  CHECK(twilio_signature_valid(twilio_docs_token, twilio_docs_url, shuffled,
                               twilio_docs_signature));
}

TEST_CASE("a Twilio signature over other fields, URL or token is refused", "[signing]") {
  form_fields tampered = twilio_docs_fields;
  tampered[2].second = "1";
  CHECK_FALSE(twilio_signature_valid(twilio_docs_token, twilio_docs_url, tampered,
                                     twilio_docs_signature));
  form_fields extra = twilio_docs_fields;
  extra.emplace_back("Body", "2");
  CHECK_FALSE(twilio_signature_valid(twilio_docs_token, twilio_docs_url, extra,
                                     twilio_docs_signature));
  CHECK_FALSE(twilio_signature_valid(twilio_docs_token, twilio_docs_url + "&x=1",
                                     twilio_docs_fields, twilio_docs_signature));
  CHECK_FALSE(twilio_signature_valid("54321", twilio_docs_url, twilio_docs_fields,
                                     twilio_docs_signature));
  CHECK_FALSE(
      twilio_signature_valid(twilio_docs_token, twilio_docs_url, twilio_docs_fields, ""));
  CHECK_FALSE(twilio_signature_valid(twilio_docs_token, twilio_docs_url,
                                     twilio_docs_fields, "RSOYDt4T1cUTdK1PDd93/VVr8B8"));
}

TEST_CASE("an empty Twilio auth token validates nothing, not even its own signature",
          "[signing]") {
  const std::string forged = twilio_signature("", twilio_docs_url, twilio_docs_fields);
  CHECK_FALSE(twilio_signature_valid("", twilio_docs_url, twilio_docs_fields, forged));
}

TEST_CASE("a Twilio voice callback is signed over the decoded form, duplicates sorted "
          "by value",
          "[signing]") {
  // Computed independently with Python's hmac, hashlib and base64:
  //   url = "https://belay.example.com/api/v1/integrations/twilio/voice?t=abc_-123"
  //   params = [("To","+15550100"), ("Digits","1"), ("From","+15550199"),
  //             ("CallSid","CA01"), ("Digits","0"), ("Body","ack 12 & ünïcode")]
  //   s = url + "".join(k + v for k, v in sorted(params))
  //   base64.b64encode(hmac.new(b"twilio-auth-token-42", s.encode(),
  //                             hashlib.sha1).digest())
  const form_fields fields = form("To=%2B15550100&Digits=1&From=%2B15550199&CallSid=CA01"
                                  "&Digits=0&Body=ack+12+%26+%C3%BCn%C3%AFcode");
  const std::string url =
      "https://belay.example.com/api/v1/integrations/twilio/voice?t=abc_-123";
  CHECK(twilio_signature("twilio-auth-token-42", url, fields) ==
        "9MYtgalcqlQGAOCaKNT+CHDrXvo=");
}

TEST_CASE("Slack's documented example signature is reproduced and accepted",
          "[signing]") {
  CHECK(slack_signature(slack_docs_secret, slack_docs_timestamp, slack_docs_body) ==
        slack_docs_signature);
  CHECK(slack_signature_valid(slack_docs_secret, slack_docs_timestamp, slack_docs_body,
                              slack_docs_signature, slack_docs_now));
}

TEST_CASE("a Slack signature matches an independently computed vector", "[signing]") {
  // Computed with Python's hmac and hashlib:
  //   body = 'payload=%7B%22type%22%3A%22block_actions%22%7D'
  //   "v0=" + hmac.new(b"slack-signing-secret", ("v0:1767225600:" + body).encode(),
  //                    hashlib.sha256).hexdigest()
  const std::string body = "payload=%7B%22type%22%3A%22block_actions%22%7D";
  const std::string expected =
      "v0=e9edde949efa6a06436731b9051509a35844452d28fe8c82453b648f572ef5cf";
  CHECK(slack_signature("slack-signing-secret", "1767225600", body) == expected);
  CHECK(slack_signature_valid("slack-signing-secret", "1767225600", body, expected,
                              1'767'225'600 * second));
}

TEST_CASE("a Slack request more than five minutes old is refused", "[signing]") {
  auto valid_at = [](belay::micros now) {
    return slack_signature_valid(slack_docs_secret, slack_docs_timestamp, slack_docs_body,
                                 slack_docs_signature, now);
  };
  CHECK(valid_at(slack_docs_now + 300 * second));
  CHECK_FALSE(valid_at(slack_docs_now + 301 * second));
  CHECK_FALSE(valid_at(slack_docs_now + 3600 * second));
}

TEST_CASE("a Slack request stamped more than five minutes ahead is refused",
          "[signing]") {
  auto valid_at = [](belay::micros now) {
    return slack_signature_valid(slack_docs_secret, slack_docs_timestamp, slack_docs_body,
                                 slack_docs_signature, now);
  };
  CHECK(valid_at(slack_docs_now - 300 * second));
  CHECK_FALSE(valid_at(slack_docs_now - 301 * second));
  CHECK_FALSE(valid_at(0));
}

TEST_CASE("a Slack timestamp that is not plain decimal seconds is refused", "[signing]") {
  for (const char* timestamp :
       {"", "abc", "-1531420618", "+1531420618", "1531420618.0", " 1531420618",
        "1531420618 ", "0x5b47", "1531420618000000000000"}) {
    INFO('"' << timestamp << '"');
    // Signed correctly over the odd timestamp, so only the timestamp can fail.
    const std::string signature =
        slack_signature(slack_docs_secret, timestamp, slack_docs_body);
    CHECK_FALSE(slack_signature_valid(slack_docs_secret, timestamp, slack_docs_body,
                                      signature, slack_docs_now));
  }
}

TEST_CASE("a Slack signature over another body, timestamp or secret is refused",
          "[signing]") {
  CHECK_FALSE(slack_signature_valid(slack_docs_secret, slack_docs_timestamp,
                                    slack_docs_body + "&x=1", slack_docs_signature,
                                    slack_docs_now));
  CHECK_FALSE(slack_signature_valid(slack_docs_secret, "1531420619", slack_docs_body,
                                    slack_docs_signature, slack_docs_now));
  CHECK_FALSE(slack_signature_valid("another-secret", slack_docs_timestamp,
                                    slack_docs_body, slack_docs_signature,
                                    slack_docs_now));
  CHECK_FALSE(slack_signature_valid(slack_docs_secret, slack_docs_timestamp,
                                    slack_docs_body, slack_docs_signature.substr(3),
                                    slack_docs_now));
  CHECK_FALSE(slack_signature_valid(slack_docs_secret, slack_docs_timestamp,
                                    slack_docs_body, "", slack_docs_now));
  const std::string empty_secret_signature =
      slack_signature("", slack_docs_timestamp, slack_docs_body);
  CHECK_FALSE(slack_signature_valid("", slack_docs_timestamp, slack_docs_body,
                                    empty_secret_signature, slack_docs_now));
}
