// The service instance both bench servers send: a node, a service with a few
// tags and meta (one of which is the timing marker) and one TTL check, so the
// bare server's pre-encoded event is the same size as the hub's.
import type { CheckInput, NodeInput, ServiceInput } from '../../src/catalog/commands';
import { marker } from './common';

export function benchNode(i: number): NodeInput {
  return {
    ID: '',
    Node: `node-${Math.floor(i / 10)}`,
    Address: `10.1.${Math.floor(i / 250)}.${i % 250}`,
    Datacenter: 'dc1',
    TaggedAddresses: {},
    Meta: { rack: `r${i % 8}` },
  };
}

export function benchService(i: number, seq: number, tsUs?: number): ServiceInput {
  return {
    Kind: '',
    ID: `web-${i}`,
    Service: 'web',
    Tags: ['v1', 'primary'],
    Address: '',
    TaggedAddresses: {},
    Meta: { version: '1.2.3', bench: marker(seq, tsUs) },
    Port: 8080,
    Weights: { Passing: 1, Warning: 1 },
    EnableTagOverride: false,
  };
}

export function benchCheck(i: number): CheckInput {
  return {
    Node: benchNode(i).Node,
    CheckID: `service:web-${i}`,
    Name: 'Service web check',
    Status: 'passing',
    Notes: '',
    Output: '',
    ServiceID: `web-${i}`,
    Type: 'ttl',
    Interval: '',
    Timeout: '',
    Definition: { TTL: '30s' },
  };
}
