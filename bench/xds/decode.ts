// A bench client's reading of a DeltaDiscoveryResponse: only what the client
// needs (type URL, nonce, resource names; for sampled clients the port of each
// assignment's first endpoint), walked field by field, so that thousands of
// simulated clients in two processes spend as little CPU as they can and the
// server, not the clients, is what the bench measures. Hub and bare are read
// the same way.
import { Reader } from 'protobufjs';
import { eachField } from '../../src/xds/transport/wire';

export interface Received {
  bytes: number;
  typeUrl: string;
  nonce: string;
  names: string[];
  /** Per name (sampled clients only): the first endpoint's port, 0 if none. */
  ports: number[] | undefined;
}

const text = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.length).toString('utf8');

/** ClusterLoadAssignment.endpoints (2) → lb_endpoints (2) → endpoint (1) → address (1) → socket_address (1) → port_value (3). */
function firstPort(cla: Uint8Array): number {
  let port = 0;
  eachField(cla, 2, (loc) =>
    eachField(loc, 2, (lb) =>
      eachField(lb, 1, (ep) =>
        eachField(ep, 1, (addr) =>
          eachField(addr, 1, (sa) => {
            const r = Reader.create(sa);
            while (r.pos < r.len) {
              const tag = r.uint32();
              if (tag >>> 3 === 3 && (tag & 7) === 0) port ||= r.uint32();
              else r.skipType(tag & 7);
            }
          }),
        ),
      ),
    ),
  );
  return port;
}

export function readDeltaResponse(buf: Buffer, withPorts: boolean): Received {
  const out: Received = { bytes: buf.length, typeUrl: '', nonce: '', names: [], ports: withPorts ? [] : undefined };
  const r = Reader.create(buf);
  while (r.pos < r.len) {
    const tag = r.uint32();
    const field = tag >>> 3;
    if ((tag & 7) !== 2) {
      r.skipType(tag & 7);
      continue;
    }
    const value = r.bytes();
    if (field === 4) out.typeUrl = text(value);
    else if (field === 5) out.nonce = text(value);
    else if (field === 2) {
      // Resource: name (3), resource (2: Any{value = 2}).
      let name = '';
      let body: Uint8Array | undefined;
      const rr = Reader.create(value);
      while (rr.pos < rr.len) {
        const t = rr.uint32();
        if (t >>> 3 === 3 && (t & 7) === 2) name = text(rr.bytes());
        else if (withPorts && t >>> 3 === 2 && (t & 7) === 2) body = rr.bytes();
        else rr.skipType(t & 7);
      }
      out.names.push(name);
      if (out.ports) {
        let port = 0;
        if (body) eachField(body, 2, (v) => (port = firstPort(v)));
        out.ports.push(port);
      }
    }
  }
  return out;
}
