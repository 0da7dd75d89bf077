-- wrk script for the I2L benchmark: every request is GET /uri-res/I2L?<name>
-- with a name picked at random (uniformly) from NAMES (env, one a line),
-- the same list and the same requests for urikit and nginx. At the end it
-- prints one machine-readable line:
--   RESULT requests=N seconds=S rps=R p50_us=A p99_us=B p999_us=C non3xx=E errors=F
local names = {}
local path_prefix = "/uri-res/I2L?"

function setup(thread)
  thread:set("id", 1)
end

function init(args)
  local file = os.getenv("NAMES")
  for line in io.lines(file) do
    names[#names + 1] = line
  end
  math.randomseed(os.time())
end

function request()
  return wrk.format("GET", path_prefix .. names[math.random(#names)])
end

function done(summary, latency, requests)
  local s = summary.duration / 1e6
  local e = summary.errors
  io.write(string.format(
    "RESULT requests=%d seconds=%.2f rps=%.0f p50_us=%d p99_us=%d p999_us=%d non3xx=%d errors=%d\n",
    summary.requests, s, summary.requests / s,
    latency:percentile(50), latency:percentile(99), latency:percentile(99.9),
    e.status, e.connect + e.read + e.write + e.timeout))
end
