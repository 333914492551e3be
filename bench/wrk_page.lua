-- The sink floor: the page belay's webhook channel posts (actors/transport/webhook.cpp),
-- with its headers, each with its own idempotency key, so the sink does for each request
-- what it does for a page of the delivery scenario.
-- wrk -s bench/wrk_page.lua URL -- <run prefix>
package.path = "bench/?.lua;" .. package.path
require "wrk_common"

function init(args)
  prefix = args[1] or "page"
  wrk.method = "POST"
  wrk.headers["Content-Type"] = "application/json"
  wrk.headers["X-Belay-Signature"] =
    "sha256=5d41402abc4b2a76b9719d911017c592aaf4b3c2d4e1f0a9b8c7d6e5f4a3b2c1"
end

function request()
  counter = counter + 1
  local id = tid * 100000000 + counter
  local key = string.format("%s-%d:0:0:bench-hook:#ops", prefix, id)
  wrk.headers["Idempotency-Key"] = key
  return wrk.format(nil, nil, nil, string.format(
    '{"id":%d,"dedupKey":"drain-%d","title":"drain %d","severity":"critical",' ..
    '"status":"OPEN","loop":0,"step":0,"target":"#ops","attempt":1,' ..
    '"ackUrl":"http://127.0.0.1:18401/a/v1.%s.6f1c0a9e3b2d4c5a8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b"}',
    id, id, id, (key:gsub("[^%w]", ""))))
end
