// Certificates made at test time with the openssl binary (no committed keys):
// a CA, and leaf certificates it signs for 127.0.0.1/localhost servers and for
// clients (subject CN as given), as PEM files in a test's temp directory.
import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execFileTracked } from './procs';

const run = execFileTracked;

export interface Pem {
  cert: string;
  key: string;
  /** openssl's serial, as hex (what X509Certificate.serialNumber shows). */
  serial: string;
}

export interface Ca extends Pem {
  issue(cn: string, kind: 'server' | 'client'): Promise<Pem>;
}

let made = 0;

async function serialOf(certFile: string): Promise<string> {
  const { stdout } = await run('openssl', ['x509', '-in', certFile, '-noout', '-serial']);
  return stdout
    .trim()
    .replace(/^serial=/, '')
    .toUpperCase();
}

/** A CA in `dir` (ECDSA P-256, one day). */
export async function makeCa(dir: string): Promise<Ca> {
  const key = join(dir, 'ca.key');
  const cert = join(dir, 'ca.pem');
  await run('openssl', [
    'req',
    '-x509',
    '-new',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-keyout',
    key,
    '-out',
    cert,
    '-days',
    '1',
    '-subj',
    '/CN=xdshub test CA',
  ]);
  return {
    cert: await readFile(cert, 'utf8'),
    key: await readFile(key, 'utf8'),
    serial: await serialOf(cert),
    async issue(cn, kind) {
      const n = ++made;
      const leafKey = join(dir, `leaf${n}.key`);
      const csr = join(dir, `leaf${n}.csr`);
      const leafCert = join(dir, `leaf${n}.pem`);
      const ext = join(dir, `leaf${n}.ext`);
      await writeFile(
        ext,
        kind === 'server'
          ? 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n'
          : 'extendedKeyUsage=clientAuth\n',
      );
      await run('openssl', [
        'req',
        '-new',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-nodes',
        '-keyout',
        leafKey,
        '-out',
        csr,
        '-subj',
        `/CN=${cn}`,
      ]);
      await run('openssl', [
        'x509',
        '-req',
        '-in',
        csr,
        '-CA',
        cert,
        '-CAkey',
        key,
        '-CAcreateserial',
        '-out',
        leafCert,
        '-days',
        '1',
        '-extfile',
        ext,
      ]);
      return {
        cert: await readFile(leafCert, 'utf8'),
        key: await readFile(leafKey, 'utf8'),
        serial: await serialOf(leafCert),
      };
    },
  };
}

/** Writes a pair as cert.pem/key.pem in `dir`, each replaced atomically (a rename, as deployment tools do). */
export async function writePair(dir: string, pem: Pem): Promise<{ cert: string; key: string }> {
  const cert = join(dir, 'cert.pem');
  const key = join(dir, 'key.pem');
  await writeFile(`${key}.new`, pem.key);
  await writeFile(`${cert}.new`, pem.cert);
  await rename(`${key}.new`, key);
  await rename(`${cert}.new`, cert);
  return { cert, key };
}
