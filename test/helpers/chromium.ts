// Debian's headless Chromium for the dashboard's browser tests (installed by
// scripts/ensure-system-deps.sh), with the flags that keep it quiet and local.
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
