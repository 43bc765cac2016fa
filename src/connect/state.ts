// The CA's part of the state machine: ConnectCommand → the next ConnectState,
// deterministically (keys, certificates and times arrive inside the command;
// apply only checks them against the state and stamps indexes). A refusal
// throws ApplyError like every catalog refusal.
import { ApplyError } from '../catalog/catalog-ops';
import { deepFreeze } from '../catalog/values';
import { parseDurationMs } from '../config';
import type { CaRoot, ConnectChange, ConnectCommand, ConnectState, IssuedLeaf, RootInput } from './types';

const ZERO_TIME = '0001-01-01T00:00:00Z';
const CONNECT_TYPES: ReadonlySet<string> = new Set(['ca-init', 'ca-config', 'leaf-issue', 'ca-prune']);

export function emptyConnectState(): ConnectState {
  return deepFreeze({
    config: undefined,
    trustDomain: '',
    roots: [],
    rootsIndex: 0,
    leaves: new Map(),
  }) as ConnectState;
}

export function isConnectCommand(cmd: { type?: unknown } | undefined): cmd is ConnectCommand {
  return typeof cmd?.type === 'string' && CONNECT_TYPES.has(cmd.type);
}

export function activeRoot(state: ConnectState): CaRoot | undefined {
  return state.roots.find((r) => r.Active);
}

function refuse(code: 'INVALID_ARGUMENT' | 'CONFLICT', message: string, field?: string): ApplyError {
  return new ApplyError(code, message, field);
}

function checkRoot(root: RootInput | undefined, field: string): RootInput {
  for (const key of ['ID', 'RootCert', 'PrivateKey', 'NotBefore', 'NotAfter'] as const) {
    if (typeof root?.[key] !== 'string' || root[key] === '')
      throw refuse('INVALID_ARGUMENT', `${field}.${key}: required`, `${field}.${key}`);
  }
  return root!;
}

function stampRoot(root: RootInput, index: number, active: boolean): CaRoot {
  return {
    ...root,
    IntermediateCerts: [...(root.IntermediateCerts ?? [])],
    Active: active,
    RotatedOutAt: ZERO_TIME,
    CreateIndex: index,
    ModifyIndex: index,
  };
}

