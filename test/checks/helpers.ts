// Waiting on a check's status through the catalog's own notifications (no polling).
import type { Catalog } from '../../src/catalog/catalog';
import type { HealthCheck } from '../../src/catalog/types';

export function untilCheck(
  catalog: Catalog,
  node: string,
  checkId: string,
  ok: (c: HealthCheck | undefined) => boolean,
  capMs = 20_000,
): Promise<HealthCheck | undefined> {
  return new Promise((resolve, reject) => {
    const test = () => {
      const check = catalog.ttlCheck(node, checkId)?.check;
      if (!ok(check)) return false;
      cleanup();
      resolve(check);
      return true;
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(
        new Error(
          `check ${checkId}: condition not met in ${capMs} ms; now ${JSON.stringify(catalog.ttlCheck(node, checkId)?.check)}`,
        ),
      );
    }, capMs);
    const off = catalog.onApplied(() => void test());
    const cleanup = () => {
      clearTimeout(timer);
      off();
    };
    test();
  });
}

export const status = (s: string) => (c: HealthCheck | undefined) => c?.Status === s;
