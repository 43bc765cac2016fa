// Envoy-like scripts over a ScriptedClient: they remember the subscription per
// type so ACKs carry it (as real clients do), and offer a barrier to prove that
// nothing was sent without sleeping: the server answers requests in order, so
// if the barrier's answer is the next response, nothing came before it.
import assert from 'node:assert/strict';
import { TypeUrl } from '../../../../src/xds/transport/type-urls';
import { node, type Plain, type ScriptedClient } from './client';

let barrierSeq = 0;

/** What both scripts share: the client, the node sent on the first request, reading responses. */
abstract class Script {
  protected first = true;

  constructor(
    readonly client: ScriptedClient,
    readonly nodeId = 'node-1',
    readonly features: string[] = [],
  ) {}

  next(): Promise<Plain> {
    return this.client.next();
  }

  /** Next response, asserting its type. */
  async expect(typeUrl: string): Promise<Plain> {
    const r = await this.next();
    assert.equal(r.typeUrl, typeUrl, `expected a ${typeUrl} response, got ${r.typeUrl}`);
    return r;
  }
}

export class SotwScript extends Script {
  readonly names = new Map<string, string[]>();

  request(typeUrl: string, names: string[], extra: Plain = {}): void {
    this.names.set(typeUrl, names);
    this.client.send({
      ...(this.first ? { node: node(this.nodeId, this.features) } : {}),
      typeUrl,
      resourceNames: names,
      ...extra,
    });
    this.first = false;
  }

  ack(r: Plain): void {
    this.client.send({
      typeUrl: r.typeUrl,
      versionInfo: r.versionInfo,
      responseNonce: r.nonce,
      resourceNames: this.names.get(r.typeUrl) ?? [],
    });
  }

  nack(r: Plain, message: string, versionInfo = r.versionInfo as string): void {
    this.client.send({
      typeUrl: r.typeUrl,
      versionInfo,
      responseNonce: r.nonce,
      resourceNames: this.names.get(r.typeUrl) ?? [],
      errorDetail: { code: 3, message },
    });
  }

  /** Proves no response is in flight before it (see top). Uses a type the test leaves idle. */
  async quiet(barrierType: string = TypeUrl.ClusterLoadAssignment): Promise<void> {
    const names = [...(this.names.get(barrierType) ?? []), `barrier-${++barrierSeq}`];
    this.request(barrierType, names);
    const r = await this.next();
    assert.equal(r.typeUrl, barrierType, `expected nothing before the barrier, got a ${r.typeUrl} response`);
    this.ack(r);
  }
}

export class DeltaScript extends Script {
  send(typeUrl: string, subscribe: string[] = [], unsubscribe: string[] = [], extra: Plain = {}): void {
    this.client.send({
      ...(this.first ? { node: node(this.nodeId, this.features) } : {}),
      typeUrl,
      resourceNamesSubscribe: subscribe,
      resourceNamesUnsubscribe: unsubscribe,
      ...extra,
    });
    this.first = false;
  }

  ack(r: Plain): void {
    this.client.send({ typeUrl: r.typeUrl, responseNonce: r.nonce });
  }

  nack(r: Plain, message: string): void {
    this.client.send({ typeUrl: r.typeUrl, responseNonce: r.nonce, errorDetail: { code: 14, message } });
  }

  /** Subscribes a name that does not exist: the answer (X-DELTA-3) must be the next response. */
  async quiet(barrierType: string = TypeUrl.ClusterLoadAssignment): Promise<void> {
    const name = `barrier-${++barrierSeq}`;
    this.send(barrierType, [name]);
    const r = await this.next();
    assert.equal(r.typeUrl, barrierType, `expected nothing before the barrier, got a ${r.typeUrl} response`);
    assert.deepEqual(r.removedResources, [name]);
    this.ack(r);
  }
}

/** name → version of the resources in a delta response. */
export function deltaVersions(r: Plain): Record<string, string> {
  return Object.fromEntries((r.resources as Plain[]).map((x) => [x.name, x.version]));
}
