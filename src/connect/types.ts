// The built-in CA's data (docs/mesh.md "The built-in CA"), in Consul's JSON
// shapes where Consul has one (CARoot, CAConfiguration, IssuedCert). It lives
// in the catalog's state, so it is in the log: every hub that applies the log
// has the same roots and the same leaves. Keys and certificates are made
// before append (they need randomness) and travel inside the entries.

export interface CaRoot {
  /** SHA-1 fingerprint of the root certificate, colon-separated hex (Consul's root ID). */
  ID: string;
  Name: string;
  SerialNumber: number;
  /** Subject key identifier, colon-separated hex. */
  SigningKeyID: string;
  /** The cluster ID; the trust domain is `<cluster ID>.consul`. */
  ExternalTrustDomain: string;
  NotBefore: string;
  NotAfter: string;
  RootCert: string;
  /** When this root replaced another: its certificate cross-signed by the previous root (PEM). */
  IntermediateCerts: string[];
  /** PKCS#8 PEM. In the log and in snapshots; never in an HTTP or Subscribe answer. */
  PrivateKey: string;
  PrivateKeyType: 'ec';
  PrivateKeyBits: 256;
  Active: boolean;
  /** When a newer root took over (RFC 3339); Consul's zero time while active. */
  RotatedOutAt: string;
  CreateIndex: number;
  ModifyIndex: number;
}

export type RootInput = Omit<CaRoot, 'Active' | 'RotatedOutAt' | 'CreateIndex' | 'ModifyIndex'>;

export interface CaConfigValues {
  LeafCertTTL: string;
  RootCertTTL: string;
  IntermediateCertTTL: string;
  PrivateKeyType: 'ec';
  PrivateKeyBits: 256;
}

export interface CaConfiguration {
  Provider: 'consul';
  Config: CaConfigValues;
  ClusterID: string;
  ForceWithoutCrossSigning: boolean;
  CreateIndex: number;
  ModifyIndex: number;
}

/** One service's leaf certificate, as Consul's agent hands it out (IssuedCert). */
export interface IssuedLeaf {
  /** Colon-separated hex. */
  SerialNumber: string;
  /** The leaf, then the signing root's cross-signed certificate when it has one. */
  CertPEM: string;
  PrivateKeyPEM: string;
  Service: string;
  ServiceURI: string;
  ValidAfter: string;
  ValidBefore: string;
  /** ID of the root that signed it. */
  RootID: string;
  CreateIndex: number;
  ModifyIndex: number;
}

export type LeafInput = Omit<IssuedLeaf, 'CreateIndex' | 'ModifyIndex'>;

/** The CA part of the catalog state. Replaced as a whole by every CA entry; never mutated. */
export interface ConnectState {
  /** Undefined until the CA is initialised (the hub does it on its first start). */
  config: CaConfiguration | undefined;
  trustDomain: string;
  /** Oldest first; exactly one is Active once initialised. */
  roots: readonly CaRoot[];
  /** Index of the last entry that changed the roots (blocking queries on /v1/connect/ca/roots). */
  rootsIndex: number;
  leaves: ReadonlyMap<string, IssuedLeaf>;
}

export type ConnectCommand =
  /** The first root and configuration; refused once the CA is initialised. */
  | { type: 'ca-init'; config: Omit<CaConfiguration, 'CreateIndex' | 'ModifyIndex'>; root: RootInput }
  /**
   * A new configuration; with `root`, a root rotation: `root` becomes the
   * active root and the previous one is rotated out at `at` but kept trusted.
   * Refused when the active root is no longer `ifActiveRoot`.
   */
  | {
      type: 'ca-config';
      config: CaConfigValues;
      forceWithoutCrossSigning: boolean;
      root?: RootInput;
      ifActiveRoot: string;
      at: string;
    }
  /** A leaf for `leaf.Service`; refused unless its signer is the active root and the service's current serial is `ifSerial` ('' = none). */
  | { type: 'leaf-issue'; leaf: LeafInput; ifSerial: string }
  /** Drops a rotated-out root (and leaves it signed) once every leaf it signed has expired at `at`. */
  | { type: 'ca-prune'; rootId: string; at: string };

/** What a CA entry changed, for listeners (the xDS secrets, the leaf watchers). */
export interface ConnectChange {
  roots: boolean;
  leaves: readonly string[];
}
