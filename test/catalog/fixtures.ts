// Builders for catalog inputs in the shape the HTTP layer hands to apply.
import type { CheckInput, Command, NodeInput, ServiceInput } from '../../src/catalog/commands';
import type { HealthStatus } from '../../src/catalog/types';

export function nodeInput(name: string, extra: Partial<NodeInput> = {}): NodeInput {
  return { ID: '', Node: name, Address: '10.0.0.1', Datacenter: 'dc1', TaggedAddresses: {}, Meta: {}, ...extra };
}

export function serviceInput(id: string, service: string, extra: Partial<ServiceInput> = {}): ServiceInput {
  return {
    Kind: '',
    ID: id,
    Service: service,
    Tags: [],
    Address: '',
    TaggedAddresses: {},
    Meta: {},
    Port: 8080,
    Weights: { Passing: 1, Warning: 1 },
    EnableTagOverride: false,
    ...extra,
  };
}

export function checkInput(id: string, extra: Partial<CheckInput> = {}): CheckInput {
  return {
    Node: '',
    CheckID: id,
    Name: id,
    Status: 'passing' as HealthStatus,
    Notes: '',
    Output: '',
    ServiceID: '',
    Type: '',
    Interval: '',
    Timeout: '',
    Definition: {},
    ...extra,
  };
}

export function register(
  node: string,
  opts: {
    service?: ServiceInput;
    checks?: CheckInput[];
    skipNodeUpdate?: boolean;
    nodeExtra?: Partial<NodeInput>;
  } = {},
): Command {
  return {
    type: 'register',
    node: nodeInput(node, opts.nodeExtra),
    ...(opts.service ? { service: opts.service } : {}),
    checks: opts.checks ?? [],
    skipNodeUpdate: opts.skipNodeUpdate ?? false,
  };
}
