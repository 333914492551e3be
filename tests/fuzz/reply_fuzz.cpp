// Answers sent as text (protocol/reply_command.hpp): an SMS reply's Body, the Digits a
// call's <Gather> collected, the answer page's `action`. Each parser takes exactly what
// its comment documents, checked against a reading written here from that comment; an
// understood SMS reply, written back in any of its spellings, reads the same.
#include "checks.hpp"
#include "protocol/reply_command.hpp"

#include <cctype>
#include <string>
#include <vector>

using namespace belay;
using namespace belay::fuzz;
using protocol::answer_action;
using protocol::reply_command;

namespace {

// The C locale's spaces: ' ', \t, \n, \v, \f, \r.
bool is_space(char c) {
  return std::isspace(static_cast<unsigned char>(c)) != 0;
}

std::vector<std::string_view> words(std::string_view text) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && is_space(text[i]))
      ++i;
    const std::size_t start = i;
    while (i < text.size() && !is_space(text[i]))
      ++i;
    if (i > start)
      out.push_back(text.substr(start, i - start));
  }
  return out;
}

std::string ascii_lower(std::string_view s) {
  std::string out{s};
  for (char& c : out)
    if (c >= 'A' && c <= 'Z')
      c = static_cast<char>(c - 'A' + 'a');
  return out;
}

// 1 to 2^63 - 1, decimal, leading zeros allowed, '#' allowed in front: compared as text
// so that no arithmetic is shared with the parser.
std::optional<int64_t> expected_id(std::string_view word) {
  if (!word.empty() && word.front() == '#')
    word.remove_prefix(1);
  if (word.empty() || word.find_first_not_of("0123456789") != std::string_view::npos)
    return std::nullopt;
  word.remove_prefix(std::min(word.find_first_not_of('0'), word.size()));
  constexpr std::string_view largest = "9223372036854775807";
  if (word.empty() || word.size() > largest.size() ||
      (word.size() == largest.size() && word > largest))
    return std::nullopt;
  return std::stoll(std::string{word});
}

std::optional<reply_command> expected_sms_reply(std::string_view body) {
  const auto w = words(body);
  if (w.empty() || w.size() > 2)
    return std::nullopt;
  const std::string first = ascii_lower(w[0]);
  reply_command command;
  if (first == "1" || first == "ack" || first == "acknowledge")
    command.action = answer_action::acknowledge;
  else if (first == "2" || first == "resolve")
    command.action = answer_action::resolve;
  else
    return std::nullopt;
  if (w.size() == 2) {
    command.incident_id = expected_id(w[1]);
    if (!command.incident_id)
      return std::nullopt;
  }
  return command;
}

// Every way a person may write the same command reads as that command.
void check_spellings(const reply_command& command) {
  const bool ack = command.action == answer_action::acknowledge;
  const std::string id =
      command.incident_id ? std::to_string(*command.incident_id) : std::string{};
  for (std::string word :
       {ack ? "1" : "2", ack ? "ACK" : "Resolve", ack ? "acknowledge" : "resolve"}) {
    std::string text = word;
    if (!id.empty())
      text += " #" + id;
    FUZZ_CHECK(protocol::parse_sms_reply(text) == command);
    FUZZ_CHECK(protocol::parse_sms_reply("\t" + text + " \r\n") == command);
    if (!id.empty())
      FUZZ_CHECK(protocol::parse_sms_reply(word + "   00" + id) == command);
  }
}

std::optional<answer_action> expected_digits(std::string_view digits) {
  const auto w = words(digits);
  if (w.size() != 1 || (w[0] != "1" && w[0] != "2"))
    return std::nullopt;
  return w[0] == "1" ? answer_action::acknowledge : answer_action::resolve;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = bytes(data, size);

  const auto reply = protocol::parse_sms_reply(text);
  FUZZ_CHECK(reply == expected_sms_reply(text));
  if (reply) {
    FUZZ_CHECK(!reply->incident_id || *reply->incident_id > 0);
    check_spellings(*reply);
  }

  FUZZ_CHECK(protocol::parse_voice_digits(text) == expected_digits(text));

  const auto action = protocol::parse_answer_action(text);
  FUZZ_CHECK(action.has_value() == (text == "ack" || text == "resolve"));
  if (action)
    FUZZ_CHECK(protocol::answer_action_name(*action) == text);
  return 0;
}
