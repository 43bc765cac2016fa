// Server-side Lua for the Redis log. Running in Redis makes each step atomic across
// every hub process sharing the log: no two appends can interleave their indexes.
// Keys: 1 = counter (newest assigned index), 2 = stream, 3 = snapshot hash;
// appends and fences add 4 = this writer's hash (see APPEND_LUA).

/** How long Redis remembers a writer's last batch (ms): far longer than any resend after a reconnect. */
export const WRITER_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * ARGV = writer TTL (ms), batch sequence number, payloads in order. Reserves n
 * indexes with one INCRBY and adds each payload under the explicit stream ID
 * "<index>-1", so a stream ID is the log index. Returns the first index as a
 * decimal string (Lua numbers are doubles; strings are exact on the way out).
 *
 * Idempotent per (writer, sequence): KEYS[4] remembers the writer's newest batch
 * and where it landed. Sending the same batch again (after a connection dropped
 * with it in flight) returns the first send's index instead of appending twice;
 * an older sequence than the remembered one (a batch given up on and fenced, see
 * FENCE_LUA) is refused with STALE_BATCH and appends nothing.
 */
export const APPEND_LUA = `
local seq = tonumber(ARGV[2])
local w = redis.call('HMGET', KEYS[4], 'seq', 'first')
if w[1] and tonumber(w[1]) >= seq then
  if tonumber(w[1]) == seq and w[2] ~= '' then return w[2] end
  return redis.error_reply('STALE_BATCH ' .. w[1])
end
local n = #ARGV - 2
local last = redis.call('INCRBY', KEYS[1], n)
local first = last - n + 1
for i = 1, n do
  redis.call('XADD', KEYS[2], string.format('%d-1', first + i - 1), 'p', ARGV[i + 2])
end
local firstText = string.format('%d', first)
redis.call('HSET', KEYS[4], 'seq', ARGV[2], 'first', firstText)
redis.call('PEXPIRE', KEYS[4], ARGV[1])
return firstText
`;

/**
 * KEYS[1] = the writer's hash; ARGV = writer TTL (ms), sequence number of a batch
 * the writer gave up on. Afterwards that batch can never be appended (a late copy
 * of it gets STALE_BATCH). Returns the batch's first index if it had been appended
 * before the fence, '' if not: the writer learns the outcome it could not report.
 */
export const FENCE_LUA = `
local seq = tonumber(ARGV[2])
local w = redis.call('HMGET', KEYS[1], 'seq', 'first')
if w[1] and tonumber(w[1]) >= seq then
  if tonumber(w[1]) == seq then return w[2] end
  return ''
end
redis.call('HSET', KEYS[1], 'seq', ARGV[2], 'first', '')
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return ''
`;

/**
 * ARGV = snapshot index, state, cut (first index to keep). Refuses a snapshot older
 * than the saved one (another hub may have compacted meanwhile), saves it, trims.
 */
export const COMPACT_LUA = `
local saved = redis.call('HGET', KEYS[3], 'index')
if saved and tonumber(saved) > tonumber(ARGV[1]) then
  return redis.error_reply('OLDER_SNAPSHOT ' .. saved)
end
local last = tonumber(redis.call('GET', KEYS[1]) or '0')
if tonumber(ARGV[1]) > last then
  return redis.error_reply('BEYOND_LAST ' .. last)
end
redis.call('HSET', KEYS[3], 'index', ARGV[1], 'state', ARGV[2])
redis.call('XTRIM', KEYS[2], 'MINID', ARGV[3] .. '-0')
return 'OK'
`;

/** Returns { first retained index or '', newest index } in one atomic look. */
export const BOUNDS_LUA = `
local head = redis.call('XRANGE', KEYS[2], '-', '+', 'COUNT', 1)
local last = redis.call('GET', KEYS[1]) or '0'
if #head == 0 then return { '', last } end
return { head[1][1], last }
`;

/**
 * ARGV = start ID, count. One atomic look at { oldest ID or '', newest index, page
 * from start }, so "was start compacted?" is answered against the same state the page came from.
 */
export const READ_LUA = `
local head = redis.call('XRANGE', KEYS[2], '-', '+', 'COUNT', 1)
local page = redis.call('XRANGE', KEYS[2], ARGV[1], '+', 'COUNT', ARGV[2])
local headId = ''
if #head > 0 then headId = head[1][1] end
return { headId, redis.call('GET', KEYS[1]) or '0', page }
`;

/** KEYS[1] = the compaction claim; ARGV[1] = its owner. Ends the claim only if it is still that owner's. */
export const RELEASE_LUA = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;
