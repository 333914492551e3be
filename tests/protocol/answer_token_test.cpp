#include "protocol/answer_token.hpp"
#include "protocol/encoding.hpp"

#include <catch2/catch.hpp>
#include <stdexcept>

using namespace belay::protocol;

namespace {

const std::string secret = "belay-test-secret";
constexpr belay::micros expiry = 1'767'225'600'000'000; // 2026-01-01T00:00:00Z
constexpr belay::micros before_expiry = expiry - answer_token_validity;

} // namespace

TEST_CASE("base64 encodes RFC 4648's test vectors", "[signing]") {
  CHECK(base64_encode("") == "");
  CHECK(base64_encode("f") == "Zg==");
  CHECK(base64_encode("fo") == "Zm8=");
  CHECK(base64_encode("foo") == "Zm9v");
  CHECK(base64_encode("foob") == "Zm9vYg==");
  CHECK(base64_encode("fooba") == "Zm9vYmE=");
  CHECK(base64_encode("foobar") == "Zm9vYmFy");
  CHECK(base64_encode("\xfb\xff") == "+/8=");
}

TEST_CASE("base64url uses the URL-safe alphabet without padding", "[signing]") {
  CHECK(base64url_encode("\xfb\xff") == "-_8");
  CHECK(base64url_encode("f") == "Zg");
  CHECK(base64url_encode("foobar") == "Zm9vYmFy");
  for (std::string bytes : {"", "f", "fo", "foo", "\x00\xff\x10\x80"})
    CHECK(base64url_decode(base64url_encode(bytes)) == bytes);
}

TEST_CASE("base64url decoding accepts exactly one spelling of each byte string",
          "[signing]") {
  CHECK(base64url_decode("Zg") == std::string{"f"});
  CHECK_FALSE(base64url_decode("Zg=="));  // padding
  CHECK_FALSE(base64url_decode("Zh"));    // "f" with non-zero unused bits
  CHECK_FALSE(base64url_decode("Zm9vY")); // 6 bits left over: not a byte
  CHECK_FALSE(base64url_decode("+/8"));   // the standard alphabet
  CHECK_FALSE(base64url_decode("Zm9 v"));
  CHECK_FALSE(base64url_decode("Zm9v\n"));
}

TEST_CASE("an answer token round-trips its delivery id until it expires", "[signing]") {
  const std::string token = make_answer_token(secret, 42, expiry);
  CHECK(verify_answer_token(secret, token, before_expiry) == 42);
  CHECK(verify_answer_token(secret, token, expiry - 1) == 42);
  CHECK(verify_answer_token(secret, make_answer_token(secret, 9'000'000'000'123, expiry),
                            before_expiry) == 9'000'000'000'123);
}

TEST_CASE("an answer token has the documented format", "[signing]") {
  // Computed independently with Python's struct, hmac, hashlib and base64:
  //   fields = struct.pack(">qq", 42, 1767225600000000)
  //   mac = hmac.new(b"belay-test-secret", b"belay answer token v1:" + fields,
  //                  hashlib.sha256).digest()
  //   base64.urlsafe_b64encode(fields + mac).decode().rstrip("=")
  CHECK(make_answer_token(secret, 42, expiry) ==
        "AAAAAAAAACoABkdIRiBAAATp24Swm2NG6IV-DjXZIZhYsAcKfd9PMb2RsVv0nr9H");
}

TEST_CASE("an expired answer token is refused", "[signing]") {
  const std::string token = make_answer_token(secret, 42, expiry);
  CHECK_FALSE(verify_answer_token(secret, token, expiry));
  CHECK_FALSE(verify_answer_token(secret, token, expiry + 1));
  CHECK_FALSE(verify_answer_token(secret, token, expiry + answer_token_validity));
}

TEST_CASE("an answer token with any one character changed is refused", "[signing]") {
  const std::string token = make_answer_token(secret, 42, expiry);
  REQUIRE(token.size() == 64);
  for (std::size_t i = 0; i < token.size(); ++i) {
    std::string tampered = token;
    tampered[i] = tampered[i] == 'A' ? 'B' : 'A';
    INFO("changed character " << i);
    CHECK_FALSE(verify_answer_token(secret, tampered, before_expiry));
  }
}

TEST_CASE("an answer token with a later expiry spliced in is refused", "[signing]") {
  // The fields of one token with the MAC of another: the MAC covers the expiry.
  const std::string short_lived = make_answer_token(secret, 42, expiry);
  const std::string long_lived = make_answer_token(secret, 42, expiry * 2);
  const std::string spliced = long_lived.substr(0, 21) + short_lived.substr(21);
  CHECK_FALSE(verify_answer_token(secret, spliced, expiry + 1));
}

TEST_CASE("an answer token signed with another secret is refused", "[signing]") {
  const std::string token = make_answer_token(secret, 42, expiry);
  CHECK_FALSE(verify_answer_token("another-secret", token, before_expiry));
  CHECK_FALSE(verify_answer_token("", token, before_expiry));
}

TEST_CASE("malformed answer tokens are refused", "[signing]") {
  const std::string token = make_answer_token(secret, 42, expiry);
  CHECK_FALSE(verify_answer_token(secret, "", before_expiry));
  CHECK_FALSE(verify_answer_token(secret, "not a token", before_expiry));
  CHECK_FALSE(verify_answer_token(secret, token.substr(0, 63), before_expiry));
  CHECK_FALSE(verify_answer_token(secret, token + "A", before_expiry));
  CHECK_FALSE(verify_answer_token(secret, token + "AAAA", before_expiry));
  CHECK_FALSE(verify_answer_token(secret, token + "=", before_expiry));
  CHECK_FALSE(verify_answer_token(secret, " " + token, before_expiry));
  std::string standard_alphabet = token;
  for (char& c : standard_alphabet)
    c = c == '-' ? '+' : c == '_' ? '/' : c;
  if (standard_alphabet != token)
    CHECK_FALSE(verify_answer_token(secret, standard_alphabet, before_expiry));
}

TEST_CASE("no answer token is made without a secret", "[signing]") {
  CHECK_THROWS_AS(make_answer_token("", 42, expiry), std::invalid_argument);
}

TEST_CASE("answer tokens are valid for seven days by default", "[signing]") {
  CHECK(answer_token_validity == belay::micros{604'800} * 1'000'000);
}

TEST_CASE("a generated signing secret is 32 random bytes in hex", "[signing]") {
  const std::string first = generate_signing_secret();
  CHECK(first.size() == 64);
  CHECK(first.find_first_not_of("0123456789abcdef") == std::string::npos);
  CHECK(generate_signing_secret() != first);
}
