#include "storage/contacts.hpp"

#include "protocol/throttle.hpp"
#include "storage/batch.hpp"
#include "storage/claims.hpp"
#include "storage/db.hpp"

#include <algorithm>
#include <map>

namespace belay::storage {

namespace {

const std::string claim_contacts_sql = R"sql(
SELECT row_kind, coalesce(bundle_id, 0), coalesce(delivery_id, 0),
       coalesce(incident_id, 0), at, coalesce(n, 0)
FROM belay_claim_contacts($1, $2, $3, $4, $5, $6, $7::jsonb, $8::jsonb, $9, $10))sql";

// What a bundle's message says of an incident it carries, or of any of a bundle's.
const std::string incidents_sql = R"sql(
SELECT id, dedup_key, title, severity, status, coalesce(acked_by, ''),
       coalesce(acked_via, ''), coalesce(resolved_by, ''), coalesce(resolved_via, '')
FROM incident WHERE org_id = $1 AND id = ANY ($2::bigint[]) ORDER BY id)sql";

// $1 org, $2 bundle, $3 its carried incidents: those still open.
const std::string open_carried_sql = R"sql(
SELECT id FROM incident
WHERE org_id = $1 AND id = ANY ($2::bigint[]) AND status IN ('OPEN', 'EXHAUSTED')
ORDER BY id)sql";

// A bundle with nothing left to say: not sent, and its throttle slot given back.
const std::string cancel_bundle_sql = R"sql(
WITH b AS (
  UPDATE bundle SET status = 'CANCELLED' WHERE org_id = $1 AND id = $2
  RETURNING org_id, channel, target, kind, claimed_at
)
UPDATE contact x
SET page_sends = CASE WHEN b.kind = 'page' THEN array_remove(x.page_sends, b.claimed_at)
                      ELSE x.page_sends END,
    update_sends = CASE WHEN b.kind = 'update'
                        THEN array_remove(x.update_sends, b.claimed_at)
                        ELSE x.update_sends END
FROM b WHERE x.org_id = b.org_id AND x.channel = b.channel AND x.target = b.target)sql";

// $1 org, $2 bundle, $3 status, $4 error, $5 at.
const std::string bundle_outcome_sql = R"sql(
WITH b AS (
  UPDATE bundle SET status = $3, last_error = $4,
                    sent_at = CASE WHEN $3 = 'SENT' THEN belay_ts($5) END
  WHERE org_id = $1 AND id = $2 AND status = 'CLAIMED' -- written again: no news
  RETURNING org_id, id, channel, target, kind
)
UPDATE contact x SET last_bundle_id = b.id, last_delivery_id = NULL,
                     last_sent_at = belay_ts($5)
FROM b
WHERE $3 = 'SENT' AND b.kind = 'page' AND x.org_id = b.org_id AND x.channel = b.channel
  AND x.target = b.target)sql";

const std::string bundle_incidents_sql = R"sql(
SELECT incident_id, member FROM bundle_incident
WHERE org_id = $1 AND bundle_id = $2 ORDER BY incident_id)sql";

// The person the bundle's pages went to, else its address.
const std::string bundle_answer_sql = R"sql(
SELECT b.org_id, b.channel, b.target,
       coalesce((SELECT d.user_name FROM delivery d
                 WHERE d.org_id = b.org_id AND d.bundle_id = b.id AND d.user_name <> ''
                 ORDER BY d.id LIMIT 1), b.target)
FROM bundle b WHERE b.id = $1)sql";

const std::string last_bundle_sql = R"sql(
SELECT last_bundle_id FROM contact
WHERE org_id = $1 AND channel = $2 AND target = $3 AND last_bundle_id IS NOT NULL)sql";

const std::string throttled_contacts_sql = R"sql(
SELECT channel, target, count(*), belay_us(min(next_attempt_at)) FROM delivery
WHERE org_id = $1 AND status = 'PENDING' AND held_by = 'throttle'
GROUP BY channel, target ORDER BY channel, target LIMIT $2)sql";

std::vector<incident_record> read_incidents(const result& r, int64_t org_id) {
  std::vector<incident_record> out;
  for (int i = 0; i < r.rows(); ++i) {
    incident_record rec;
    rec.org_id = org_id;
    rec.id = r.int64(i, 0);
    rec.dedup_key = r.str(i, 1);
    rec.title = r.str(i, 2);
    rec.severity = r.str(i, 3);
    rec.status = r.str(i, 4);
    rec.acked_by = r.str(i, 5);
    rec.acked_via = r.str(i, 6);
    rec.resolved_by = r.str(i, 7);
    rec.resolved_via = r.str(i, 8);
    out.push_back(std::move(rec));
  }
  return out;
}

std::vector<incident_record> load_incidents(connection& c, int64_t org_id,
                                            const std::vector<int64_t>& ids) {
  if (ids.empty())
    return {};
  return read_incidents(c.query(incidents_sql, org_id, bigint_array(ids)), org_id);
}

} // namespace

