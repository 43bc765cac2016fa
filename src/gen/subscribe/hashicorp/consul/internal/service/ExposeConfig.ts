// Original file: proto/pbservice/service.proto

import type { ExposePath as _hashicorp_consul_internal_service_ExposePath, ExposePath__Output as _hashicorp_consul_internal_service_ExposePath__Output } from '../../../../hashicorp/consul/internal/service/ExposePath';

export interface ExposeConfig {
  'Checks'?: (boolean);
  'Paths'?: (_hashicorp_consul_internal_service_ExposePath)[];
}

export interface ExposeConfig__Output {
  'Checks': (boolean);
  'Paths': (_hashicorp_consul_internal_service_ExposePath__Output)[];
}
