// A Publisher driven by the test: every subscribe() opens a ScriptedSubscription
// that the test feeds item by item, fails with a HubError, or ends. Requests are
// recorded, and each subscription says when its subscriber cancelled it.
import type { HubError } from '../../src/errors';
import type { Publisher, StreamItem, SubscribeRequest, Subscription } from '../../src/subscribe/types';

export interface ScriptedSubscription {
  readonly request: SubscribeRequest;
  push(...items: StreamItem[]): void;
  fail(err: HubError): void;
  end(): void;
  /** Settles when the subscriber cancelled (its signal aborted). */
  readonly cancelled: Promise<void>;
}

export interface ScriptedPublisher extends Publisher {
  /** The next subscription opened (waits for it). */
  next(): Promise<ScriptedSubscription>;
  readonly requests: SubscribeRequest[];
}

type Step = { item: StreamItem } | { error: HubError } | { end: true };

export function createScriptedPublisher(): ScriptedPublisher {
  const opened: ScriptedSubscription[] = [];
  const takers: ((s: ScriptedSubscription) => void)[] = [];
  const requests: SubscribeRequest[] = [];

  function open(request: SubscribeRequest, signal: AbortSignal): Subscription {
    requests.push(request);
    const steps: Step[] = [];
    let wake: (() => void) | undefined;
    const feed = (s: Step) => {
      steps.push(s);
      wake?.();
    };
    const cancelled = new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      signal.addEventListener(
        'abort',
        () => {
          resolve();
          wake?.();
        },
        { once: true },
      );
    });
    const sub: ScriptedSubscription = {
      request,
      push: (...items) => items.forEach((item) => feed({ item })),
      fail: (error) => feed({ error }),
      end: () => feed({ end: true }),
      cancelled,
    };
    const taker = takers.shift();
    if (taker) taker(sub);
    else opened.push(sub);

    return {
      async *[Symbol.asyncIterator]() {
        for (;;) {
          if (signal.aborted) return;
          const step = steps.shift();
          if (step === undefined) {
            await new Promise<void>((resolve) => (wake = resolve));
            wake = undefined;
            continue;
          }
          if ('item' in step) yield step.item;
          else if ('error' in step) throw step.error;
          else return;
        }
      },
    };
  }

  return {
    requests,
    subscribe: open,
    next() {
      const ready = opened.shift();
      if (ready) return Promise.resolve(ready);
      return new Promise((resolve) => takers.push(resolve));
    },
    close() {},
  };
}