contact_claim claim_contacts(connection& c, const contact_request& req) {
  const auto& cl = req.claim;
  release_unheld_claims(c, cl);
  auto r =
      c.query(claim_contacts_sql, cl.org_id, cl.channel, cl.node, cl.now, cl.lease_until,
              cl.limit, protocol::throttle_json(req.page_windows),
              protocol::throttle_json(req.update_windows), req.bundle, req.max_members);
  contact_claim out;
  std::vector<int64_t> claimed, carried_ids;
  std::map<int64_t, std::vector<int64_t>> carried; // by bundle
  for (int i = 0; i < r.rows(); ++i) {
    auto kind = r.text(i, 0);
    if (kind == "member" || kind == "cancelled")
      claimed.push_back(r.int64(i, 2));
    else if (kind == "carried") {
      carried[r.int64(i, 1)].push_back(r.int64(i, 3));
      carried_ids.push_back(r.int64(i, 3));
    } else if (kind == "held") {
      out.held = r.int64(i, 5);
      out.opens_at = r.opt_int64(i, 4);
    }
  }
  // Every claimed row in one read, every carried incident in another; a member knows
  // its bundle, and a bundle's contact and kind are its members'.
  std::map<int64_t, incident_record> carried_by_id;
  for (auto& i : load_incidents(c, cl.org_id, carried_ids))
    carried_by_id[i.id] = i;
  std::map<int64_t, claimed_bundle> bundles;
  for (auto& cd : load_claimed(c, cl.org_id, claimed)) {
    if (!cd.delivery.bundle_id || cd.delivery.status == "CANCELLED") {
      out.pages.push_back(std::move(cd));
      continue;
    }
    auto& b = bundles[*cd.delivery.bundle_id];
    if (b.members.empty()) {
      b.org_id = cl.org_id;
      b.id = *cd.delivery.bundle_id;
      b.channel = cl.channel;
      b.target = cd.delivery.target;
      b.update = !cd.delivery.update_of.empty();
      for (auto id : carried[b.id])
        b.carried.push_back(carried_by_id[id]);
    }
    b.members.push_back(std::move(cd));
  }
  for (auto& [id, b] : bundles)
    out.bundles.push_back(std::move(b));
  return out;
}

checked_bundle recheck_bundle(connection& c, const bundle_recheck& req) {
  const auto& b = req.bundle;
  recheck_request members{req.node, req.now, req.lease_until, {}};
  for (auto& m : b.members)
    members.claims.push_back({m.delivery.org_id, m.delivery.id, m.delivery.attempts});
  checked_bundle out;
  for (auto& r : recheck_claims(c, members))
    if (r.live)
      out.live_members.push_back(r.delivery_id);
  if (out.cancelled()) {
    c.query(cancel_bundle_sql, b.org_id, b.id);
    return out;
  }
  std::vector<int64_t> carried;
  for (auto& i : b.carried)
    carried.push_back(i.id);
  if (!carried.empty()) {
    auto r = c.query(open_carried_sql, b.org_id, bigint_array(carried));
    for (int i = 0; i < r.rows(); ++i)
      out.open_carried.push_back(r.int64(i, 0));
  }
  return out;
}

// One transaction: the storage worker runs an operation alone without BEGIN, and apart,
// the members' rows said SENT while the bundle was still CLAIMED and the contact's last
// message still the previous one (a reply in between answered the wrong message).
std::vector<recorded_outcome> record_bundle_outcome(connection& c,
                                                    const bundle_outcome& o) {
  auto work = [&] {
    auto recorded = record_outcomes(c, o.members);
    c.query(bundle_outcome_sql, o.org_id, o.bundle_id, o.status, o.error, o.at);
    return recorded;
  };
  return c.in_transaction() ? work() : transaction(c, work);
}

std::optional<answered_bundle> load_bundle(connection& c, int64_t bundle_id) {
  auto r = c.query(bundle_answer_sql, bundle_id);
  if (r.rows() != 1)
    return std::nullopt;
  answered_bundle out;
  out.org_id = r.int64(0, 0);
  out.id = bundle_id;
  out.channel = r.str(0, 1);
  out.target = r.str(0, 2);
  out.person = r.str(0, 3);
  std::vector<int64_t> ids;
  auto in = c.query(bundle_incidents_sql, out.org_id, bundle_id);
  for (int i = 0; i < in.rows(); ++i) {
    ids.push_back(in.int64(i, 0));
    if (in.boolean(i, 1))
      out.members.push_back(ids.back());
  }
  out.incidents = load_incidents(c, out.org_id, ids);
  return out;
}

std::optional<int64_t> last_bundle_to(connection& c, int64_t org_id,
                                      const std::string& channel,
                                      const std::string& target) {
  auto r = c.query(last_bundle_sql, org_id, channel, target);
  if (r.rows() != 1)
    return std::nullopt;
  return r.int64(0, 0);
}

std::vector<throttled_contact> throttled_contacts(connection& c, int64_t org_id,
                                                  int limit) {
  auto r = c.query(throttled_contacts_sql, org_id, limit);
  std::vector<throttled_contact> out;
  for (int i = 0; i < r.rows(); ++i)
    out.push_back({r.str(i, 0), r.str(i, 1), r.int64(i, 2), r.int64(i, 3)});
  return out;
}

} // namespace belay::storage
