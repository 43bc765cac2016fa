// Original file: proto/pbconfigentry/config_entry.proto

import type { Kind as _hashicorp_consul_internal_configentry_Kind, Kind__Output as _hashicorp_consul_internal_configentry_Kind__Output } from '../../../../hashicorp/consul/internal/configentry/Kind';
import type { EnterpriseMeta as _hashicorp_consul_internal_common_EnterpriseMeta, EnterpriseMeta__Output as _hashicorp_consul_internal_common_EnterpriseMeta__Output } from '../../../../hashicorp/consul/internal/common/EnterpriseMeta';
import type { RaftIndex as _hashicorp_consul_internal_common_RaftIndex, RaftIndex__Output as _hashicorp_consul_internal_common_RaftIndex__Output } from '../../../../hashicorp/consul/internal/common/RaftIndex';
import type { MeshConfig as _hashicorp_consul_internal_configentry_MeshConfig, MeshConfig__Output as _hashicorp_consul_internal_configentry_MeshConfig__Output } from '../../../../hashicorp/consul/internal/configentry/MeshConfig';
import type { ServiceResolver as _hashicorp_consul_internal_configentry_ServiceResolver, ServiceResolver__Output as _hashicorp_consul_internal_configentry_ServiceResolver__Output } from '../../../../hashicorp/consul/internal/configentry/ServiceResolver';
import type { IngressGateway as _hashicorp_consul_internal_configentry_IngressGateway, IngressGateway__Output as _hashicorp_consul_internal_configentry_IngressGateway__Output } from '../../../../hashicorp/consul/internal/configentry/IngressGateway';
import type { ServiceIntentions as _hashicorp_consul_internal_configentry_ServiceIntentions, ServiceIntentions__Output as _hashicorp_consul_internal_configentry_ServiceIntentions__Output } from '../../../../hashicorp/consul/internal/configentry/ServiceIntentions';
import type { ServiceDefaults as _hashicorp_consul_internal_configentry_ServiceDefaults, ServiceDefaults__Output as _hashicorp_consul_internal_configentry_ServiceDefaults__Output } from '../../../../hashicorp/consul/internal/configentry/ServiceDefaults';
import type { HTTPRoute as _hashicorp_consul_internal_configentry_HTTPRoute, HTTPRoute__Output as _hashicorp_consul_internal_configentry_HTTPRoute__Output } from '../../../../hashicorp/consul/internal/configentry/HTTPRoute';
import type { ServiceRouter as _hashicorp_consul_internal_configentry_ServiceRouter, ServiceRouter__Output as _hashicorp_consul_internal_configentry_ServiceRouter__Output } from '../../../../hashicorp/consul/internal/configentry/ServiceRouter';
import type { ServiceSplitter as _hashicorp_consul_internal_configentry_ServiceSplitter, ServiceSplitter__Output as _hashicorp_consul_internal_configentry_ServiceSplitter__Output } from '../../../../hashicorp/consul/internal/configentry/ServiceSplitter';
import type { ProxyDefaults as _hashicorp_consul_internal_configentry_ProxyDefaults, ProxyDefaults__Output as _hashicorp_consul_internal_configentry_ProxyDefaults__Output } from '../../../../hashicorp/consul/internal/configentry/ProxyDefaults';
import type { TerminatingGateway as _hashicorp_consul_internal_configentry_TerminatingGateway, TerminatingGateway__Output as _hashicorp_consul_internal_configentry_TerminatingGateway__Output } from '../../../../hashicorp/consul/internal/configentry/TerminatingGateway';

export interface ConfigEntry {
  'Kind'?: (_hashicorp_consul_internal_configentry_Kind);
  'Name'?: (string);
  'EnterpriseMeta'?: (_hashicorp_consul_internal_common_EnterpriseMeta | null);
  'RaftIndex'?: (_hashicorp_consul_internal_common_RaftIndex | null);
  'MeshConfig'?: (_hashicorp_consul_internal_configentry_MeshConfig | null);
  'ServiceResolver'?: (_hashicorp_consul_internal_configentry_ServiceResolver | null);
  'IngressGateway'?: (_hashicorp_consul_internal_configentry_IngressGateway | null);
  'ServiceIntentions'?: (_hashicorp_consul_internal_configentry_ServiceIntentions | null);
  'ServiceDefaults'?: (_hashicorp_consul_internal_configentry_ServiceDefaults | null);
  'HTTPRoute'?: (_hashicorp_consul_internal_configentry_HTTPRoute | null);
  'ServiceRouter'?: (_hashicorp_consul_internal_configentry_ServiceRouter | null);
  'ServiceSplitter'?: (_hashicorp_consul_internal_configentry_ServiceSplitter | null);
  'ProxyDefaults'?: (_hashicorp_consul_internal_configentry_ProxyDefaults | null);
  'TerminatingGateway'?: (_hashicorp_consul_internal_configentry_TerminatingGateway | null);
  'Entry'?: "MeshConfig"|"ServiceResolver"|"IngressGateway"|"ServiceIntentions"|"ServiceDefaults"|"HTTPRoute"|"ServiceRouter"|"ServiceSplitter"|"ProxyDefaults"|"TerminatingGateway";
}

export interface ConfigEntry__Output {
  'Kind': (_hashicorp_consul_internal_configentry_Kind__Output);
  'Name': (string);
  'EnterpriseMeta': (_hashicorp_consul_internal_common_EnterpriseMeta__Output | null);
  'RaftIndex': (_hashicorp_consul_internal_common_RaftIndex__Output | null);
  'MeshConfig'?: (_hashicorp_consul_internal_configentry_MeshConfig__Output | null);
  'ServiceResolver'?: (_hashicorp_consul_internal_configentry_ServiceResolver__Output | null);
  'IngressGateway'?: (_hashicorp_consul_internal_configentry_IngressGateway__Output | null);
  'ServiceIntentions'?: (_hashicorp_consul_internal_configentry_ServiceIntentions__Output | null);
  'ServiceDefaults'?: (_hashicorp_consul_internal_configentry_ServiceDefaults__Output | null);
  'HTTPRoute'?: (_hashicorp_consul_internal_configentry_HTTPRoute__Output | null);
  'ServiceRouter'?: (_hashicorp_consul_internal_configentry_ServiceRouter__Output | null);
  'ServiceSplitter'?: (_hashicorp_consul_internal_configentry_ServiceSplitter__Output | null);
  'ProxyDefaults'?: (_hashicorp_consul_internal_configentry_ProxyDefaults__Output | null);
  'TerminatingGateway'?: (_hashicorp_consul_internal_configentry_TerminatingGateway__Output | null);
  'Entry'?: "MeshConfig"|"ServiceResolver"|"IngressGateway"|"ServiceIntentions"|"ServiceDefaults"|"HTTPRoute"|"ServiceRouter"|"ServiceSplitter"|"ProxyDefaults"|"TerminatingGateway";
}
