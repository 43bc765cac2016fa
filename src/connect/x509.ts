// Certificates for the built-in CA, made with @peculiar/x509 over Node's
// WebCrypto (ECDSA P-256, SHA-256): roots, roots cross-signed by the root they
// replace, and service leaves carrying the service's SPIFFE ID as their URI
// SAN (docs/mesh.md "The built-in CA"). Everything here needs randomness or
// the clock, so it runs before append; what it returns goes into log entries.
// The library (and the reflect-metadata it needs) is loaded on first use: a
// hub whose CA is already in the log starts without it.
import { createHash, createPrivateKey, createPublicKey, type KeyObject, randomBytes, webcrypto } from 'node:crypto';
import type * as X509 from '@peculiar/x509';
import { invalid } from '../errors';
import type { CaRoot, LeafInput, RootInput } from './types';

export { serviceSpiffeId } from './spiffe';

type CryptoKey = webcrypto.CryptoKey;
type CryptoKeyPair = webcrypto.CryptoKeyPair;

let lib: typeof X509 | undefined;
function lib509(): typeof X509 {
  if (lib) return lib;
  require('reflect-metadata');
  const loaded = require('@peculiar/x509') as typeof X509;
  loaded.cryptoProvider.set(webcrypto as unknown as Parameters<typeof loaded.cryptoProvider.set>[0]);
  return (lib = loaded);
}

const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
/** Leaves start a minute in the past, so a peer whose clock is a little behind still accepts them. */
const BACKDATE_MS = 60_000;

/** Colon-separated lower-case hex, Consul's spelling of fingerprints, key IDs and serials. */
export function colonHex(bytes: Uint8Array | ArrayBuffer): string {
  return (
    Buffer.from(bytes instanceof ArrayBuffer ? new Uint8Array(bytes) : bytes)
      .toString('hex')
      .match(/../g)
      ?.join(':') ?? ''
  );
}

async function generateKeys(): Promise<CryptoKeyPair> {
  return (await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as CryptoKeyPair;
}

async function exportKey(key: CryptoKey): Promise<string> {
  const x509 = lib509();
  return x509.PemConverter.encode(await webcrypto.subtle.exportKey('pkcs8', key), 'PRIVATE KEY');
}

/** A PKCS#8 (or SEC1 "EC PRIVATE KEY") PEM P-256 key as a signing key, and its public half. */
async function importKeyPair(pem: string, field: string): Promise<CryptoKeyPair> {
  let priv: KeyObject;
  try {
    priv = createPrivateKey(pem);
  } catch (err) {
    throw invalid(field, `not a PEM private key (${(err as Error).message})`);
  }
  if (priv.asymmetricKeyType !== 'ec' || priv.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
    throw invalid(field, 'must be an ECDSA P-256 key (PrivateKeyType "ec", PrivateKeyBits 256)');
  }
  const pkcs8 = priv.export({ type: 'pkcs8', format: 'der' });
  const spki = createPublicKey(priv).export({ type: 'spki', format: 'der' });
  return {
    privateKey: await webcrypto.subtle.importKey('pkcs8', pkcs8, ALG, true, ['sign']),
    publicKey: await webcrypto.subtle.importKey('spki', spki, ALG, true, ['verify']),
  } as CryptoKeyPair;
}

function fingerprint(cert: X509.X509Certificate): string {
  return colonHex(createHash('sha1').update(new Uint8Array(cert.rawData)).digest());
}

function skid(cert: X509.X509Certificate): string {
  const x509 = lib509();
  const ext = cert.getExtension(x509.SubjectKeyIdentifierExtension);
  return ext ? ext.keyId.match(/../g)!.join(':') : '';
}

/**
 * A positive serial of 16 random bytes, as hex (x509 wants hex without colons). The
 * first byte is kept in 0x40-0x7f: positive, and never 0, which the certificate's
 * DER integer would drop, so its serial would no longer read as the one stored
 * (2 leaves in 256 did).
 */
function randomSerial(): string {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0]! & 0x3f) | 0x40;
  return bytes.toString('hex');
}

export interface RootOptions {
  clusterId: string;
  trustDomain: string;
  /** Serial number of the root (Consul counts them from 1). */
  serial: number;
  now: number;
  ttlMs: number;
  /** An operator's key (PEM) instead of a generated one; `certPem` optionally its certificate. */
  keyPem?: string;
  certPem?: string;
}

async function rootExtensions(keys: CryptoKeyPair, trustDomain: string): Promise<X509.Extension[]> {
  const x509 = lib509();
  return [
    new x509.BasicConstraintsExtension(true, undefined, true),
    new x509.KeyUsagesExtension(
      x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature,
      true,
    ),
    await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    await x509.AuthorityKeyIdentifierExtension.create(keys.publicKey),
    new x509.SubjectAlternativeNameExtension([{ type: 'url', value: `spiffe://${trustDomain}` }]),
  ];
}

