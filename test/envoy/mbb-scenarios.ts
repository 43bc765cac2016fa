// Make-before-break under load, shared by the suite (short runs) and
// bench/envoy-load.ts (long runs): an open-loop client sends requests through
// an Envoy gateway at a fixed rate — each request leaves on its schedule
// whether or not earlier ones have answered — while the hub moves traffic:
//   (a) a route moves from service A to service B,
//   (b) a service leaves a route and is then deregistered and its entries deleted,
//   (c) half the endpoints of a service churn every 100 ms,
//   (d) a service-splitter moves from 0 to 100 in steps of 10.
// Every answer must be a 200 from a backend: a 5xx or a connection error is a
// broken update. The counts (the client's and Envoy's own, open-loop.ts) are
// returned for the caller to print and check.
import type { Hub } from '../../src/hub';
import type { Envoy } from '../helpers/envoy';
import { letTimePass } from '../helpers/until';
import { type Backend, freePort, hubCall, startBackend, startGateway, startHubWithXds, untilServedBy } from './harness';
import { type LoadCounts, openLoop, untilOnly } from './open-loop';

export interface MbbOptions {
  rate: number;
  /** (c): how long the endpoints churn. */
  churnMs: number;
  /** (d) and (a)/(b): pause between steps. */
  stepMs: number;
}

export interface MbbWorld {
  hub: Hub;
  envoy: Envoy;
  port: number;
  backend(name: string): Promise<Backend>;
  register(service: string, b: Backend): Promise<unknown>;
  deregister(b: Backend): Promise<unknown>;
  put(entry: Record<string, unknown>): Promise<unknown>;
  close(): Promise<void>;
}

const SERVICES = ['moving', 'leaving', 'churning', 'splitting'];
/** Why a scenario pauses between steps: the load runs through each state for a while. */
const STEP = 'traffic runs through each step for stepMs';

export async function mbbWorld(): Promise<MbbWorld> {
  const hub = await startHubWithXds();
  const backends: Backend[] = [];
  const port = await freePort();
  const put = (entry: Record<string, unknown>) => hubCall(hub.httpUrl, 'PUT', '/v1/config', entry);
  await put({
    Kind: 'ingress-gateway',
    Name: 'edge',
    Listeners: [{ Port: port, Protocol: 'http', Services: SERVICES.map((s) => ({ Name: s, Hosts: [s] })) }],
  });
  for (const s of SERVICES) await put({ Kind: 'service-defaults', Name: s, Protocol: 'http' });
  const envoy = await startGateway(hub, 'delta-ads', 'edge', 'mbb');
  return {
    hub,
    envoy,
    port,
    async backend(name) {
      const b = await startBackend(name);
      backends.push(b);
      return b;
    },
    register: (service, b) =>
      hubCall(hub.httpUrl, 'PUT', '/v1/catalog/register', {
        Node: 'mbb-node',
        Address: '127.0.0.1',
        Service: { ID: b.name, Service: service, Port: b.port },
      }),
    deregister: (b) => hubCall(hub.httpUrl, 'PUT', '/v1/catalog/deregister', { Node: 'mbb-node', ServiceID: b.name }),
    put,
    async close() {
      await envoy.stop();
      await hub.close();
      await Promise.all(backends.map((b) => b.close()));
    },
  };
}

/** (a) A route moves from A to B (and back), under load. */
export async function routeMoves(w: MbbWorld, o: MbbOptions): Promise<LoadCounts> {
  const a = await w.backend('move-a');
  const b = await w.backend('move-b');
  await w.register('move-a', a);
  await w.register('move-b', b);
  const routeTo = (service: string) =>
    w.put({
      Kind: 'service-router',
      Name: 'moving',
      Routes: [{ Match: { HTTP: { PathPrefix: '/' } }, Destination: { Service: service } }],
    });
  await routeTo('move-a');
  await untilServedBy(w.envoy, w.port, 'move-a', { host: 'moving' });
  const load = openLoop(w.port, 'moving', o.rate, w.envoy);
  await letTimePass(o.stepMs, STEP);
  for (let i = 0; i < 4; i++) {
    const to = i % 2 === 0 ? 'move-b' : 'move-a';
    await routeTo(to);
    await untilOnly(w.envoy, load.counts, to);
  }
  return load.stop();
}

