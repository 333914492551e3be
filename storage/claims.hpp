// What both kinds of claim do first (storage::claim_due, storage::claim_contacts).
#pragma once

#include "storage/deliveries.hpp"

namespace belay::storage {

// When `r.release_unheld`: this node's claims on the channel that are not among `r.held`
// go back to the pool, their attempt not made (claimed rows its channel actor does not
// know of: a claim that committed unseen, or a life of the actor that crashed).
void release_unheld_claims(connection& c, const claim_request& r);

} // namespace belay::storage
