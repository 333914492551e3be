// Every SQL statement about contacts (docs/architecture.md#storms): the claims of a
// channel that throttles or bundles, its bundles' last check and outcome, and what an
// answer to a bundle reads. A contact is an org's channel and a `to`.
#pragma once

#include "protocol/views.hpp"
#include "storage/deliveries.hpp"

#include <optional>
#include <string>
#include <vector>

namespace belay::storage {

class connection;

// One message carrying several pages (or status updates) to one contact.
struct claimed_bundle {
  int64_t org_id = 0;
  int64_t id = 0;
  std::string channel;
  std::string target;
  bool update = false; // a bundle of status updates
  std::vector<claimed_delivery> members;
  // The incidents it speaks of without a page of its own: the contact's last message's,
  // still open, when pages had to wait for the throttle.
  std::vector<incident_record> carried;
};

struct contact_request {
  claim_request claim;
  throttle_windows page_windows;
  throttle_windows update_windows;
  bool bundle = false;
  int max_members = 1000;
};

struct contact_claim {
  std::vector<claimed_delivery> pages; // one message each; CANCELLED ones are not sent
  std::vector<claimed_bundle> bundles;
  int64_t held = 0;               // the channel's pages the throttle holds now
  std::optional<micros> opens_at; // when the first of them may go
};

// belay_claim_contacts (migration 0024): per contact with due pages, one message if its
// throttle lets one through — a page, or a bundle of all that wait when the channel
// bundles; the rest wait PENDING, held by the throttle, due when it opens.
contact_claim claim_contacts(connection& c, const contact_request& r);

// Right before a bundle is sent (G4 per member): members whose incident was settled are
// cancelled (with their timeline entry), the others' claims renewed until
// `lease_until`; carried incidents no longer open are dropped. A bundle left without a
// member is CANCELLED and gives its throttle slot back.
struct bundle_recheck {
  claimed_bundle bundle;
  std::string node;
  micros now = 0;
  micros lease_until = 0;
};
struct checked_bundle {
  std::vector<int64_t> live_members; // delivery ids
  std::vector<int64_t> open_carried; // incident ids
  bool cancelled() const { return live_members.empty(); }
};
checked_bundle recheck_bundle(connection& c, const bundle_recheck& r);

// One attempt of a bundle: every live member's outcome (outcome_of each), and the
// bundle's. Sent, the bundle becomes the contact's last message (for replies).
struct bundle_outcome {
  int64_t org_id = 0;
  int64_t bundle_id = 0;
  std::string status; // SENT, PENDING (retried whole), DEAD
  std::string error;
  micros at = 0;
  std::vector<outcome_event> members;
};
std::vector<recorded_outcome> record_bundle_outcome(connection& c,
                                                    const bundle_outcome& o);

// What an answer through a bundle's token (or a reply after it) acts on.
struct answered_bundle {
  int64_t org_id = 0;
  int64_t id = 0;
  std::string channel;
  std::string target;
  std::string person;                     // the user its pages went to, else the address
  std::vector<incident_record> incidents; // by id
  std::vector<int64_t> members;           // those it carries a page of; the rest carried
};
std::optional<answered_bundle> load_bundle(connection& c, int64_t bundle_id);

// The bundle the contact's last message was, if it was one.
std::optional<int64_t> last_bundle_to(connection& c, int64_t org_id,
                                      const std::string& channel,
                                      const std::string& target);

// The org's contacts whose pages wait for their throttle, by channel and address (at
// most `limit`), for the inspector.
std::vector<throttled_contact> throttled_contacts(connection& c, int64_t org_id,
                                                  int limit);

} // namespace belay::storage
