// Every SQL statement about contacts (DESIGN.md §14, docs/architecture.md#storms): claims
// of throttling or bundling channels, their bundles' checks and outcomes, and what an
// answer to a bundle reads.
#pragma once

#include "storage/deliveries.hpp"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace belay::storage {

class connection;

// One message carrying several pages (or status updates) to one contact.
struct claimed_bundle {
  int64_t org_id = 0;
  int64_t id = 0;
  std::string kind; // page | update
  int attempts = 0; // counting the attempt about to be made
  std::string idempotency_key;
  std::vector<claimed_delivery> members;
  // The incidents it speaks of without a page of its own (the contact's last message's,
  // still open, when pages had to wait for the throttle).
  std::vector<incident_record> carried;
};

struct contact_claim {
  std::vector<claimed_delivery> pages; // one message each; CANCELLED ones never sent
  std::vector<claimed_bundle> bundles;
  int64_t held = 0;              // the channel's pages the throttle holds now
  std::optional<micros> opens_at; // when the first of them may go
};

// belay_claim_contacts (migration 0024) for the request's channel, with the channel's
// throttles and bundling.
contact_claim claim_contacts(connection& c, const claim_request& r,
                             const channel_config& ch, int max_members);

} // namespace belay::storage
