-- Shared by the wrk scripts of scripts/bench: thread ids and a JSON summary line.
-- setup() runs in the main Lua state once per wrk thread; thread:set() gives each
-- thread's own state a distinct `tid`, so thread id + a per-thread counter never repeats.
local next_tid = 0

function setup(thread)
  thread:set("tid", next_tid)
  next_tid = next_tid + 1
end

counter = 0

-- One line the bench script greps for; latency in microseconds.
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'BENCHJSON {"requests":%d,"durationUs":%d,"bytes":%d,"connectErrors":%d,"readErrors":%d,' ..
    '"writeErrors":%d,"statusErrors":%d,"timeouts":%d,"p50Us":%d,"p90Us":%d,"p99Us":%d,"maxUs":%d}\n',
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status,
    e.timeout, latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max))
end
