-- ingest-dup: 100 hot dedup keys hammered in turn; after the first 100 requests every
-- event is a duplicate of an open incident.
-- wrk -s bench/wrk_dup.lua URL -- <run prefix> <org api key> <policy>
package.path = "bench/?.lua;" .. package.path
require "wrk_common"

local hot_keys = 100

function init(args)
  prefix = args[1] or "dup"
  policy = args[3] or "bench-far"
  wrk.method = "POST"
  wrk.headers["Content-Type"] = "application/json"
  wrk.headers["Authorization"] = "Bearer " .. (args[2] or "bench-key")
end

function request()
  counter = counter + 1
  local key = string.format("%s-hot-%d", prefix, (counter * 7 + tid * 13) % hot_keys)
  return wrk.format(nil, nil, nil, string.format(
    '{"dedupKey":"%s","title":"bench %s","policy":"%s","severity":"critical"}', key, key, policy))
end
