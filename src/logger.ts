// The hub's root logger: JSON lines on stderr, so stdout stays free for the
// one startup line that scripts (and the durability test) parse.
import pino from 'pino';
import type { LogLevel } from './config';

export function createLogger(level: LogLevel): pino.Logger {
  return pino({ level, base: { pid: process.pid } }, pino.destination({ fd: 2, sync: false }));
}