/** (b) A service leaves a route, then is deregistered and its entries deleted, under load. */
export async function serviceLeaves(w: MbbWorld, o: MbbOptions): Promise<LoadCounts> {
  const stay = await w.backend('leave-stay');
  const go = await w.backend('leave-go');
  await w.register('leave-stay', stay);
  await w.register('leave-go', go);
  await w.put({ Kind: 'service-defaults', Name: 'leave-go', Protocol: 'http' });
  await w.put({
    Kind: 'service-splitter',
    Name: 'leaving',
    Splits: [
      { Weight: 50, Service: 'leave-stay' },
      { Weight: 50, Service: 'leave-go' },
    ],
  });
  await untilServedBy(w.envoy, w.port, ['leave-stay', 'leave-go'], { host: 'leaving' });
  const load = openLoop(w.port, 'leaving', o.rate, w.envoy);
  await letTimePass(o.stepMs, STEP);
  await w.put({ Kind: 'service-splitter', Name: 'leaving', Splits: [{ Weight: 100, Service: 'leave-stay' }] });
  // Once no route names it (Envoy sends it nothing more), the service goes: its instance and its entries.
  await untilOnly(w.envoy, load.counts, 'leave-stay');
  await w.deregister(go);
  await hubCall(w.hub.httpUrl, 'DELETE', '/v1/config/service-defaults/leave-go');
  await letTimePass(o.stepMs, STEP);
  return load.stop();
}

/** (c) Half the endpoints churn every 100 ms (the backends stay up; only their registrations come and go). */
export async function endpointChurn(w: MbbWorld, o: MbbOptions): Promise<LoadCounts> {
  const stable = [await w.backend('churn-s1'), await w.backend('churn-s2')];
  const pool = [
    await w.backend('churn-c1'),
    await w.backend('churn-c2'),
    await w.backend('churn-c3'),
    await w.backend('churn-c4'),
  ];
  for (const b of [...stable, pool[0]!, pool[1]!]) await w.register('churning', b);
  await untilServedBy(w.envoy, w.port, ['churn-s1', 'churn-s2', 'churn-c1', 'churn-c2'], { host: 'churning' });
  const load = openLoop(w.port, 'churning', o.rate, w.envoy);
  const until = Date.now() + o.churnMs;
  let turn = 0;
  while (Date.now() < until) {
    const [out, inn] = turn % 2 === 0 ? [pool.slice(0, 2), pool.slice(2)] : [pool.slice(2), pool.slice(0, 2)];
    await Promise.all([...inn.map((b) => w.register('churning', b)), ...out.map((b) => w.deregister(b))]);
    turn++;
    await letTimePass(100, 'the endpoints churn every 100 ms');
  }
  return load.stop();
}

/** (d) A splitter moves from 0 to 100 in steps of 10, under load. */
export async function splitterRamp(w: MbbWorld, o: MbbOptions): Promise<LoadCounts> {
  const oldB = await w.backend('ramp-old');
  const newB = await w.backend('ramp-new');
  await w.register('ramp-old', oldB);
  await w.register('ramp-new', newB);
  const split = (w2: number) =>
    w.put({
      Kind: 'service-splitter',
      Name: 'splitting',
      Splits: [
        { Weight: 100 - w2, Service: 'ramp-old' },
        { Weight: w2, Service: 'ramp-new' },
      ],
    });
  await split(0);
  await untilServedBy(w.envoy, w.port, 'ramp-old', { host: 'splitting' });
  const load = openLoop(w.port, 'splitting', o.rate, w.envoy);
  for (let step = 10; step <= 100; step += 10) {
    await letTimePass(o.stepMs, STEP);
    await split(step);
  }
  await untilOnly(w.envoy, load.counts, 'ramp-new');
  return load.stop();
}

export const SCENARIOS = {
  'route moves A→B': routeMoves,
  'service leaves, then is deleted': serviceLeaves,
  'half the endpoints churn every 100 ms': endpointChurn,
  'splitter 0→100 in steps of 10': splitterRamp,
} as const;
