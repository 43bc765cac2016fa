import { join } from 'node:path';
import { createSqliteLog } from '../../src/log/sqlite';
import { tmpDir } from '../helpers/tmp';
import { logContract } from './contract';

for (const synchronous of ['NORMAL', 'FULL'] as const) {
  logContract(`sqlite (${synchronous})`, async () => {
    const dir = await tmpDir('xdshub-sqlite-log');
    // A missing parent directory is created on open.
    const path = join(dir.path, 'nested', 'xdshub.db');
    return {
      log: createSqliteLog({ path, synchronous }),
      reopen: async () => createSqliteLog({ path, synchronous }),
      cleanup: dir.cleanup,
    };
  });
}
