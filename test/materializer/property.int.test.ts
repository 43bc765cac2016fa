// The materializer's central property, over the real catalog, log and publisher:
// for random command sequences, with restores (the publisher resets every
// subscriber), ABORTED and dropped streams injected into the source, every view
// result equals the state machine's answer at the result's index, and no result
// ever changes after it was handed out.
import { test } from 'node:test';
import fc from 'fast-check';
import { grpcSource } from '../../src/materializer/sources/grpc';
import { startSubscribeServer } from '../subscribe/grpc-helpers';
import { check, faults, type SourceFactory, steps } from './property-harness';

test('views equal the state machine at every index, through resets, ABORTED and dropped streams', async () => {
  await fc.assert(
    fc.asyncProperty(steps, faults, fc.constantFrom(0, 60_000), (plan, faultPlan, ttl) => check(plan, faultPlan, ttl)),
    { numRuns: 60 },
  );
});

// The same property with every event crossing the wire: the hub's gRPC server
// encodes (internal → Consul wire), the gRPC source decodes (wire → internal).
const overGrpc: SourceFactory = async (publisher) => {
  const server = await startSubscribeServer(publisher);
  const source = grpcSource({ address: server.address });
  return {
    source,
    close() {
      source.close();
      server.server.forceShutdown();
    },
  };
};

test('the same holds over the gRPC source (wire round trip of real catalog events)', async () => {
  await fc.assert(
    fc.asyncProperty(steps, faults, fc.constantFrom(0, 60_000), (plan, faultPlan, ttl) =>
      check(plan, faultPlan, ttl, overGrpc),
    ),
    { numRuns: 25 },
  );
});
