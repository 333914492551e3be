// The shell of every HTML page belay serves to people (the answer page, the sign-in
// page): a small, complete HTML5 document that reads well on a phone, with its style
// inline and nothing fetched from elsewhere, kept out of referrers and search engines.
#pragma once

#include <string>
#include <string_view>

namespace belay::protocol {

// `title` is escaped; `main` is the page's body, already HTML.
std::string html_document(std::string_view title, const std::string& main);

} // namespace belay::protocol
