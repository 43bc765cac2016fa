// The older Envoy the compatibility tests run beside the pinned one: the
// release scripts/envoy-compat-requirements.txt pins, which
// scripts/ensure-envoy.sh installs into .tools/ ($ENVOY_COMPAT_BIN overrides).
// Missing, it is an error naming the install command: these tests never skip.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type Envoy,
  envoyBinary,
  envoyVersion,
  installedEnvoy,
  pinnedEnvoyVersion,
  type StartEnvoyOptions,
  startEnvoy,
} from '../helpers/envoy';

const COMPAT_REQUIREMENTS = 'envoy-compat-requirements.txt';

export function compatVersion(): string {
  return pinnedEnvoyVersion(COMPAT_REQUIREMENTS);
}

/** The older Envoy's binary: $ENVOY_COMPAT_BIN, else the install under .tools/. */
export function compatEnvoyBinary(): string {
  return installedEnvoy(COMPAT_REQUIREMENTS, 'ENVOY_COMPAT_BIN');
}

/** The two Envoys every lifecycle property is proven on. */
export function envoyBinaries(): { version: string; bin: string }[] {
  return [
    { version: envoyVersion(), bin: envoyBinary() },
    { version: compatVersion(), bin: compatEnvoyBinary() },
  ];
}

/** `envoy --mode validate` with the given binary. */
export function validateWith(bin: string, bootstrap: unknown): { ok: boolean; output: string } {
  const dir = mkdtempSync(join(tmpdir(), 'xdshub-envoy-validate-'));
  const file = join(dir, 'bootstrap.json');
  writeFileSync(file, JSON.stringify(bootstrap));
  const res = spawnSync(bin, ['--mode', 'validate', '-c', file, '--disable-hot-restart', '-l', 'warn'], {
    encoding: 'utf8',
  });
  rmSync(dir, { recursive: true, force: true });
  return { ok: res.status === 0, output: `${res.stdout}${res.stderr}` };
}

/**
 * startEnvoy (test/helpers/envoy.ts) with another binary. It reads $ENVOY_BIN
 * synchronously before its first await, so setting the variable around the
 * call and restoring it right after picks the binary for this Envoy only.
 */
export function startEnvoyWith(bin: string, options: StartEnvoyOptions): Promise<Envoy> {
  const saved = process.env['ENVOY_BIN'];
  process.env['ENVOY_BIN'] = bin;
  try {
    return startEnvoy(options);
  } finally {
    if (saved === undefined) delete process.env['ENVOY_BIN'];
    else process.env['ENVOY_BIN'] = saved;
  }
}
