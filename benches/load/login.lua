-- wrk script for the load benchmark: a flood of valid logins (POST /auth/login), each from
-- a different client address (X-Forwarded-For, believed because the server runs with
-- TRUSTED_PROXIES=127.0.0.1/32), so the per-client login throttle does not answer them.
-- Usage: wrk ... -s login.lua <url> -- EMAILS_FILE PASSWORD
local counter = 0

function setup(thread)
  counter = counter + 1
  thread:set("id", counter)
end

function init(args)
  emails = {}
  for line in io.lines(args[1]) do
    if #line > 0 then
      emails[#emails + 1] = line
    end
  end
  password = args[2]
  math.randomseed(os.time() * 1000 + id)
  headers = { ["Content-Type"] = "application/json" }
end

function request()
  headers["X-Forwarded-For"] = string.format("10.%d.%d.%d",
    math.random(0, 255), math.random(0, 255), math.random(1, 254))
  local body = string.format('{"email":"%s","password":"%s"}',
    emails[math.random(#emails)], password)
  return wrk.format("POST", "/auth/login", headers, body)
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    "WRK requests=%d duration_us=%d connect=%d read=%d write=%d status=%d timeout=%d p50=%d p90=%d p99=%d max=%d\n",
    summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max))
end
