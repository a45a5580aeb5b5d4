-- wrk script for the load benchmark: GET <path> (default /api/agents; target 1 (d) reads
-- /api/conversations?assignee=all) with a workspace token drawn at random per request from a
-- file of tokens, one a line.
-- Usage: wrk ... -s agents.lua <url> -- TOKENS_FILE [PATH]
local counter = 0
local threads = {}

function setup(thread)
  counter = counter + 1
  thread:set("id", counter)
  table.insert(threads, thread)
end

function init(args)
  tokens = {}
  for line in io.lines(args[1]) do
    if #line > 0 then
      tokens[#tokens + 1] = "Bearer " .. line
    end
  end
  path = args[2] or "/api/agents"
  math.randomseed(os.time() * 1000 + id)
  headers = {}
end

function request()
  headers["Authorization"] = tokens[math.random(#tokens)]
  return wrk.format("GET", path, headers)
end

-- One machine-readable line; the benchmark parses it. Latencies in microseconds.
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    "WRK requests=%d duration_us=%d connect=%d read=%d write=%d status=%d timeout=%d p50=%d p90=%d p99=%d max=%d\n",
    summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max))
end
