// The sidecar half of an agent registration with Connect.SidecarService: the
// proxy service and its checks, written in the same entry as the parent.
import { ApplyError, upsertCheck, upsertService } from './catalog-ops';
import type { SidecarInput } from './commands';
import type { Draft } from './tables';

export function upsertSidecar(draft: Draft, nodeName: string, sidecar: SidecarInput): void {
  const { service } = sidecar;
  if (sidecar.portFree) {
    // The port was the lowest free one when the request was read; another
    // registration may have taken it since. Refused, the route picks again.
    const taken = [...(draft.record(nodeName)?.services.values() ?? [])].find(
      (s) => s.ID !== service.ID && s.Port === service.Port,
    );
    if (taken)
      throw new ApplyError(
        'CONFLICT',
        `sidecar port ${service.Port} is taken by service "${taken.ID}"`,
        'Connect.SidecarService.Port',
      );
  }
  upsertService(draft, nodeName, service, 'Connect.SidecarService');
  sidecar.checks.forEach((check, i) => upsertCheck(draft, nodeName, check, `Connect.SidecarService.Checks[${i}]`));
}
