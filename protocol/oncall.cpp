#include "protocol/oncall.hpp"

#include "protocol/text.hpp"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

namespace belay::protocol {

namespace {

using std::chrono::seconds;

constexpr belay::micros micros_per_second = 1'000'000;

// Instants the date library handles without overflow: years 1 to 9999.
constexpr belay::micros earliest_supported = -62'135'596'800LL * micros_per_second;
constexpr belay::micros latest_supported = 253'402'300'799LL * micros_per_second;

int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

belay::micros micros_of(date::sys_seconds t) {
  return t.time_since_epoch().count() * micros_per_second;
}

date::sys_seconds seconds_of(belay::micros t) {
  return date::sys_seconds{seconds{floor_div(t, micros_per_second)}};
}

// docs/guarantees.md#on-call: a wall time in a gap moves to the first instant after it,
// an ambiguous one takes its first occurrence. choose::earliest does both: for a time in
// a gap date-tz returns the transition, which is the end of the gap.
belay::micros instant_of(const date::time_zone* zone, date::local_seconds t) {
  return micros_of(zone->to_sys(t, date::choose::earliest));
}

date::local_seconds local_of(const date::time_zone* zone, belay::micros t) {
  return zone->to_local(seconds_of(t));
}

// The handoffs of one rotation, by index: handoff k starts shift k.
class handoffs {
public:
  handoffs(const date::time_zone* zone, const rotation& r) : zone_(zone), r_(r) {}

  date::local_seconds local(int64_t k) const {
    const int64_t units = k * r_.length;
    switch (r_.type) {
    case rotation_type::hourly:
      return r_.start + std::chrono::hours{units};
    case rotation_type::daily:
      return r_.start + date::days{static_cast<int>(units)};
    case rotation_type::weekly:
      return r_.start + date::weeks{static_cast<int>(units)};
    case rotation_type::monthly:
      break;
    }
    // Each handoff is clamped from the start's own day, so Jan 31 gives Feb 28 and
    // then Mar 31, not Mar 28.
    const date::local_days start_day = date::floor<date::days>(r_.start);
    const date::year_month_day first{start_day};
    const date::year_month month = date::year_month{first.year(), first.month()} +
                                   date::months{static_cast<int>(units)};
    const date::day last = (month / date::last).day();
    const date::day day = std::min(first.day(), last);
    return date::local_days{month / day} + (r_.start - start_day);
  }

  belay::micros at(int64_t k) const { return instant_of(zone_, local(k)); }

  // The shift running at `t`: the largest k with at(k) ≤ t, negative before the
  // start. Estimated from wall-clock arithmetic, then corrected by a step or two
  // where daylight saving makes wall clock and instants disagree.
  int64_t index_at(belay::micros t) const {
    int64_t k = estimate(local_of(zone_, t));
    while (at(k) > t)
      --k;
    while (at(k + 1) <= t)
      ++k;
    return k;
  }

private:
  int64_t estimate(date::local_seconds t) const {
    int64_t unit_seconds = 0;
    switch (r_.type) {
    case rotation_type::hourly:
      unit_seconds = 3600;
      break;
    case rotation_type::daily:
      unit_seconds = 86'400;
      break;
    case rotation_type::weekly:
      unit_seconds = 7 * 86'400;
      break;
    case rotation_type::monthly: {
      const date::year_month_day from{date::floor<date::days>(r_.start)};
      const date::year_month_day to{date::floor<date::days>(t)};
      const int64_t months =
          (static_cast<int>(to.year()) - static_cast<int>(from.year())) * 12 +
          (static_cast<int>(static_cast<unsigned>(to.month())) -
           static_cast<int>(static_cast<unsigned>(from.month())));
      return floor_div(months, r_.length);
    }
    }
    return floor_div((t - r_.start).count(), unit_seconds * r_.length);
  }