/** Applies one CA command at `index`. Throws ApplyError to refuse. */
export function applyConnect(
  state: ConnectState,
  cmd: ConnectCommand,
  index: number,
): { next: ConnectState; change: ConnectChange } {
  switch (cmd.type) {
    case 'ca-init': {
      if (state.config) throw refuse('CONFLICT', 'the CA is already initialised');
      const root = checkRoot(cmd.root, 'root');
      if (typeof cmd.config?.ClusterID !== 'string' || cmd.config.ClusterID === '')
        throw refuse('INVALID_ARGUMENT', 'config.ClusterID: required', 'config.ClusterID');
      const next: ConnectState = {
        config: { ...cmd.config, CreateIndex: index, ModifyIndex: index },
        trustDomain: `${cmd.config.ClusterID}.consul`,
        roots: [stampRoot(root, index, true)],
        rootsIndex: index,
        leaves: new Map(),
      };
      return { next: deepFreeze(next), change: { roots: true, leaves: [] } };
    }
    case 'ca-config': {
      const config = state.config;
      if (!config) throw refuse('CONFLICT', 'the CA is not initialised yet');
      const active = activeRoot(state);
      if (active?.ID !== cmd.ifActiveRoot)
        throw refuse('CONFLICT', `the active root is no longer ${cmd.ifActiveRoot}`, 'ifActiveRoot');
      const nextConfig = {
        ...config,
        Config: { ...cmd.config },
        ForceWithoutCrossSigning: cmd.forceWithoutCrossSigning === true,
        ModifyIndex: index,
      };
      if (!cmd.root)
        return { next: deepFreeze({ ...state, config: nextConfig }), change: { roots: false, leaves: [] } };
      const root = checkRoot(cmd.root, 'root');
      if (state.roots.some((r) => r.ID === root.ID))
        throw refuse('CONFLICT', `root ${root.ID} is already known`, 'root.ID');
      const roots = state.roots.map((r) =>
        r.Active ? { ...r, Active: false, RotatedOutAt: cmd.at, ModifyIndex: index } : r,
      );
      roots.push(stampRoot(root, index, true));
      return {
        next: deepFreeze({ ...state, config: nextConfig, roots, rootsIndex: index }),
        change: { roots: true, leaves: [] },
      };
    }
    case 'leaf-issue': {
      const leaf = cmd.leaf;
      if (!state.config) throw refuse('CONFLICT', 'the CA is not initialised yet');
      if (typeof leaf?.Service !== 'string' || leaf.Service === '')
        throw refuse('INVALID_ARGUMENT', 'leaf.Service: required', 'leaf.Service');
      for (const key of ['SerialNumber', 'CertPEM', 'PrivateKeyPEM', 'ServiceURI', 'ValidBefore'] as const) {
        if (typeof leaf[key] !== 'string' || leaf[key] === '')
          throw refuse('INVALID_ARGUMENT', `leaf.${key}: required`, `leaf.${key}`);
      }
      if (leaf.RootID !== activeRoot(state)?.ID)
        throw refuse('CONFLICT', `leaf signed by ${leaf.RootID}, which is not the active root`, 'leaf.RootID');
      const current = state.leaves.get(leaf.Service);
      if ((current?.SerialNumber ?? '') !== cmd.ifSerial) {
        throw refuse('CONFLICT', `the leaf of "${leaf.Service}" is no longer ${cmd.ifSerial || 'absent'}`, 'ifSerial');
      }
      const issued: IssuedLeaf = { ...leaf, CreateIndex: current?.CreateIndex ?? index, ModifyIndex: index };
      const leaves = new Map(state.leaves);
      leaves.set(leaf.Service, issued);
      return { next: deepFreeze({ ...state, leaves }), change: { roots: false, leaves: [leaf.Service] } };
    }
    case 'ca-prune': {
      const root = state.roots.find((r) => r.ID === cmd.rootId);
      if (!root) throw refuse('CONFLICT', `root ${cmd.rootId} is not known`, 'rootId');
      if (root.Active) throw refuse('CONFLICT', 'the active root is never pruned', 'rootId');
      if (!prunable(state, root, Date.parse(cmd.at)))
        throw refuse('CONFLICT', `root ${root.ID} may still have leaves in use`, 'rootId');
      const dropped = [...state.leaves.values()].filter((l) => l.RootID === root.ID).map((l) => l.Service);
      const leaves = new Map([...state.leaves].filter(([, l]) => l.RootID !== root.ID));
      const roots = state.roots.filter((r) => r.ID !== root.ID);
      return {
        next: deepFreeze({ ...state, roots, rootsIndex: index, leaves }),
        change: { roots: true, leaves: dropped },
      };
    }
  }
}

/**
 * A rotated-out root may go once every leaf it can have signed has expired:
 * leaves live at most LeafCertTTL, and it signed none after RotatedOutAt.
 */
export function prunable(state: ConnectState, root: CaRoot, now: number): boolean {
  if (root.Active || !state.config) return false;
  let ttl: number;
  try {
    ttl = parseDurationMs(state.config.Config.LeafCertTTL, 'LeafCertTTL');
  } catch {
    return false;
  }
  const rotatedOut = Date.parse(root.RotatedOutAt);
  return Number.isFinite(rotatedOut) && Number.isFinite(now) && now >= rotatedOut + ttl;
}

// ── Snapshot (part of the catalog snapshot) ──

interface ConnectDoc {
  config: ConnectState['config'] | null;
  trustDomain: string;
  roots: CaRoot[];
  rootsIndex: number;
  leaves: IssuedLeaf[];
}

export function serialiseConnect(state: ConnectState): ConnectDoc {
  const leaves = [...state.leaves.keys()].sort().map((k) => state.leaves.get(k)!);
  return {
    config: state.config ?? null,
    trustDomain: state.trustDomain,
    roots: [...state.roots],
    rootsIndex: state.rootsIndex,
    leaves,
  };
}

/** Snapshots written before the CA existed have no `connect`: the empty state. */
export function parseConnect(doc: unknown): ConnectState {
  if (doc === undefined || doc === null) return emptyConnectState();
  const d = doc as ConnectDoc;
  return deepFreeze({
    config: d.config ?? undefined,
    trustDomain: d.trustDomain,
    roots: d.roots,
    rootsIndex: d.rootsIndex,
    leaves: new Map(d.leaves.map((l) => [l.Service, l])),
  });
}
