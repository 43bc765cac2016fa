// Token bucket for new streams: a reconnect storm after a restart must not take
// the hub down. Burst = one second's worth; 0 = no limit.

export interface RateLimiter {
  tryTake(): boolean;
}

export function tokenBucket(perSecond: number, now: () => number = Date.now): RateLimiter {
  if (perSecond <= 0) return { tryTake: () => true };
  let tokens = perSecond;
  let last = now();
  return {
    tryTake() {
      const t = now();
      tokens = Math.min(perSecond, tokens + ((t - last) * perSecond) / 1000);
      last = t;
      if (tokens < 1) return false;
      tokens -= 1;
      return true;
    },
  };
}