  const date::time_zone* zone_;
  const rotation& r_;
};

struct span {
  belay::micros start;
  belay::micros end;
};

// A stretch of one layer: who, from when to when.
struct piece {
  belay::micros start;
  belay::micros end;
  const std::string* user;
};

bool one_person(const layer& l) {
  return std::all_of(l.users.begin(), l.users.end(),
                     [&](const std::string& u) { return u == l.users.front(); });
}

// The rotation's shifts overlapping [from, to), clipped.
std::vector<piece> rotation_pieces(const date::time_zone* zone, const layer& l,
                                   belay::micros from, belay::micros to) {
  std::vector<piece> out;
  const handoffs h(zone, l.rotation);
  // A one-person rotation never hands over: no need to walk its handoffs.
  if (one_person(l)) {
    const belay::micros first = std::max(h.at(0), from);
    if (first < to)
      out.push_back({first, to, &l.users.front()});
    return out;
  }
  const auto n = static_cast<int64_t>(l.users.size());
  int64_t k = std::max<int64_t>(0, h.index_at(from));
  for (belay::micros begin = h.at(k); begin < to; ++k) {
    const belay::micros end = h.at(k + 1);
    if (end > from && end > begin)
      out.push_back({std::max(begin, from), std::min(end, to), &l.users[k % n]});
    begin = end;
  }
  return out;
}

// The union of the restriction windows overlapping [from, to), clipped, in order.
std::vector<span> window_spans(const date::time_zone* zone,
                               const std::vector<restriction>& restrictions,
                               belay::micros from, belay::micros to) {
  std::vector<span> windows;
  // A window lasts at most a day, so one that covers `from` began on its local day or
  // the day before.
  const date::local_days first =
      date::floor<date::days>(local_of(zone, from)) - date::days{1};
  const date::local_days last = date::floor<date::days>(local_of(zone, to));
  for (date::local_days day = first; day <= last; day += date::days{1}) {
    const unsigned weekday = date::weekday{day}.c_encoding();
    for (const restriction& r : restrictions) {
      if (!r.days[weekday])
        continue;
      const date::local_days end_day = r.end <= r.start ? day + date::days{1} : day;
      const belay::micros start =
          std::max(from, instant_of(zone, day + std::chrono::minutes{r.start}));
      const belay::micros end =
          std::min(to, instant_of(zone, end_day + std::chrono::minutes{r.end}));
      if (start < end)
        windows.push_back({start, end});
    }
  }
  std::sort(windows.begin(), windows.end(),
            [](const span& a, const span& b) { return a.start < b.start; });
  std::vector<span> merged;
  for (const span& w : windows) {
    if (!merged.empty() && w.start <= merged.back().end)
      merged.back().end = std::max(merged.back().end, w.end);
    else
      merged.push_back(w);
  }
  return merged;
}

// Both inputs sorted and disjoint.
std::vector<piece> within(const std::vector<piece>& pieces,
                          const std::vector<span>& windows) {
  std::vector<piece> out;
  std::size_t w = 0;
  for (const piece& p : pieces) {
    while (w < windows.size() && windows[w].end <= p.start)
      ++w;
    for (std::size_t i = w; i < windows.size() && windows[i].start < p.end; ++i) {
      const belay::micros start = std::max(p.start, windows[i].start);
      const belay::micros end = std::min(p.end, windows[i].end);
      if (start < end)
        out.push_back({start, end, p.user});
    }
  }
  return out;
}

std::vector<piece> layer_pieces(const date::time_zone* zone, const layer& l,
                                belay::micros from, belay::micros to) {
  // Guards against records that skipped check_schedule: no users or a zero length
  // would divide by zero or never advance.
  if (l.users.empty() || l.rotation.length < 1 || l.rotation.length > max_rotation_length)
    return {};
  std::vector<piece> pieces = rotation_pieces(zone, l, from, to);
  if (l.restrictions.empty() || pieces.empty())
    return pieces;
  return within(pieces, window_spans(zone, l.restrictions, from, to));
}

const date::time_zone* zone_of(const schedule& s) {
  if (s.zone)
    return s.zone;
  if (const date::time_zone* zone = find_time_zone(s.time_zone))
    return zone;
  throw std::invalid_argument("schedule \"" + s.name + "\" has an unknown time zone \"" +
                              s.time_zone + "\"; check_schedule refuses it");
}

} // namespace

std::vector<shift> final_shifts(const schedule& s,
                                const std::vector<schedule_override>& overrides,
                                belay::micros from, belay::micros to) {
  from = std::clamp(from, earliest_supported, latest_supported);
  to = std::clamp(to, earliest_supported, latest_supported);
  std::vector<shift> out;
  if (from >= to)
    return out;
  const date::time_zone* zone = zone_of(s);

  std::vector<std::vector<piece>> layers;
  std::vector<std::string> layer_sources;
  std::vector<belay::micros> bounds{from, to};
  for (const layer& l : s.layers) {
    layers.push_back(layer_pieces(zone, l, from, to));
    layer_sources.push_back("layer:" + l.name);
    for (const piece& p : layers.back()) {
      bounds.push_back(p.start);
      bounds.push_back(p.end);
    }
  }
  std::vector<const schedule_override*> active;
  for (const schedule_override& o : overrides) {
    if (o.start < to && o.end > from && o.start < o.end) {
      active.push_back(&o);
      bounds.push_back(std::max(o.start, from));
      bounds.push_back(std::min(o.end, to));
    }
  }
  // Applied oldest first, so the one created last has the final word.
  std::sort(active.begin(), active.end(), [](auto* a, auto* b) {
    return a->created_at != b->created_at ? a->created_at < b->created_at : a->id < b->id;
  });
  std::sort(bounds.begin(), bounds.end());
  bounds.erase(std::unique(bounds.begin(), bounds.end()), bounds.end());

  // Between two neighbouring bounds nothing changes: decide who is on call once per
  // stretch, then merge neighbours with the same person.
  std::vector<std::size_t> cursor(layers.size(), 0);
  for (std::size_t b = 0; b + 1 < bounds.size(); ++b) {
    const belay::micros start = bounds[b];
    const belay::micros end = bounds[b + 1];
    const std::string* from_layers = nullptr;
    const std::string* source = nullptr;
    for (std::size_t i = 0; i < layers.size(); ++i) {
      auto& c = cursor[i];
      while (c < layers[i].size() && layers[i][c].end <= start)
        ++c;
      if (c < layers[i].size() && layers[i][c].start <= start) {
        from_layers = layers[i][c].user;
        source = &layer_sources[i];
      }
    }
    const std::string* user = from_layers;
    std::string override_source;
    for (const schedule_override* o : active) {
      if (o->start > start || o->end <= start)
        continue;
      const bool stands_in =
          o->replaces && ((from_layers && *from_layers == *o->replaces) ||
                          (user && *user == *o->replaces));
      if (!o->replaces || stands_in) {
        user = &o->user;
        override_source = "override:" + std::to_string(o->id);
      }
    }
    if (!user)
      continue;
    if (!out.empty() && out.back().end == start && out.back().user == *user) {
      out.back().end = end;
      continue;
    }
    out.push_back(
        {*user, start, end, override_source.empty() ? *source : override_source});
  }
  return out;
}

std::optional<shift> on_call_at(const schedule& s,
                                const std::vector<schedule_override>& overrides,
                                belay::micros at) {
  // Widen the look around `at` until the shift found starts and ends inside it. Most
  // shifts are found at the first or second width; the limit bounds the cost of one
  // that never ends.
  constexpr belay::micros day = 24LL * 3600 * micros_per_second;
  at = std::clamp(at, earliest_supported + on_call_search_limit,
                  latest_supported - on_call_search_limit);
  for (belay::micros reach = day;; reach = std::min(2 * reach, on_call_search_limit)) {
    const belay::micros from = at - reach;
    const belay::micros to = at + reach;
    std::vector<shift> shifts = final_shifts(s, overrides, from, to);
    auto now = std::find_if(shifts.begin(), shifts.end(),
                            [&](const shift& f) { return f.start <= at && at < f.end; });
    if (now == shifts.end())
      return std::nullopt;
    if ((now->start > from && now->end < to) || reach >= on_call_search_limit)
      return std::move(*now);
  }
}

const date::time_zone* find_time_zone(std::string_view iana_name) {
  if (iana_name.empty())
    return nullptr;
  try {
    return date::locate_zone(iana_name);
  } catch (const std::exception&) {
    // Unknown names throw, and so does a missing tz database: both leave no zone.
    return nullptr;
  }
}

std::optional<rotation_type> rotation_type_named(std::string_view name) {
  for (std::size_t i = 0; i < rotation_type_names.size(); ++i)
    if (rotation_type_names[i] == name)
      return static_cast<rotation_type>(i);
  return std::nullopt;
}

const char* rotation_type_name(rotation_type type) {
  return rotation_type_names[static_cast<std::size_t>(type)].data();
}

std::optional<unsigned> weekday_named(std::string_view name) {
  for (std::size_t i = 0; i < weekday_names.size(); ++i)
    if (weekday_names[i] == name)
      return static_cast<unsigned>(i);
  return std::nullopt;
}

namespace {

// Exactly `digits` ASCII digits from `text` at `at`.
std::optional<int> number_at(std::string_view text, std::size_t at, std::size_t digits) {
  if (at + digits > text.size())
    return std::nullopt;
  int value = 0;
  for (std::size_t i = at; i < at + digits; ++i) {
    if (text[i] < '0' || text[i] > '9')
      return std::nullopt;
    value = value * 10 + (text[i] - '0');
  }
  return value;
}

std::optional<int> hours_minutes(std::string_view text) {
  const auto hours = number_at(text, 0, 2);
  const auto minutes = number_at(text, 3, 2);
  if (text.size() != 5 || text[2] != ':' || !hours || !minutes || *hours > 23 ||
      *minutes > 59)
    return std::nullopt;
  return *hours * 60 + *minutes;
}

} // namespace

std::optional<int> parse_time_of_day(std::string_view text) {
  return hours_minutes(text);
}

std::string time_of_day_text(int minutes) {
  char text[16];
  std::snprintf(text, sizeof text, "%02d:%02d", minutes / 60, minutes % 60);
  return text;
}

std::optional<date::local_seconds> parse_local_date_time(std::string_view text) {
  if (text.size() != 16 && text.size() != 19)
    return std::nullopt;
  const auto year = number_at(text, 0, 4);
  const auto month = number_at(text, 5, 2);
  const auto day = number_at(text, 8, 2);
  const auto time = hours_minutes(text.substr(11, 5));
  const auto second = text.size() == 19 ? number_at(text, 17, 2) : std::optional<int>{0};
  if (!year || !month || !day || !time || !second || text[4] != '-' || text[7] != '-' ||
      text[10] != 'T' || (text.size() == 19 && text[16] != ':') || *year < 1970 ||
      *second > 59)
    return std::nullopt;
  const date::year_month_day ymd{date::year{*year}, date::month{unsigned(*month)},
                                 date::day{unsigned(*day)}};
  if (!ymd.ok())
    return std::nullopt;
  return date::local_days{ymd} + std::chrono::minutes{*time} + seconds{*second};
}

std::string local_date_time_text(date::local_seconds t) {
  const date::local_days day = date::floor<date::days>(t);
  const date::year_month_day ymd{day};
  const auto time = (t - day).count();
  char text[64];
  std::snprintf(text, sizeof text, "%04d-%02u-%02uT%02d:%02d",
                static_cast<int>(ymd.year()), static_cast<unsigned>(ymd.month()),
                static_cast<unsigned>(ymd.day()), static_cast<int>(time / 3600),
                static_cast<int>(time / 60 % 60));
  std::string out = text;
  if (time % 60 != 0) {
    std::snprintf(text, sizeof text, ":%02d", static_cast<int>(time % 60));
    out += text;
  }
  return out;
}

namespace {

error invalid(std::string field, std::string message) {
  return error{400, "invalid_value", "'" + field + "' " + std::move(message),
               std::move(field)};
}

} // namespace

std::optional<error> check_schedule(schedule& s) {
  if (is_blank(s.name))
    return invalid("name", "must not be empty or blank");
  s.zone = find_time_zone(s.time_zone);
  if (!s.zone)
    return invalid("timeZone",
                   "must be an IANA time zone such as \"Europe/Berlin\", not \"" +
                       abbreviate(s.time_zone) + "\"");
  if (s.layers.empty())
    return invalid("layers", "must not be empty");
  for (std::size_t i = 0; i < s.layers.size(); ++i) {
    const layer& l = s.layers[i];
    const std::string path = element_path("layers", i);
    if (is_blank(l.name))
      return invalid(member_path(path, "name"), "must not be empty or blank");
    for (std::size_t j = 0; j < i; ++j)
      if (s.layers[j].name == l.name)
        return invalid(member_path(path, "name"),
                       "repeats the layer name \"" + l.name + "\" of " +
                           member_path(element_path("layers", j), "name"));
    if (l.users.empty())
      return invalid(member_path(path, "users"),
                     "must not be empty: a rotation needs someone to rotate");
    for (std::size_t u = 0; u < l.users.size(); ++u)
      if (is_blank(l.users[u]))
        return invalid(element_path(member_path(path, "users"), u),
                       "must not be empty or blank");
    const std::string rotation_path = member_path(path, "rotation");
    if (static_cast<std::size_t>(l.rotation.type) >= rotation_type_names.size())
      return invalid(member_path(rotation_path, "type"),
                     "must be one of hourly, daily, weekly, monthly");
    if (l.rotation.length < 1 || l.rotation.length > max_rotation_length)
      return invalid(member_path(rotation_path, "length"),
                     "must be from 1 to " + std::to_string(max_rotation_length) +
                         ", not " + std::to_string(l.rotation.length));
    const date::local_days start_day = date::floor<date::days>(l.rotation.start);
    if (date::year_month_day{start_day}.year() < date::year{1970} ||
        date::year_month_day{start_day}.year() > date::year{9999})
      return invalid(member_path(rotation_path, "start"),
                     "must be in the years 1970 to 9999");
    for (std::size_t r = 0; r < l.restrictions.size(); ++r) {
      const restriction& w = l.restrictions[r];
      const std::string restriction_path =
          element_path(member_path(path, "restrictions"), r);
      if (std::none_of(w.days.begin(), w.days.end(), [](bool d) { return d; }))
        return invalid(member_path(restriction_path, "days"),
                       "must name at least one day");
      if (w.start < 0 || w.start >= 24 * 60)
        return invalid(member_path(restriction_path, "start"),
                       "must be a time of day from 00:00 to 23:59");
      if (w.end < 0 || w.end >= 24 * 60)
        return invalid(member_path(restriction_path, "end"),
                       "must be a time of day from 00:00 to 23:59");
    }
  }
  return std::nullopt;
}

std::optional<error> check_override(const schedule_override& o) {
  if (is_blank(o.user))
    return invalid("user", "must not be empty or blank");
  if (o.replaces && is_blank(*o.replaces))
    return invalid("replaces", "must not be empty or blank");
  if (o.replaces && *o.replaces == o.user)
    return invalid("replaces",
                   "must name someone other than the user \"" + o.user + "\"");
  if (o.end <= o.start)
    return invalid("end", "must be after start");
  return std::nullopt;
}

} // namespace belay::protocol
