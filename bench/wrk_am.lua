-- The peer: distinct alerts to Alertmanager's POST /api/v2/alerts, one alert per request,
-- each with its own `instance` label so that group_by [alertname, instance] makes every
-- alert its own group (one notification each).
-- wrk -s bench/wrk_am.lua URL/api/v2/alerts -- <run prefix>
package.path = "bench/?.lua;" .. package.path
require "wrk_common"

function init(args)
  prefix = args[1] or "am"
  wrk.method = "POST"
  wrk.headers["Content-Type"] = "application/json"
end

function request()
  counter = counter + 1
  local instance = string.format("%s-%d-%d", prefix, tid, counter)
  return wrk.format(nil, nil, nil, string.format(
    '[{"labels":{"alertname":"BenchAlert","instance":"%s","job":"bench"},' ..
    '"annotations":{"summary":"bench %s"}}]', instance, instance))
end