/** A root: a generated key (or the operator's) and a self-signed CA certificate (or the operator's, checked). */
export async function makeRoot(o: RootOptions): Promise<RootInput> {
  const x509 = lib509();
  const keys = o.keyPem ? await importKeyPair(o.keyPem, 'Config.PrivateKey') : await generateKeys();
  let cert: X509.X509Certificate;
  if (o.certPem) {
    try {
      cert = new x509.X509Certificate(o.certPem);
    } catch (err) {
      throw invalid('Config.RootCert', `not a PEM certificate (${(err as Error).message})`);
    }
    const spki = Buffer.from(await webcrypto.subtle.exportKey('spki', keys.publicKey));
    if (!spki.equals(Buffer.from(cert.publicKey.rawData)))
      throw invalid('Config.RootCert', 'does not match Config.PrivateKey');
    if (!cert.getExtension(x509.BasicConstraintsExtension)?.ca)
      throw invalid('Config.RootCert', 'is not a CA certificate');
  } else {
    cert = await x509.X509CertificateGenerator.createSelfSigned({
      serialNumber: o.serial.toString(16).padStart(2, '0'),
      // Unique per root, so a chain never confuses an old root with its successor.
      name: `CN=xdshub CA ${o.serial} ${o.clusterId.slice(0, 8)}`,
      notBefore: new Date(o.now - BACKDATE_MS),
      notAfter: new Date(o.now + o.ttlMs),
      signingAlgorithm: ALG,
      keys,
      extensions: await rootExtensions(keys, o.trustDomain),
    });
  }
  return {
    ID: fingerprint(cert),
    Name: 'xdshub CA Root Cert',
    SerialNumber: o.serial,
    SigningKeyID: skid(cert),
    ExternalTrustDomain: o.clusterId,
    NotBefore: cert.notBefore.toISOString(),
    NotAfter: cert.notAfter.toISOString(),
    RootCert: cert.toString('pem'),
    IntermediateCerts: [],
    PrivateKey: await exportKey(keys.privateKey),
    PrivateKeyType: 'ec',
    PrivateKeyBits: 256,
  };
}

/**
 * The new root's certificate signed by the old root: a peer that still trusts
 * only the old root can verify leaves of the new one through it (Consul's
 * cross-signing during a root rotation).
 */
export async function crossSign(next: RootInput, previous: CaRoot, now: number): Promise<string> {
  const x509 = lib509();
  const nextCert = new x509.X509Certificate(next.RootCert);
  const prevCert = new x509.X509Certificate(previous.RootCert);
  const prevKeys = await importKeyPair(previous.PrivateKey, 'previous root');
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: randomSerial(),
    subject: nextCert.subjectName,
    issuer: prevCert.subjectName,
    notBefore: new Date(now - BACKDATE_MS),
    notAfter: new Date(Math.min(nextCert.notAfter.getTime(), prevCert.notAfter.getTime())),
    signingAlgorithm: ALG,
    publicKey: nextCert.publicKey,
    signingKey: prevKeys.privateKey,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature,
        true,
      ),
      await x509.SubjectKeyIdentifierExtension.create(await nextCert.publicKey.export()),
      await x509.AuthorityKeyIdentifierExtension.create(prevCert),
      ...(nextCert.getExtension(x509.SubjectAlternativeNameExtension)
        ? [nextCert.getExtension(x509.SubjectAlternativeNameExtension)!]
        : []),
    ],
  });
  return cert.toString('pem');
}

/** A root's certificate and signing key, parsed once per root (every leaf it signs needs them). */
const signers = new Map<string, Promise<{ cert: X509.X509Certificate; key: CryptoKey }>>();
function signerOf(root: CaRoot): Promise<{ cert: X509.X509Certificate; key: CryptoKey }> {
  let s = signers.get(root.ID);
  if (!s) {
    const x509 = lib509();
    s = importKeyPair(root.PrivateKey, 'root').then((keys) => ({
      cert: new x509.X509Certificate(root.RootCert),
      key: keys.privateKey,
    }));
    s.catch(() => signers.delete(root.ID));
    if (signers.size >= 8) signers.delete(signers.keys().next().value!);
    signers.set(root.ID, s);
  }
  return s;
}

export interface LeafOptions {
  root: CaRoot;
  service: string;
  spiffeId: string;
  now: number;
  ttlMs: number;
}

/** A leaf for a service: a fresh key, signed by the root, SAN = the service's SPIFFE ID, client and server auth. */
export async function issueLeaf(o: LeafOptions): Promise<LeafInput> {
  const x509 = lib509();
  const { cert: rootCert, key: rootKey } = await signerOf(o.root);
  const keys = await generateKeys();
  const serial = randomSerial();
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial,
    subject: `CN=${o.service.replace(/[,+="<>#;\\]/g, '_')}`,
    issuer: rootCert.subjectName,
    notBefore: new Date(o.now - BACKDATE_MS),
    notAfter: new Date(o.now + o.ttlMs),
    signingAlgorithm: ALG,
    publicKey: keys.publicKey,
    signingKey: rootKey,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment | x509.KeyUsageFlags.keyAgreement,
        true,
      ),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth, x509.ExtendedKeyUsage.clientAuth]),
      new x509.SubjectAlternativeNameExtension([{ type: 'url', value: o.spiffeId }]),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      await x509.AuthorityKeyIdentifierExtension.create(rootCert),
    ],
  });
  const chain = [cert.toString('pem'), ...o.root.IntermediateCerts].join('\n');
  return {
    SerialNumber: serial.match(/../g)!.join(':'),
    CertPEM: `${chain}\n`,
    PrivateKeyPEM: await exportKey(keys.privateKey),
    Service: o.service,
    ServiceURI: o.spiffeId,
    ValidAfter: cert.notBefore.toISOString(),
    ValidBefore: cert.notAfter.toISOString(),
    RootID: o.root.ID,
  };
}
