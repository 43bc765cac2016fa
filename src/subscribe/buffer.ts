// One (topic, subject) buffer: a singly linked list of stream items, one item
// per log entry that touched the subject, written by the publisher and read by
// every subscriber of that subject. Nothing points backwards, so the list is
// retained only from the slowest reader (or a cached snapshot's position)
// onwards; the garbage collector frees everything behind it.
import type { StreamItem } from './types';

export interface BufferNode {
  /** undefined only for the sentinel a fresh buffer starts with. */
  readonly item: StreamItem | undefined;
  /** Position in this buffer (sentinel = 0); the distance between two nodes is the lag. */
  readonly seq: number;
  next: BufferNode | undefined;
}

/** A subscriber's cursor: the last node it consumed, and how to wake it when parked at the tail. */
export interface Reader {
  pos: BufferNode;
  wake(): void;
}

export interface TopicBuffer {
  readonly key: string;
  tail: BufferNode;
  /** Readers plus cached snapshots holding a position in this buffer. */
  refs: number;
  readonly readers: Set<Reader>;
  /** Readers parked at the tail. */
  readonly waiting: Set<Reader>;
}

export function createBuffer(key: string): TopicBuffer {
  return { key, tail: { item: undefined, seq: 0, next: undefined }, refs: 0, readers: new Set(), waiting: new Set() };
}

export function append(buffer: TopicBuffer, item: StreamItem): BufferNode {
  const node: BufferNode = { item, seq: buffer.tail.seq + 1, next: undefined };
  buffer.tail.next = node;
  buffer.tail = node;
  if (buffer.waiting.size > 0) {
    const parked = [...buffer.waiting];
    buffer.waiting.clear();
    for (const r of parked) r.wake();
  }
  return node;
}
