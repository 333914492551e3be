// Answering the page (docs/http.md#answering): the answer page behind every page's link,
// Twilio's inbound SMS and voice callbacks, and Slack's button clicks. Each answer is
// an acknowledge or resolve through the registry, exactly like the API's, so it reaches
// the node holding the incident at once; it records who answered and how (`via`).
#include "storage/answers.hpp"

#include "http/respond.hpp"
#include "protocol/answer_all.hpp"
#include "protocol/answer_page.hpp"
#include "protocol/answer_token.hpp"
#include "protocol/form.hpp"
#include "protocol/inbound_signatures.hpp"
#include "protocol/reply_command.hpp"
#include "protocol/slack_action.hpp"
#include "protocol/sms.hpp"
#include "protocol/twiml.hpp"
#include "storage/actions.hpp"
#include "storage/contacts.hpp"
#include "storage/db.hpp"
#include "storage/incidents.hpp"

#include <algorithm>
#include <caf/actor_system.hpp>
#include <charconv>

namespace belay {

namespace {

void reply_html(httplib::Response& res, int status, const std::string& html) {
  res.status = status;
  // The URL is the credential: keep it out of caches, other sites' logs and indexes.
  res.set_header("Cache-Control", "no-store");
  res.set_header("Referrer-Policy", "no-referrer");
  res.set_header("X-Robots-Tag", "noindex");
  res.set_header("X-Frame-Options", "DENY");
  res.set_content(html, "text/html; charset=utf-8");
}

void not_found(httplib::Response& res) {
  reply_html(res, 404, protocol::render_answer_not_found());
}

// Every inbound request whose signature does not hold: the same answer, whatever failed.
void forbidden(httplib::Response& res) {
  reply_error(res, 403, "invalid_signature", "the request's signature is not valid");
}

void reply_twiml(httplib::Response& res, const std::string& twiml) {
  res.status = 200;
  res.set_content(twiml, "application/xml");
}

// The URL Twilio requested, as it signed it: the public URL and the request's own path
// and query, exactly as sent.
std::string signed_url(const api& a, const httplib::Request& req) {
  std::string base = a.answers.public_url;
  while (!base.empty() && base.back() == '/')
    base.pop_back();
  return base + req.target;
}

// The voice callback's ?t=<token>, from the query itself: cpp-httplib mixes the body's
// fields into the same parameters, and Twilio's body is not the place to look.
std::string query_token(const httplib::Request& req) {
  const auto query = req.target.find('?');
  if (query == std::string::npos)
    return {};
  auto fields = protocol::parse_form(std::string_view{req.target}.substr(query + 1));
  if (auto* found = std::get_if<protocol::form_fields>(&fields))
    return protocol::form_value(*found, "t").value_or("");
  return {};
}

struct answered {
  protocol::answer_outcome outcome = protocol::answer_outcome::unavailable;
  incident_record incident; // as it stands after the answer (before it, if unavailable)
};

// Sends an answer's transition through the registry, as the API does (the same path
// tells the node holding the incident at once); nullopt when no answer came.
// The audit log records the address the answer came from (docs/security.md#audit-log).
std::optional<transition_reply> send_transition(api& a, const httplib::Request& req,
                                                transition_command cmd) {
  cmd.source_ip = req.remote_addr;
  httplib::Response
      scratch; // ask() writes its JSON 503 here; callers answer in their way
  return ask<transition_reply>(a, a.registry, scratch, atom::transition_v, cmd);
}

answered answer(api& a, const httplib::Request& req, int64_t org,
                const incident_record& incident, protocol::answer_action action,
                const std::string& by, const char* via) {
  auto r = send_transition(a, req,
                           protocol::answer_command(org, incident.id, action, by, via));
  auto outcome = protocol::outcome_of(action, r);
  if (outcome == protocol::answer_outcome::unavailable)
    return {outcome, incident};
  return {outcome, r->incident};
}

// The delivery a valid, unexpired token names, with its incident; nullopt for any
// token belay did not sign, altered, expired, or whose delivery is gone.
struct token_target {
  storage::answered_delivery delivery;
  incident_record incident;
};

std::optional<token_target> resolve_token(api& a, storage::connection& conn,
                                          const std::string& token) {
  auto id = protocol::verify_answer_token(a.answers.signing_secret, token, now(a));
  if (!id)
    return std::nullopt;
  auto delivery = storage::load_answered_delivery(conn, *id);
  if (!delivery)
    return std::nullopt;
  auto held = storage::load_incident(conn, delivery->org_id, delivery->incident_id);
  if (!held)
    return std::nullopt;
  return token_target{std::move(*delivery), std::move(held->incident)};
}

// The bundle a valid, unexpired bundle token names (its id negated: no delivery has a
// negative id), with its incidents as they stand now.
std::optional<storage::answered_bundle>
resolve_bundle_token(api& a, storage::connection& conn, const std::string& token) {
  auto id = protocol::verify_answer_token(a.answers.signing_secret, token, now(a));
  if (!id || *id >= 0)
    return std::nullopt;
  return storage::load_bundle(conn, -*id);
}

// Answers every incident of the bundle still open (or only `only`), one transition
// each, as the person answering: by/via recorded on each incident.
protocol::answer_all_tally answer_all(api& a, const httplib::Request& req,
                                      const storage::answered_bundle& b,
                                      protocol::answer_action action,
                                      const std::string& by, const char* via,
                                      std::optional<int64_t> only = std::nullopt) {
  return protocol::answer_all(
      b.org_id, b.incidents, action, by, via, only,
      [&a, &req](const transition_command& cmd) { return send_transition(a, req, cmd); });
}

// POST /a/<bundle token>: action=ack|resolve on all still open, or with incident=<id>
// on that one.
void post_bundle_page(api& a, const httplib::Request& req, httplib::Response& res,
                      const storage::answered_bundle& b) {
  auto fields = protocol::parse_form(req.body);
  std::optional<protocol::answer_action> action;
  std::optional<int64_t> only;
  if (auto* form = std::get_if<protocol::form_fields>(&fields)) {
    if (auto value = protocol::form_value(*form, "action"))
      action = protocol::parse_answer_action(*value);
    if (auto id = protocol::form_value(*form, "incident")) {
      int64_t n = 0;
      auto [end, ec] = std::from_chars(id->data(), id->data() + id->size(), n);
      bool listed = std::any_of(b.incidents.begin(), b.incidents.end(),
                                [&](auto& i) { return i.id == n; });
      if (ec != std::errc{} || end != id->data() + id->size() || !listed)
        action.reset(); // not one of the bundle's: not understood
      else
        only = n;
    }
  }
  if (!action)
    return reply_html(res, 400,
                      protocol::render_bundle_page(
                          b.incidents, b.person,
                          protocol::answer_outcome_text(
                              protocol::answer_outcome::not_understood, {}, b.person),
                          true));
  auto tally = answer_all(a, req, b, *action, b.person, "link", only);
  std::optional<storage::answered_bundle> after;
  {
    auto conn = a.db.acquire();
    after = storage::load_bundle(*conn, b.id);
  }
  reply_html(
      res, tally.unavailable > 0 ? 503 : 200,
      protocol::render_bundle_page(after ? after->incidents : b.incidents, b.person,
                                   protocol::answer_all_text(*action, tally, b.person),
                                   tally.unavailable > 0));
}

// GET /a/<token>: looks, never changes anything (mail scanners open links).
void show_answer_page(api& a, const httplib::Request& req, httplib::Response& res) {
  auto conn = a.db.acquire();
  if (auto bundle = resolve_bundle_token(a, *conn, req.matches[1]))
    return reply_html(
        res, 200, protocol::render_bundle_page(bundle->incidents, bundle->person, ""));
  auto target = resolve_token(a, *conn, req.matches[1]);
  if (!target)
    return not_found(res);
  reply_html(res, 200,
             protocol::render_answer_page(target->incident, target->delivery.person()));
}

// POST /a/<token> with action=ack|resolve: answers as the delivery's person.
void post_answer_page(api& a, const httplib::Request& req, httplib::Response& res) {
  std::optional<token_target> target;
  std::optional<storage::answered_bundle> bundle;
  {
    auto conn = a.db.acquire();
    bundle = resolve_bundle_token(a, *conn, req.matches[1]);
    if (!bundle)
      target = resolve_token(a, *conn, req.matches[1]);
  }
  if (bundle)
    return post_bundle_page(a, req, res, *bundle);
  if (!target)
    return not_found(res);
  const std::string& person = target->delivery.person();
  auto fields = protocol::parse_form(req.body);
  std::optional<protocol::answer_action> action;
  if (auto* form = std::get_if<protocol::form_fields>(&fields))
    if (auto value = protocol::form_value(*form, "action"))
      action = protocol::parse_answer_action(*value);
  if (!action)
    return reply_html(
        res, 400,
        protocol::render_answer_confirmation(
            target->incident, person, protocol::answer_outcome::not_understood, person));
  auto done =
      answer(a, req, target->delivery.org_id, target->incident, *action, person, "link");
  reply_html(
      res, done.outcome == protocol::answer_outcome::unavailable ? 503 : 200,
      protocol::render_answer_confirmation(done.incident, person, done.outcome, person));
}

// POST /api/v1/integrations/twilio/sms: a reply to a page. Signed with the auth token
// of the sms channel whose `from` is the number written to (`To`).
void twilio_sms(api& a, const httplib::Request& req, httplib::Response& res) {
  auto parsed = protocol::parse_form(req.body);
  if (auto* err = std::get_if<protocol::error>(&parsed))
    return reply_error(res, *err);
  const auto& fields = std::get<protocol::form_fields>(parsed);
  const auto to = protocol::form_value(fields, "To").value_or("");
  const auto from = protocol::form_value(fields, "From").value_or("");
  const auto body = protocol::form_value(fields, "Body").value_or("");
  const auto sid = protocol::form_value(fields, "MessageSid").value_or("");
  const auto signature = req.get_header_value("X-Twilio-Signature");
  const auto url = signed_url(a, req);
  std::optional<channel_config> channel;
  std::optional<protocol::reply_command> command;
  std::optional<storage::paged_incident> paged;
  std::optional<storage::answered_bundle> bundle;
  {
    auto conn = a.db.acquire();
    if (!to.empty())
      for (auto& ch : storage::channels_sending_from(*conn, "sms", to))
        if (protocol::twilio_signature_valid(ch.secret, url, fields, signature)) {
          channel = std::move(ch);
          break;
        }
    if (!channel || from.empty())
      return forbidden(res);
    // A signed reply sent again (captured and replayed, or retried by Twilio after belay
    // acted) acts on nothing: it would answer whatever paged the number last.
    if (!sid.empty() &&
        !storage::first_use_of_message(*conn, channel->org_id, sid, now(a)))
      return reply_twiml(res,
                         protocol::render_twiml_message(protocol::sms_already_answered));
    command = protocol::parse_sms_reply(body);
    // A reply naming no incident to a number whose last message was a bundle answers
    // all of the bundle.
    if (command && !command->incident_id)
      if (auto id = storage::last_bundle_to(*conn, channel->org_id, channel->name, from))
        bundle = storage::load_bundle(*conn, *id);
    if (command && !bundle)
      paged = storage::incident_paged(*conn, channel->org_id, from,
                                      command->incident_id.value_or(0));
  }
  // An answer that could not be made forgets the message, so that Twilio's retry acts.
  auto forget_if_unanswered = [&](bool unanswered) {
    if (unanswered && !sid.empty())
      storage::release_message(*a.db.acquire(), channel->org_id, sid);
  };
  if (bundle) {
    auto tally = answer_all(a, req, *bundle, command->action, bundle->person, "sms");
    forget_if_unanswered(tally.unavailable > 0 && tally.changed == 0);
    return reply_twiml(res, protocol::render_twiml_message(protocol::answer_all_text(
                                command->action, tally, bundle->person)));
  }
  if (!command)
    return reply_twiml(res, protocol::render_twiml_message(protocol::sms_reply_help));
  if (!paged)
    return reply_twiml(res,
                       protocol::render_twiml_message(
                           command->incident_id
                               ? protocol::sms_incident_not_paged(*command->incident_id)
                               : std::string{protocol::sms_nothing_to_answer}));
  auto done = answer(a, req, channel->org_id, paged->incident, command->action,
                     paged->person, "sms");
  forget_if_unanswered(done.outcome == protocol::answer_outcome::unavailable);
  reply_twiml(res, protocol::render_twiml_message(protocol::sms_outcome_text(
                       done.outcome, done.incident, paged->person)));
}

// POST /api/v1/integrations/twilio/voice?t=<token>: the key pressed during a call,
// signed with the auth token of the voice channel that made the call.
void twilio_voice(api& a, const httplib::Request& req, httplib::Response& res) {
  auto parsed = protocol::parse_form(req.body);
  if (auto* err = std::get_if<protocol::error>(&parsed))
    return reply_error(res, *err);
  const auto& fields = std::get<protocol::form_fields>(parsed);
  std::optional<token_target> target;
  std::optional<storage::answered_bundle> bundle;
  std::optional<channel_config> channel;
  {
    auto conn = a.db.acquire();
    bundle = resolve_bundle_token(a, *conn, query_token(req));
    if (bundle)
      channel = storage::channel_named(*conn, bundle->org_id, bundle->channel);
    else if ((target = resolve_token(a, *conn, query_token(req))))
      channel = storage::channel_named(*conn, target->delivery.org_id,
                                       target->delivery.channel);
  }
  if (bundle && channel &&
      protocol::twilio_signature_valid(channel->secret, signed_url(a, req), fields,
                                       req.get_header_value("X-Twilio-Signature"))) {
    auto action =
        protocol::parse_voice_digits(protocol::form_value(fields, "Digits").value_or(""));
    if (!action)
      return reply_twiml(res, protocol::render_twiml_say("Not understood. Nothing was "
                                                         "recorded."));
    auto tally = answer_all(a, req, *bundle, *action, bundle->person, "voice");
    return reply_twiml(res, protocol::render_twiml_say(protocol::answer_all_text(
                                *action, tally, bundle->person)));
  }
  if (!target || !channel ||
      !protocol::twilio_signature_valid(channel->secret, signed_url(a, req), fields,
                                        req.get_header_value("X-Twilio-Signature")))
    return forbidden(res);
  const std::string& person = target->delivery.person();
  auto action =
      protocol::parse_voice_digits(protocol::form_value(fields, "Digits").value_or(""));
  if (!action)
    return reply_twiml(
        res, protocol::render_twiml_say(protocol::answer_outcome_text(
                 protocol::answer_outcome::not_understood, target->incident, person)));
  auto done =
      answer(a, req, target->delivery.org_id, target->incident, *action, person, "voice");
  reply_twiml(
      res, protocol::render_twiml_say(
               protocol::answer_outcome_text(done.outcome, done.incident, person) + "."));
}

// Escalate and Snooze 1 h under one incident's Slack page (docs/http.md#answering): the
// action goes through the registry as the API's does, attributed to the Slack user. A
// snooze of an incident not yet acknowledged acknowledges it first, as the button says.
void slack_work(api& a, const httplib::Request& req, httplib::Response& res,
                const token_target& target, const protocol::slack_action& click) {
  auto reply_text = [&](int status, const std::string& text) {
    res.status = status;
    res.set_content(text, "text/plain; charset=utf-8");
  };
  auto org = target.delivery.org_id;
  const auto& incident = target.incident;
  bool snooze = click.verb == protocol::slack_verb::snooze;
  if (snooze && protocol::can_acknowledge(incident.status) &&
      incident.status != status_acknowledged) {
    auto done = answer(a, req, org, incident, protocol::answer_action::acknowledge,
                       click.by, "slack");
    if (done.outcome == protocol::answer_outcome::unavailable)
      return reply_text(503, "belay could not be reached: nothing was done. Try again.");
  }
  incident_action action;
  action.org_id = org;
  action.incident_id = incident.id;
  action.verb = snooze ? incident_verb::snooze : incident_verb::escalate;
  action.who = {click.by, "slack", req.remote_addr};
  action.until = now(a) + 3600LL * 1'000'000;
  httplib::Response scratch; // ask() writes its JSON 503 here
  auto r = ask<storage::action_reply>(a, a.registry, scratch, atom::act_v, action);
  if (!r)
    return reply_text(503, "belay could not be reached: nothing was done. Try again.");
  auto name = "Incident #" + std::to_string(incident.id);
  if (r->code == reply_code::not_found)
    return reply_text(200, name + " is gone.");
  if (r->code != reply_code::ok)
    return reply_text(200, r->message + ": nothing was done.");
  reply_text(200,
             snooze ? name + " snoozed for 1 hour by " + click.by + "."
                    : name + " escalated by " + click.by + ": its next step pages now.");
}

// POST /api/v1/integrations/slack/actions: a click on a page's button. The button's
// value is the delivery's token, which names the channel whose signing secret must
// have signed the request.
void slack_actions(api& a, const httplib::Request& req, httplib::Response& res) {
  auto parsed = protocol::parse_form(req.body);
  if (auto* err = std::get_if<protocol::error>(&parsed))
    return reply_error(res, *err);
  auto payload = protocol::form_value(std::get<protocol::form_fields>(parsed), "payload");
  if (!payload)
    return reply_error(res, 400, "missing_field", "the form has no field 'payload'",
                       "payload");
  auto action = protocol::parse_slack_action(*payload);
  if (auto* err = std::get_if<protocol::error>(&action))
    return reply_error(res, *err);
  const auto& click = std::get<protocol::slack_action>(action);
  std::optional<token_target> target;
  std::optional<storage::answered_bundle> bundle;
  std::optional<channel_config> channel;
  {
    auto conn = a.db.acquire();
    bundle = resolve_bundle_token(a, *conn, click.token);
    if (bundle)
      channel = storage::channel_named(*conn, bundle->org_id, bundle->channel);
    else if ((target = resolve_token(a, *conn, click.token)))
      channel = storage::channel_named(*conn, target->delivery.org_id,
                                       target->delivery.channel);
  }
  if (bundle && channel &&
      protocol::slack_signature_valid(
          channel->signing_secret, req.get_header_value("X-Slack-Request-Timestamp"),
          req.body, req.get_header_value("X-Slack-Signature"), now(a))) {
    if (click.verb != protocol::slack_verb::answer) {
      res.status = 200;
      return res.set_content(
          "Escalate and Snooze work on one incident's page: nothing was "
          "done.",
          "text/plain; charset=utf-8");
    }
    auto tally = answer_all(a, req, *bundle, click.action, click.by, "slack");
    res.status = tally.unavailable > 0 ? 503 : 200;
    return res.set_content(protocol::answer_all_text(click.action, tally, click.by),
                           "text/plain; charset=utf-8");
  }
  if (!target || !channel ||
      !protocol::slack_signature_valid(
          channel->signing_secret, req.get_header_value("X-Slack-Request-Timestamp"),
          req.body, req.get_header_value("X-Slack-Signature"), now(a)))
    return forbidden(res);
  if (click.verb != protocol::slack_verb::answer)
    return slack_work(a, req, res, *target, click);
  auto done = answer(a, req, target->delivery.org_id, target->incident, click.action,
                     click.by, "slack");
  res.status = done.outcome == protocol::answer_outcome::unavailable ? 503 : 200;
  res.set_content(protocol::answer_outcome_text(done.outcome, done.incident, click.by),
                  "text/plain; charset=utf-8");
}

} // namespace

void add_answer_routes(routes& http, api& a) {
  http.Get(R"(/a/([^/]+))", [&a](const httplib::Request& req, httplib::Response& res) {
    show_answer_page(a, req, res);
  });
  http.Post(R"(/a/([^/]+))", [&a](const httplib::Request& req, httplib::Response& res) {
    post_answer_page(a, req, res);
  });
  http.Post("/api/v1/integrations/twilio/sms",
            [&a](const httplib::Request& req, httplib::Response& res) {
              twilio_sms(a, req, res);
            });
  http.Post("/api/v1/integrations/twilio/voice",
            [&a](const httplib::Request& req, httplib::Response& res) {
              twilio_voice(a, req, res);
            });
  http.Post("/api/v1/integrations/slack/actions",
            [&a](const httplib::Request& req, httplib::Response& res) {
              slack_actions(a, req, res);
            });
}

} // namespace belay
