// Keys at rest: the data directory holds the log, and the log holds the CA's
// root key, every leaf key it signed and the ACL tables. So the directory is
// made 0700 and every file the hub writes in it 0600, whatever the process
// umask, and a directory that group or others may use is refused at start
// unless the operator says otherwise (--data-dir-insecure-ok). The contract is
// in docs/security.md, "Keys at rest".
import {
  chmodSync,
  closeSync,
  fchmodSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  statSync,
} from 'node:fs';
import { join } from 'node:path';
import type pino from 'pino';
import { HubError } from './errors';

export const DIR_MODE = 0o700;
export const FILE_MODE = 0o600;
/** Group and others: any bit here means someone besides the owner may use the file or directory. */
const SHARED_BITS = 0o077;

/** SQLite's companions of a database file (WAL mode, and the rollback journal should one be left). */
export const SQLITE_SIDE_FILES = ['-wal', '-shm', '-journal'] as const;

const octal = (mode: number): string => `0${(mode & 0o777).toString(8)}`;

/**
 * Creates `dir` (0700) when missing, and refuses one group or others have any
 * access to, naming it and its mode, unless `insecureOk` (then a warning).
 * Then takes group and others' bits off every regular file in it (the log, the
 * history, their WAL files, a copy someone left there: all hold the keys).
 */
export function prepareDataDir(dir: string, insecureOk: boolean, logger?: pino.Logger): void {
  makePrivateDir(dir);
  checkDirMode(dir, insecureOk, logger);
  const tightened: string[] = [];
  for (const name of readdirSync(dir)) {
    const file = join(dir, name);
    const mode = lstatSync(file).mode;
    if ((mode & 0o170000) !== 0o100000) continue; // regular files only: no symlinks followed, no subdirectories
    if (tighten(file)) tightened.push(`${name} (was ${octal(mode)})`);
  }
  if (tightened.length === 0) return;
  const what = 'files in the data directory were open to group or others; made private';
  logger?.warn({ dataDir: dir, files: tightened }, what);
}

function checkDirMode(dir: string, insecureOk: boolean, logger?: pino.Logger): void {
  const mode = statSync(dir).mode;
  if ((mode & SHARED_BITS) === 0) return;
  if (!insecureOk) {
    throw new HubError(
      'INVALID_ARGUMENT',
      `data-dir: ${dir} has mode ${octal(mode)}: group or others may read or enter it, ` +
        "and it holds the CA's private keys and the ACL tables; " +
        `run chmod 700 ${dir}, or start with --data-dir-insecure-ok (XDSHUB_DATA_DIR_INSECURE_OK=true)`,
      { field: 'data-dir' },
    );
  }
  const why = 'data directory is open to group or others (--data-dir-insecure-ok)';
  logger?.warn({ dataDir: dir, mode: octal(mode) }, why);
}

/** mkdir -p with 0700 for what it makes; chmod after, since the umask may have taken bits off. */
export function makePrivateDir(dir: string): void {
  const created = mkdirSync(dir, { recursive: true, mode: DIR_MODE });
  if (created !== undefined) chmodSync(dir, DIR_MODE);
}

/**
 * Before SQLite opens `path`: creates it empty with 0600 when missing, and takes
 * group and others' bits off it and off its side files when they exist (never
 * adding any: a file made read-only stays read-only and is refused as before).
 * SQLite gives the WAL and shared-memory files it creates the database file's
 * mode, so they follow.
 */
export function securePrivateFile(path: string): void {
  try {
    const fd = openSync(path, 'wx', FILE_MODE);
    try {
      fchmodSync(fd, FILE_MODE);
    } finally {
      closeSync(fd);
    }
  } catch {
    // EEXIST: tightened below. Anything else (a read-only directory or mount, a full disk): SQLite's own
    // open fails the same way and says so in the log store's terms (src/log/sqlite.ts, storeError).
  }
  for (const file of [path, ...SQLITE_SIDE_FILES.map((s) => `${path}${s}`)]) tighten(file);
}

function tighten(file: string): boolean {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'EACCES') return false; // absent, or not ours to read: SQLite will say so
    throw err;
  }
  try {
    const mode = fstatSync(fd).mode & 0o777;
    if ((mode & SHARED_BITS) === 0) return false;
    try {
      fchmodSync(fd, mode & ~SHARED_BITS);
    } catch (err) {
      const message = `${file} has mode ${octal(mode)} and cannot be made private: ${(err as Error).message}`;
      throw new HubError('INTERNAL', message, { cause: err });
    }
    return true;
  } finally {
    closeSync(fd);
  }
}
