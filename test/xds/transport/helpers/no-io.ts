// Runs a synchronous function with every way of doing I/O, reading a clock or
// drawing randomness replaced by a trap that records and throws: files,
// sockets, streams, child processes, timers, the console, Date, performance,
// Math.random, crypto randomness. What the function touched is returned.
// The modules themselves (require), not namespace copies: their properties are what callers reach.
import childProcess = require('node:child_process');
import crypto = require('node:crypto');
import dgram = require('node:dgram');
import fs = require('node:fs');
import http2 = require('node:http2');
import net = require('node:net');
import perfHooks = require('node:perf_hooks');
import stream = require('node:stream');

const { performance } = perfHooks;
const { Readable, Writable } = stream;

type Target = Record<string, unknown>;

const TRAPS: [Target, string[], string][] = [
  [
    fs as unknown as Target,
    [
      'readFileSync',
      'writeFileSync',
      'appendFileSync',
      'openSync',
      'readSync',
      'writeSync',
      'existsSync',
      'statSync',
      'readdirSync',
      'readFile',
      'writeFile',
      'open',
      'createReadStream',
      'createWriteStream',
    ],
    'fs',
  ],
  [fs.promises as unknown as Target, ['readFile', 'writeFile', 'open', 'stat', 'readdir'], 'fs.promises'],
  [net as unknown as Target, ['connect', 'createConnection', 'createServer'], 'net'],
  [net.Socket.prototype as unknown as Target, ['connect', 'write'], 'net.Socket'],
  [http2 as unknown as Target, ['connect', 'createServer'], 'http2'],
  [dgram as unknown as Target, ['createSocket'], 'dgram'],
  [childProcess as unknown as Target, ['spawn', 'fork', 'exec', 'execSync', 'spawnSync'], 'child_process'],
  [Writable.prototype as unknown as Target, ['write', 'end'], 'Writable'],
  [Readable.prototype as unknown as Target, ['read', 'push'], 'Readable'],
  [
    globalThis as unknown as Target,
    ['setTimeout', 'setInterval', 'setImmediate', 'queueMicrotask', 'fetch'],
    'globalThis',
  ],
  [process as unknown as Target, ['nextTick', 'hrtime', 'cpuUsage', 'memoryUsage'], 'process'],
  [console as unknown as Target, ['log', 'info', 'warn', 'error', 'debug', 'trace'], 'console'],
  [performance as unknown as Target, ['now'], 'performance'],
  [Math as unknown as Target, ['random'], 'Math'],
  [crypto as unknown as Target, ['randomBytes', 'randomUUID', 'randomInt'], 'crypto'],
];

const RealDate = Date;

export function withoutIo<T>(fn: () => T): { value: T; touched: string[] } {
  const touched: string[] = [];
  const restore: (() => void)[] = [];
  const trap = (what: string) => () => {
    touched.push(what);
    throw new Error(`I/O in a rule: ${what}`);
  };
  class TrapDate extends RealDate {
    constructor(...args: unknown[]) {
      if (args.length === 0) trap('new Date()')();
      super(...(args as [number]));
    }
    static override now(): number {
      return trap('Date.now')() as never;
    }
  }
  try {
    for (const [target, names, label] of TRAPS) {
      for (const name of names) {
        const desc = Object.getOwnPropertyDescriptor(target, name);
        if (!desc) continue;
        if (desc.configurable) {
          Object.defineProperty(target, name, {
            configurable: true,
            enumerable: desc.enumerable ?? false,
            writable: true,
            value: trap(`${label}.${name}`),
          });
          restore.push(() => Object.defineProperty(target, name, desc));
        } else if (desc.writable) {
          target[name] = trap(`${label}.${name}`);
          restore.push(() => (target[name] = desc.value));
        } else throw new Error(`cannot trap ${label}.${name}`);
      }
    }
    globalThis.Date = TrapDate as DateConstructor;
    restore.push(() => (globalThis.Date = RealDate));
    return { value: fn(), touched };
  } catch (err) {
    if (touched.length > 0) return { value: undefined as T, touched };
    throw err;
  } finally {
    for (const r of restore.reverse()) r();
  }
}
