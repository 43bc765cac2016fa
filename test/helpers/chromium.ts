// Debian's headless Chromium for the dashboard's browser tests (installed by
// scripts/ensure-system-deps.sh), with the flags that keep it quiet and local.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { type BrowserContext, chromium } from 'playwright-core';
import { guardProcesses } from './procs';
export const CHROMIUM = '/usr/bin/chromium';

export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Debian's Chromium through playwright-core, with its own profile in `profileDir`.
 * Chromium is Playwright's child: the process guard kills it if the test process is SIGKILLed.
 */
export async function launchChromium(profileDir: string): Promise<BrowserContext> {
  assert.ok(
    existsSync(CHROMIUM),
    `${CHROMIUM} is missing: bash scripts/ensure-system-deps.sh installs Debian's chromium`,
  );
  guardProcesses();
  return chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_FLAGS,
    viewport: { width: 1280, height: 800 },
  });
}
