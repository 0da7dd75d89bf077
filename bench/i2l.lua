-- wrk script for the I2L benchmark: every request is GET /uri-res/I2L?<name>
-- with a name picked at random (uniformly) from NAMES (env, one a line),
-- the same list and the same requests for every server. At the end it
-- prints one machine-readable line:
--   RESULT requests=N seconds=S rps=R p50_us=A p99_us=B p999_us=C non3xx=E errors=F
--
-- The requests are built once, in init, before wrk starts its clock.
-- Building each one in request() made a new Lua string a request, and
-- LuaJIT interns every string: with a million distinct names, its string
-- table and collector stalled wrk's one thread for up to a quarter of a
-- second now and then. wrk then adds its coordinated-omission correction
-- (stats_correct: samples for the requests a stalled connection would have
-- sent), so the stalls showed up as a p99 of 40-200 ms for every server,
-- even one that answers without a lookup, and capped the request rate.
local prepared = {}

function init(args)
  local prefix = "/uri-res/I2L?"
  for line in io.lines(os.getenv("NAMES")) do
    prepared[#prepared + 1] = wrk.format("GET", prefix .. line)
  end
  math.randomseed(os.time())
end

function request()
  return prepared[math.random(#prepared)]
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
