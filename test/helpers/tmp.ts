// A fresh directory under the OS temp dir, removed (with everything in it) by cleanup().
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export async function tmpDir(prefix: string): Promise<{ path: string; cleanup(): Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), `${prefix.replace(/[^\w.-]/g, '_')}-`));
  return {
    path,
    cleanup: () => rm(path, { recursive: true, force: true }),
  };
}
