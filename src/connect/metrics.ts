// The built-in CA's metrics (docs/mesh.md, docs/operations.md): leaves this
// hub issued, and the leaves in the
// log by whether the active root signed them (after a rotation the second
// count falls to zero as leaves are reissued).
import { Counter, Gauge, type Registry } from 'prom-client';
import type { Catalog } from '../catalog/catalog';
import type { ConnectCa } from './manager';
import { activeRoot } from './state';

export function registerConnectMetrics(registry: Registry, ca: ConnectCa, catalog: Pick<Catalog, 'connectCa'>): void {
  let issued = 0;
  new Counter({
    name: 'xdshub_connect_leaves_issued_total',
    help: 'Leaf certificates this hub issued (made a key and signed; another hub may have won the race to the log)',
    registers: [registry],
    collect() {
      const s = ca.stats().issued;
      this.inc(s - issued);
      issued = s;
    },
  });
  new Gauge({
    name: 'xdshub_connect_leaves',
    help: 'Leaf certificates in the log, by whether the active root signed them',
    labelNames: ['root'] as const,
    registers: [registry],
    collect() {
      const state = catalog.connectCa();
      const active = activeRoot(state)?.ID;
      let current = 0;
      for (const leaf of state.leaves.values()) if (leaf.RootID === active) current++;
      this.set({ root: 'active' }, current);
      this.set({ root: 'rotated_out' }, state.leaves.size - current);
    },
  });
}
