// The line a log channel writes for a page: for trying belay out and for audits.
#pragma once

#include "protocol/page.hpp"

#include <string>
#include <string_view>

namespace belay::protocol {

// One line, whatever the titles hold:
//   page via log channel 'audit': incident 42 "Disk full" [CRITICAL] to 'ops' (key …)
//   status update via log channel 'audit': [belay] Acknowledged by alice via api: #42
//   Disk full to 'ops' (key …)
std::string log_line(const page& p, std::string_view channel);

} // namespace belay::protocol
