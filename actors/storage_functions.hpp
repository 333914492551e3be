// Everything the rows of actors/storage_operations.def name, complete: the storage::
// functions and their arguments and replies. Only the storage actors, which call the
// functions and build the messages, include it; a storage header that holds a row's
// function is added here.
#pragma once

#include "storage/actions.hpp"
#include "storage/contacts.hpp"
#include "storage/deliveries.hpp"
#include "storage/heartbeats.hpp"
#include "storage/incidents.hpp"
#include "storage/maintenance.hpp"
#include "storage/schedules.hpp"
