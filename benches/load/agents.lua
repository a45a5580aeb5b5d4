-- wrk script for the load benchmark: GET <path> (default /api/agents; target 1 (d) reads
-- /api/conversations?assignee=all) with a workspace token drawn at random per request from a
-- file of tokens, one a line. Each token's request is formatted once, in `init`: the load
-- generator shares the machine's cores with the server, so it spends as little as it can.
-- Usage: wrk ... -s agents.lua <url> -- TOKENS_FILE [PATH]
local counter = 0
local threads = {}

function setup(thread)
  counter = counter + 1
  thread:set("id", counter)
  table.insert(threads, thread)
end

function init(args)
  local path = args[2] or "/api/agents"
  requests = {}
  for line in io.lines(args[1]) do
    if #line > 0 then
      requests[#requests + 1] = wrk.format("GET", path, { Authorization = "Bearer " .. line })
    end
  end
  count = #requests
  math.randomseed(os.time() * 1000 + id)
end

function request()
  return requests[math.random(count)]
end

-- One machine-readable line; the benchmark parses it. Latencies in microseconds.
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    "WRK requests=%d duration_us=%d connect=%d read=%d write=%d status=%d timeout=%d p50=%d p90=%d p99=%d max=%d\n",
    summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max))
end
