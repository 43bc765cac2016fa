// Original file: proto/pbconfigentry/config_entry.proto

import type { ServiceRouteHTTPMatchHeader as _hashicorp_consul_internal_configentry_ServiceRouteHTTPMatchHeader, ServiceRouteHTTPMatchHeader__Output as _hashicorp_consul_internal_configentry_ServiceRouteHTTPMatchHeader__Output } from '../../../../hashicorp/consul/internal/configentry/ServiceRouteHTTPMatchHeader';
import type { ServiceRouteHTTPMatchQueryParam as _hashicorp_consul_internal_configentry_ServiceRouteHTTPMatchQueryParam, ServiceRouteHTTPMatchQueryParam__Output as _hashicorp_consul_internal_configentry_ServiceRouteHTTPMatchQueryParam__Output } from '../../../../hashicorp/consul/internal/configentry/ServiceRouteHTTPMatchQueryParam';

export interface ServiceRouteHTTPMatch {
  'PathExact'?: (string);
  'PathPrefix'?: (string);
  'PathRegex'?: (string);
  'Header'?: (_hashicorp_consul_internal_configentry_ServiceRouteHTTPMatchHeader)[];
  'QueryParam'?: (_hashicorp_consul_internal_configentry_ServiceRouteHTTPMatchQueryParam)[];
  'Methods'?: (string)[];
  'CaseInsensitive'?: (boolean);
}

export interface ServiceRouteHTTPMatch__Output {
  'PathExact': (string);
  'PathPrefix': (string);
  'PathRegex': (string);
  'Header': (_hashicorp_consul_internal_configentry_ServiceRouteHTTPMatchHeader__Output)[];
  'QueryParam': (_hashicorp_consul_internal_configentry_ServiceRouteHTTPMatchQueryParam__Output)[];
  'Methods': (string)[];
  'CaseInsensitive': (boolean);
}
