// The xDS side of the request limits (docs/security.md, "Limits").
import { HubError } from '../../errors';

/** A request naming more resources than --xds-max-resource-names: RESOURCE_EXHAUSTED naming the flag. */
export function tooManyNames(count: number, max: number): HubError {
  return new HubError('RATE_LIMITED', `request names ${count} resources: at most ${max} (--xds-max-resource-names)`);
}
