-- ingest-new: every request a dedup key no request of this run used before.
-- wrk -s bench/wrk_new.lua URL -- <run prefix> <org api key> <policy>
package.path = "bench/?.lua;" .. package.path
require "wrk_common"

function init(args)
  prefix = args[1] or "new"
  policy = args[3] or "bench-far"
  wrk.method = "POST"
  wrk.headers["Content-Type"] = "application/json"
  wrk.headers["Authorization"] = "Bearer " .. (args[2] or "bench-key")
end

function request()
  counter = counter + 1
  local key = string.format("%s-%d-%d", prefix, tid, counter)
  return wrk.format(nil, nil, nil, string.format(
    '{"dedupKey":"%s","title":"bench %s","policy":"%s","severity":"critical"}', key, key, policy))
end
