import type * as grpc from '@grpc/grpc-js';
import type { EnumTypeDefinition, MessageTypeDefinition } from '@grpc/proto-loader';

import type { Duration as _google_protobuf_Duration, Duration__Output as _google_protobuf_Duration__Output } from './google/protobuf/Duration';
import type { ListValue as _google_protobuf_ListValue, ListValue__Output as _google_protobuf_ListValue__Output } from './google/protobuf/ListValue';
import type { Struct as _google_protobuf_Struct, Struct__Output as _google_protobuf_Struct__Output } from './google/protobuf/Struct';
import type { Timestamp as _google_protobuf_Timestamp, Timestamp__Output as _google_protobuf_Timestamp__Output } from './google/protobuf/Timestamp';
import type { Value as _google_protobuf_Value, Value__Output as _google_protobuf_Value__Output } from './google/protobuf/Value';
import type { EnterpriseMeta as _hashicorp_consul_internal_common_EnterpriseMeta, EnterpriseMeta__Output as _hashicorp_consul_internal_common_EnterpriseMeta__Output } from './hashicorp/consul/internal/common/EnterpriseMeta';
import type { EnvoyExtension as _hashicorp_consul_internal_common_EnvoyExtension, EnvoyExtension__Output as _hashicorp_consul_internal_common_EnvoyExtension__Output } from './hashicorp/consul/internal/common/EnvoyExtension';
import type { Locality as _hashicorp_consul_internal_common_Locality, Locality__Output as _hashicorp_consul_internal_common_Locality__Output } from './hashicorp/consul/internal/common/Locality';
import type { RaftIndex as _hashicorp_consul_internal_common_RaftIndex, RaftIndex__Output as _hashicorp_consul_internal_common_RaftIndex__Output } from './hashicorp/consul/internal/common/RaftIndex';
import type { ConfigEntry as _hashicorp_consul_internal_configentry_ConfigEntry, ConfigEntry__Output as _hashicorp_consul_internal_configentry_ConfigEntry__Output } from './hashicorp/consul/internal/configentry/ConfigEntry';
import type { CookieConfig as _hashicorp_consul_internal_configentry_CookieConfig, CookieConfig__Output as _hashicorp_consul_internal_configentry_CookieConfig__Output } from './hashicorp/consul/internal/configentry/CookieConfig';
import type { DestinationConfig as _hashicorp_consul_internal_configentry_DestinationConfig, DestinationConfig__Output as _hashicorp_consul_internal_configentry_DestinationConfig__Output } from './hashicorp/consul/internal/configentry/DestinationConfig';
import type { ExposeConfig as _hashicorp_consul_internal_configentry_ExposeConfig, ExposeConfig__Output as _hashicorp_consul_internal_configentry_ExposeConfig__Output } from './hashicorp/consul/internal/configentry/ExposeConfig';
import type { ExposePath as _hashicorp_consul_internal_configentry_ExposePath, ExposePath__Output as _hashicorp_consul_internal_configentry_ExposePath__Output } from './hashicorp/consul/internal/configentry/ExposePath';
import type { GatewayServiceTLSConfig as _hashicorp_consul_internal_configentry_GatewayServiceTLSConfig, GatewayServiceTLSConfig__Output as _hashicorp_consul_internal_configentry_GatewayServiceTLSConfig__Output } from './hashicorp/consul/internal/configentry/GatewayServiceTLSConfig';
import type { GatewayTLSConfig as _hashicorp_consul_internal_configentry_GatewayTLSConfig, GatewayTLSConfig__Output as _hashicorp_consul_internal_configentry_GatewayTLSConfig__Output } from './hashicorp/consul/internal/configentry/GatewayTLSConfig';
import type { GatewayTLSSDSConfig as _hashicorp_consul_internal_configentry_GatewayTLSSDSConfig, GatewayTLSSDSConfig__Output as _hashicorp_consul_internal_configentry_GatewayTLSSDSConfig__Output } from './hashicorp/consul/internal/configentry/GatewayTLSSDSConfig';
import type { HTTPHeaderModifiers as _hashicorp_consul_internal_configentry_HTTPHeaderModifiers, HTTPHeaderModifiers__Output as _hashicorp_consul_internal_configentry_HTTPHeaderModifiers__Output } from './hashicorp/consul/internal/configentry/HTTPHeaderModifiers';
import type { HTTPRoute as _hashicorp_consul_internal_configentry_HTTPRoute, HTTPRoute__Output as _hashicorp_consul_internal_configentry_HTTPRoute__Output } from './hashicorp/consul/internal/configentry/HTTPRoute';
import type { HashPolicy as _hashicorp_consul_internal_configentry_HashPolicy, HashPolicy__Output as _hashicorp_consul_internal_configentry_HashPolicy__Output } from './hashicorp/consul/internal/configentry/HashPolicy';
import type { IngressGateway as _hashicorp_consul_internal_configentry_IngressGateway, IngressGateway__Output as _hashicorp_consul_internal_configentry_IngressGateway__Output } from './hashicorp/consul/internal/configentry/IngressGateway';
import type { IngressListener as _hashicorp_consul_internal_configentry_IngressListener, IngressListener__Output as _hashicorp_consul_internal_configentry_IngressListener__Output } from './hashicorp/consul/internal/configentry/IngressListener';
import type { IngressService as _hashicorp_consul_internal_configentry_IngressService, IngressService__Output as _hashicorp_consul_internal_configentry_IngressService__Output } from './hashicorp/consul/internal/configentry/IngressService';
import type { IngressServiceConfig as _hashicorp_consul_internal_configentry_IngressServiceConfig, IngressServiceConfig__Output as _hashicorp_consul_internal_configentry_IngressServiceConfig__Output } from './hashicorp/consul/internal/configentry/IngressServiceConfig';
import type { InstanceLevelRateLimits as _hashicorp_consul_internal_configentry_InstanceLevelRateLimits, InstanceLevelRateLimits__Output as _hashicorp_consul_internal_configentry_InstanceLevelRateLimits__Output } from './hashicorp/consul/internal/configentry/InstanceLevelRateLimits';
import type { InstanceLevelRouteRateLimits as _hashicorp_consul_internal_configentry_InstanceLevelRouteRateLimits, InstanceLevelRouteRateLimits__Output as _hashicorp_consul_internal_configentry_InstanceLevelRouteRateLimits__Output } from './hashicorp/consul/internal/configentry/InstanceLevelRouteRateLimits';
import type { IntentionHTTPHeaderPermission as _hashicorp_consul_internal_configentry_IntentionHTTPHeaderPermission, IntentionHTTPHeaderPermission__Output as _hashicorp_consul_internal_configentry_IntentionHTTPHeaderPermission__Output } from './hashicorp/consul/internal/configentry/IntentionHTTPHeaderPermission';
import type { IntentionHTTPPermission as _hashicorp_consul_internal_configentry_IntentionHTTPPermission, IntentionHTTPPermission__Output as _hashicorp_consul_internal_configentry_IntentionHTTPPermission__Output } from './hashicorp/consul/internal/configentry/IntentionHTTPPermission';
import type { IntentionJWTClaimVerification as _hashicorp_consul_internal_configentry_IntentionJWTClaimVerification, IntentionJWTClaimVerification__Output as _hashicorp_consul_internal_configentry_IntentionJWTClaimVerification__Output } from './hashicorp/consul/internal/configentry/IntentionJWTClaimVerification';
import type { IntentionJWTProvider as _hashicorp_consul_internal_configentry_IntentionJWTProvider, IntentionJWTProvider__Output as _hashicorp_consul_internal_configentry_IntentionJWTProvider__Output } from './hashicorp/consul/internal/configentry/IntentionJWTProvider';
import type { IntentionJWTRequirement as _hashicorp_consul_internal_configentry_IntentionJWTRequirement, IntentionJWTRequirement__Output as _hashicorp_consul_internal_configentry_IntentionJWTRequirement__Output } from './hashicorp/consul/internal/configentry/IntentionJWTRequirement';
import type { IntentionPermission as _hashicorp_consul_internal_configentry_IntentionPermission, IntentionPermission__Output as _hashicorp_consul_internal_configentry_IntentionPermission__Output } from './hashicorp/consul/internal/configentry/IntentionPermission';
import type { LeastRequestConfig as _hashicorp_consul_internal_configentry_LeastRequestConfig, LeastRequestConfig__Output as _hashicorp_consul_internal_configentry_LeastRequestConfig__Output } from './hashicorp/consul/internal/configentry/LeastRequestConfig';
import type { LinkedService as _hashicorp_consul_internal_configentry_LinkedService, LinkedService__Output as _hashicorp_consul_internal_configentry_LinkedService__Output } from './hashicorp/consul/internal/configentry/LinkedService';
import type { LoadBalancer as _hashicorp_consul_internal_configentry_LoadBalancer, LoadBalancer__Output as _hashicorp_consul_internal_configentry_LoadBalancer__Output } from './hashicorp/consul/internal/configentry/LoadBalancer';
import type { MeshConfig as _hashicorp_consul_internal_configentry_MeshConfig, MeshConfig__Output as _hashicorp_consul_internal_configentry_MeshConfig__Output } from './hashicorp/consul/internal/configentry/MeshConfig';
import type { MeshDirectionalHTTPConfig as _hashicorp_consul_internal_configentry_MeshDirectionalHTTPConfig, MeshDirectionalHTTPConfig__Output as _hashicorp_consul_internal_configentry_MeshDirectionalHTTPConfig__Output } from './hashicorp/consul/internal/configentry/MeshDirectionalHTTPConfig';
import type { MeshDirectionalTLSConfig as _hashicorp_consul_internal_configentry_MeshDirectionalTLSConfig, MeshDirectionalTLSConfig__Output as _hashicorp_consul_internal_configentry_MeshDirectionalTLSConfig__Output } from './hashicorp/consul/internal/configentry/MeshDirectionalTLSConfig';
import type { MeshGatewayConfig as _hashicorp_consul_internal_configentry_MeshGatewayConfig, MeshGatewayConfig__Output as _hashicorp_consul_internal_configentry_MeshGatewayConfig__Output } from './hashicorp/consul/internal/configentry/MeshGatewayConfig';
import type { MeshHTTPConfig as _hashicorp_consul_internal_configentry_MeshHTTPConfig, MeshHTTPConfig__Output as _hashicorp_consul_internal_configentry_MeshHTTPConfig__Output } from './hashicorp/consul/internal/configentry/MeshHTTPConfig';
import type { MeshTLSConfig as _hashicorp_consul_internal_configentry_MeshTLSConfig, MeshTLSConfig__Output as _hashicorp_consul_internal_configentry_MeshTLSConfig__Output } from './hashicorp/consul/internal/configentry/MeshTLSConfig';
import type { PassiveHealthCheck as _hashicorp_consul_internal_configentry_PassiveHealthCheck, PassiveHealthCheck__Output as _hashicorp_consul_internal_configentry_PassiveHealthCheck__Output } from './hashicorp/consul/internal/configentry/PassiveHealthCheck';
import type { PeeringMeshConfig as _hashicorp_consul_internal_configentry_PeeringMeshConfig, PeeringMeshConfig__Output as _hashicorp_consul_internal_configentry_PeeringMeshConfig__Output } from './hashicorp/consul/internal/configentry/PeeringMeshConfig';
import type { ProxyDefaults as _hashicorp_consul_internal_configentry_ProxyDefaults, ProxyDefaults__Output as _hashicorp_consul_internal_configentry_ProxyDefaults__Output } from './hashicorp/consul/internal/configentry/ProxyDefaults';
import type { RateLimits as _hashicorp_consul_internal_configentry_RateLimits, RateLimits__Output as _hashicorp_consul_internal_configentry_RateLimits__Output } from './hashicorp/consul/internal/configentry/RateLimits';
import type { RequestNormalizationMeshConfig as _hashicorp_consul_internal_configentry_RequestNormalizationMeshConfig, RequestNormalizationMeshConfig__Output as _hashicorp_consul_internal_configentry_RequestNormalizationMeshConfig__Output } from './hashicorp/consul/internal/configentry/RequestNormalizationMeshConfig';
import type { RingHashConfig as _hashicorp_consul_internal_configentry_RingHashConfig, RingHashConfig__Output as _hashicorp_consul_internal_configentry_RingHashConfig__Output } from './hashicorp/consul/internal/configentry/RingHashConfig';
import type { ServiceDefaults as _hashicorp_consul_internal_configentry_ServiceDefaults, ServiceDefaults__Output as _hashicorp_consul_internal_configentry_ServiceDefaults__Output } from './hashicorp/consul/internal/configentry/ServiceDefaults';
import type { ServiceIntentions as _hashicorp_consul_internal_configentry_ServiceIntentions, ServiceIntentions__Output as _hashicorp_consul_internal_configentry_ServiceIntentions__Output } from './hashicorp/consul/internal/configentry/ServiceIntentions';
import type { ServiceResolver as _hashicorp_consul_internal_configentry_ServiceResolver, ServiceResolver__Output as _hashicorp_consul_internal_configentry_ServiceResolver__Output } from './hashicorp/consul/internal/configentry/ServiceResolver';
import type { ServiceResolverFailover as _hashicorp_consul_internal_configentry_ServiceResolverFailover, ServiceResolverFailover__Output as _hashicorp_consul_internal_configentry_ServiceResolverFailover__Output } from './hashicorp/consul/internal/configentry/ServiceResolverFailover';
import type { ServiceResolverFailoverPolicy as _hashicorp_consul_internal_configentry_ServiceResolverFailoverPolicy, ServiceResolverFailoverPolicy__Output as _hashicorp_consul_internal_configentry_ServiceResolverFailoverPolicy__Output } from './hashicorp/consul/internal/configentry/ServiceResolverFailoverPolicy';
import type { ServiceResolverFailoverTarget as _hashicorp_consul_internal_configentry_ServiceResolverFailoverTarget, ServiceResolverFailoverTarget__Output as _hashicorp_consul_internal_configentry_ServiceResolverFailoverTarget__Output } from './hashicorp/consul/internal/configentry/ServiceResolverFailoverTarget';
import type { ServiceResolverPrioritizeByLocality as _hashicorp_consul_internal_configentry_ServiceResolverPrioritizeByLocality, ServiceResolverPrioritizeByLocality__Output as _hashicorp_consul_internal_configentry_ServiceResolverPrioritizeByLocality__Output } from './hashicorp/consul/internal/configentry/ServiceResolverPrioritizeByLocality';
import type { ServiceResolverRedirect as _hashicorp_consul_internal_configentry_ServiceResolverRedirect, ServiceResolverRedirect__Output as _hashicorp_consul_internal_configentry_ServiceResolverRedirect__Output } from './hashicorp/consul/internal/configentry/ServiceResolverRedirect';
import type { ServiceResolverSubset as _hashicorp_consul_internal_configentry_ServiceResolverSubset, ServiceResolverSubset__Output as _hashicorp_consul_internal_configentry_ServiceResolverSubset__Output } from './hashicorp/consul/internal/configentry/ServiceResolverSubset';
import type { ServiceRoute as _hashicorp_consul_internal_configentry_ServiceRoute, ServiceRoute__Output as _hashicorp_consul_internal_configentry_ServiceRoute__Output } from './hashicorp/consul/internal/configentry/ServiceRoute';
import type { ServiceRouteDestination as _hashicorp_consul_internal_configentry_ServiceRouteDestination, ServiceRouteDestination__Output as _hashicorp_consul_internal_configentry_ServiceRouteDestination__Output } from './hashicorp/consul/internal/configentry/ServiceRouteDestination';
import type { ServiceRouteHTTPMatch as _hashicorp_consul_internal_configentry_ServiceRouteHTTPMatch, ServiceRouteHTTPMatch__Output as _hashicorp_consul_internal_configentry_ServiceRouteHTTPMatch__Output } from './hashicorp/consul/internal/configentry/ServiceRouteHTTPMatch';
import type { ServiceRouteHTTPMatchHeader as _hashicorp_consul_internal_configentry_ServiceRouteHTTPMatchHeader, ServiceRouteHTTPMatchHeader__Output as _hashicorp_consul_internal_configentry_ServiceRouteHTTPMatchHeader__Output } from './hashicorp/consul/internal/configentry/ServiceRouteHTTPMatchHeader';
import type { ServiceRouteHTTPMatchQueryParam as _hashicorp_consul_internal_configentry_ServiceRouteHTTPMatchQueryParam, ServiceRouteHTTPMatchQueryParam__Output as _hashicorp_consul_internal_configentry_ServiceRouteHTTPMatchQueryParam__Output } from './hashicorp/consul/internal/configentry/ServiceRouteHTTPMatchQueryParam';
import type { ServiceRouteMatch as _hashicorp_consul_internal_configentry_ServiceRouteMatch, ServiceRouteMatch__Output as _hashicorp_consul_internal_configentry_ServiceRouteMatch__Output } from './hashicorp/consul/internal/configentry/ServiceRouteMatch';
import type { ServiceRouter as _hashicorp_consul_internal_configentry_ServiceRouter, ServiceRouter__Output as _hashicorp_consul_internal_configentry_ServiceRouter__Output } from './hashicorp/consul/internal/configentry/ServiceRouter';
import type { ServiceSplit as _hashicorp_consul_internal_configentry_ServiceSplit, ServiceSplit__Output as _hashicorp_consul_internal_configentry_ServiceSplit__Output } from './hashicorp/consul/internal/configentry/ServiceSplit';
import type { ServiceSplitter as _hashicorp_consul_internal_configentry_ServiceSplitter, ServiceSplitter__Output as _hashicorp_consul_internal_configentry_ServiceSplitter__Output } from './hashicorp/consul/internal/configentry/ServiceSplitter';
import type { SourceIntention as _hashicorp_consul_internal_configentry_SourceIntention, SourceIntention__Output as _hashicorp_consul_internal_configentry_SourceIntention__Output } from './hashicorp/consul/internal/configentry/SourceIntention';
import type { TerminatingGateway as _hashicorp_consul_internal_configentry_TerminatingGateway, TerminatingGateway__Output as _hashicorp_consul_internal_configentry_TerminatingGateway__Output } from './hashicorp/consul/internal/configentry/TerminatingGateway';
import type { TransparentProxyConfig as _hashicorp_consul_internal_configentry_TransparentProxyConfig, TransparentProxyConfig__Output as _hashicorp_consul_internal_configentry_TransparentProxyConfig__Output } from './hashicorp/consul/internal/configentry/TransparentProxyConfig';
import type { TransparentProxyMeshConfig as _hashicorp_consul_internal_configentry_TransparentProxyMeshConfig, TransparentProxyMeshConfig__Output as _hashicorp_consul_internal_configentry_TransparentProxyMeshConfig__Output } from './hashicorp/consul/internal/configentry/TransparentProxyMeshConfig';
import type { UpstreamConfig as _hashicorp_consul_internal_configentry_UpstreamConfig, UpstreamConfig__Output as _hashicorp_consul_internal_configentry_UpstreamConfig__Output } from './hashicorp/consul/internal/configentry/UpstreamConfig';
import type { UpstreamConfiguration as _hashicorp_consul_internal_configentry_UpstreamConfiguration, UpstreamConfiguration__Output as _hashicorp_consul_internal_configentry_UpstreamConfiguration__Output } from './hashicorp/consul/internal/configentry/UpstreamConfiguration';
import type { UpstreamLimits as _hashicorp_consul_internal_configentry_UpstreamLimits, UpstreamLimits__Output as _hashicorp_consul_internal_configentry_UpstreamLimits__Output } from './hashicorp/consul/internal/configentry/UpstreamLimits';
import type { AIConfig as _hashicorp_consul_internal_service_AIConfig, AIConfig__Output as _hashicorp_consul_internal_service_AIConfig__Output } from './hashicorp/consul/internal/service/AIConfig';
import type { AccessLogsConfig as _hashicorp_consul_internal_service_AccessLogsConfig, AccessLogsConfig__Output as _hashicorp_consul_internal_service_AccessLogsConfig__Output } from './hashicorp/consul/internal/service/AccessLogsConfig';
import type { CheckServiceNode as _hashicorp_consul_internal_service_CheckServiceNode, CheckServiceNode__Output as _hashicorp_consul_internal_service_CheckServiceNode__Output } from './hashicorp/consul/internal/service/CheckServiceNode';
import type { CheckType as _hashicorp_consul_internal_service_CheckType, CheckType__Output as _hashicorp_consul_internal_service_CheckType__Output } from './hashicorp/consul/internal/service/CheckType';
import type { ConnectProxyConfig as _hashicorp_consul_internal_service_ConnectProxyConfig, ConnectProxyConfig__Output as _hashicorp_consul_internal_service_ConnectProxyConfig__Output } from './hashicorp/consul/internal/service/ConnectProxyConfig';
import type { ExposeConfig as _hashicorp_consul_internal_service_ExposeConfig, ExposeConfig__Output as _hashicorp_consul_internal_service_ExposeConfig__Output } from './hashicorp/consul/internal/service/ExposeConfig';
import type { ExposePath as _hashicorp_consul_internal_service_ExposePath, ExposePath__Output as _hashicorp_consul_internal_service_ExposePath__Output } from './hashicorp/consul/internal/service/ExposePath';
import type { HeaderValue as _hashicorp_consul_internal_service_HeaderValue, HeaderValue__Output as _hashicorp_consul_internal_service_HeaderValue__Output } from './hashicorp/consul/internal/service/HeaderValue';
import type { HealthCheck as _hashicorp_consul_internal_service_HealthCheck, HealthCheck__Output as _hashicorp_consul_internal_service_HealthCheck__Output } from './hashicorp/consul/internal/service/HealthCheck';
import type { HealthCheckDefinition as _hashicorp_consul_internal_service_HealthCheckDefinition, HealthCheckDefinition__Output as _hashicorp_consul_internal_service_HealthCheckDefinition__Output } from './hashicorp/consul/internal/service/HealthCheckDefinition';
import type { IndexedCheckServiceNodes as _hashicorp_consul_internal_service_IndexedCheckServiceNodes, IndexedCheckServiceNodes__Output as _hashicorp_consul_internal_service_IndexedCheckServiceNodes__Output } from './hashicorp/consul/internal/service/IndexedCheckServiceNodes';
import type { MeshGatewayConfig as _hashicorp_consul_internal_service_MeshGatewayConfig, MeshGatewayConfig__Output as _hashicorp_consul_internal_service_MeshGatewayConfig__Output } from './hashicorp/consul/internal/service/MeshGatewayConfig';
import type { Node as _hashicorp_consul_internal_service_Node, Node__Output as _hashicorp_consul_internal_service_Node__Output } from './hashicorp/consul/internal/service/Node';
import type { NodeService as _hashicorp_consul_internal_service_NodeService, NodeService__Output as _hashicorp_consul_internal_service_NodeService__Output } from './hashicorp/consul/internal/service/NodeService';
import type { PeeringServiceMeta as _hashicorp_consul_internal_service_PeeringServiceMeta, PeeringServiceMeta__Output as _hashicorp_consul_internal_service_PeeringServiceMeta__Output } from './hashicorp/consul/internal/service/PeeringServiceMeta';
import type { ServiceAddress as _hashicorp_consul_internal_service_ServiceAddress, ServiceAddress__Output as _hashicorp_consul_internal_service_ServiceAddress__Output } from './hashicorp/consul/internal/service/ServiceAddress';
import type { ServiceConnect as _hashicorp_consul_internal_service_ServiceConnect, ServiceConnect__Output as _hashicorp_consul_internal_service_ServiceConnect__Output } from './hashicorp/consul/internal/service/ServiceConnect';
import type { ServiceDefinition as _hashicorp_consul_internal_service_ServiceDefinition, ServiceDefinition__Output as _hashicorp_consul_internal_service_ServiceDefinition__Output } from './hashicorp/consul/internal/service/ServiceDefinition';
import type { ServicePort as _hashicorp_consul_internal_service_ServicePort, ServicePort__Output as _hashicorp_consul_internal_service_ServicePort__Output } from './hashicorp/consul/internal/service/ServicePort';
import type { TransparentProxyConfig as _hashicorp_consul_internal_service_TransparentProxyConfig, TransparentProxyConfig__Output as _hashicorp_consul_internal_service_TransparentProxyConfig__Output } from './hashicorp/consul/internal/service/TransparentProxyConfig';
import type { Upstream as _hashicorp_consul_internal_service_Upstream, Upstream__Output as _hashicorp_consul_internal_service_Upstream__Output } from './hashicorp/consul/internal/service/Upstream';
import type { Weights as _hashicorp_consul_internal_service_Weights, Weights__Output as _hashicorp_consul_internal_service_Weights__Output } from './hashicorp/consul/internal/service/Weights';
import type { ConfigEntryUpdate as _subscribe_ConfigEntryUpdate, ConfigEntryUpdate__Output as _subscribe_ConfigEntryUpdate__Output } from './subscribe/ConfigEntryUpdate';
import type { Event as _subscribe_Event, Event__Output as _subscribe_Event__Output } from './subscribe/Event';
import type { EventBatch as _subscribe_EventBatch, EventBatch__Output as _subscribe_EventBatch__Output } from './subscribe/EventBatch';
import type { NamedSubject as _subscribe_NamedSubject, NamedSubject__Output as _subscribe_NamedSubject__Output } from './subscribe/NamedSubject';
import type { ServiceHealthUpdate as _subscribe_ServiceHealthUpdate, ServiceHealthUpdate__Output as _subscribe_ServiceHealthUpdate__Output } from './subscribe/ServiceHealthUpdate';
import type { ServiceListUpdate as _subscribe_ServiceListUpdate, ServiceListUpdate__Output as _subscribe_ServiceListUpdate__Output } from './subscribe/ServiceListUpdate';
import type { StateChangeSubscriptionClient as _subscribe_StateChangeSubscriptionClient, StateChangeSubscriptionDefinition as _subscribe_StateChangeSubscriptionDefinition } from './subscribe/StateChangeSubscription';
import type { SubscribeRequest as _subscribe_SubscribeRequest, SubscribeRequest__Output as _subscribe_SubscribeRequest__Output } from './subscribe/SubscribeRequest';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  google: {
    protobuf: {
      Duration: MessageTypeDefinition<_google_protobuf_Duration, _google_protobuf_Duration__Output>
      ListValue: MessageTypeDefinition<_google_protobuf_ListValue, _google_protobuf_ListValue__Output>
      NullValue: EnumTypeDefinition
      Struct: MessageTypeDefinition<_google_protobuf_Struct, _google_protobuf_Struct__Output>
      Timestamp: MessageTypeDefinition<_google_protobuf_Timestamp, _google_protobuf_Timestamp__Output>
      Value: MessageTypeDefinition<_google_protobuf_Value, _google_protobuf_Value__Output>
    }
  }
  hashicorp: {
    consul: {
      internal: {
        common: {
          EnterpriseMeta: MessageTypeDefinition<_hashicorp_consul_internal_common_EnterpriseMeta, _hashicorp_consul_internal_common_EnterpriseMeta__Output>
          EnvoyExtension: MessageTypeDefinition<_hashicorp_consul_internal_common_EnvoyExtension, _hashicorp_consul_internal_common_EnvoyExtension__Output>
          Locality: MessageTypeDefinition<_hashicorp_consul_internal_common_Locality, _hashicorp_consul_internal_common_Locality__Output>
          RaftIndex: MessageTypeDefinition<_hashicorp_consul_internal_common_RaftIndex, _hashicorp_consul_internal_common_RaftIndex__Output>
        }
        configentry: {
          ConfigEntry: MessageTypeDefinition<_hashicorp_consul_internal_configentry_ConfigEntry, _hashicorp_consul_internal_configentry_ConfigEntry__Output>
          CookieConfig: MessageTypeDefinition<_hashicorp_consul_internal_configentry_CookieConfig, _hashicorp_consul_internal_configentry_CookieConfig__Output>
          DestinationConfig: MessageTypeDefinition<_hashicorp_consul_internal_configentry_DestinationConfig, _hashicorp_consul_internal_configentry_DestinationConfig__Output>
          ExposeConfig: MessageTypeDefinition<_hashicorp_consul_internal_configentry_ExposeConfig, _hashicorp_consul_internal_configentry_ExposeConfig__Output>
          ExposePath: MessageTypeDefinition<_hashicorp_consul_internal_configentry_ExposePath, _hashicorp_consul_internal_configentry_ExposePath__Output>
          GatewayServiceTLSConfig: MessageTypeDefinition<_hashicorp_consul_internal_configentry_GatewayServiceTLSConfig, _hashicorp_consul_internal_configentry_GatewayServiceTLSConfig__Output>
          GatewayTLSConfig: MessageTypeDefinition<_hashicorp_consul_internal_configentry_GatewayTLSConfig, _hashicorp_consul_internal_configentry_GatewayTLSConfig__Output>
          GatewayTLSSDSConfig: MessageTypeDefinition<_hashicorp_consul_internal_configentry_GatewayTLSSDSConfig, _hashicorp_consul_internal_configentry_GatewayTLSSDSConfig__Output>
          HTTPHeaderModifiers: MessageTypeDefinition<_hashicorp_consul_internal_configentry_HTTPHeaderModifiers, _hashicorp_consul_internal_configentry_HTTPHeaderModifiers__Output>
          HTTPRoute: MessageTypeDefinition<_hashicorp_consul_internal_configentry_HTTPRoute, _hashicorp_consul_internal_configentry_HTTPRoute__Output>
          HashPolicy: MessageTypeDefinition<_hashicorp_consul_internal_configentry_HashPolicy, _hashicorp_consul_internal_configentry_HashPolicy__Output>
          HeadersWithUnderscoresAction: EnumTypeDefinition
          IngressGateway: MessageTypeDefinition<_hashicorp_consul_internal_configentry_IngressGateway, _hashicorp_consul_internal_configentry_IngressGateway__Output>
          IngressListener: MessageTypeDefinition<_hashicorp_consul_internal_configentry_IngressListener, _hashicorp_consul_internal_configentry_IngressListener__Output>
          IngressService: MessageTypeDefinition<_hashicorp_consul_internal_configentry_IngressService, _hashicorp_consul_internal_configentry_IngressService__Output>
          IngressServiceConfig: MessageTypeDefinition<_hashicorp_consul_internal_configentry_IngressServiceConfig, _hashicorp_consul_internal_configentry_IngressServiceConfig__Output>
          InstanceLevelRateLimits: MessageTypeDefinition<_hashicorp_consul_internal_configentry_InstanceLevelRateLimits, _hashicorp_consul_internal_configentry_InstanceLevelRateLimits__Output>
          InstanceLevelRouteRateLimits: MessageTypeDefinition<_hashicorp_consul_internal_configentry_InstanceLevelRouteRateLimits, _hashicorp_consul_internal_configentry_InstanceLevelRouteRateLimits__Output>
          IntentionAction: EnumTypeDefinition
          IntentionHTTPHeaderPermission: MessageTypeDefinition<_hashicorp_consul_internal_configentry_IntentionHTTPHeaderPermission, _hashicorp_consul_internal_configentry_IntentionHTTPHeaderPermission__Output>
          IntentionHTTPPermission: MessageTypeDefinition<_hashicorp_consul_internal_configentry_IntentionHTTPPermission, _hashicorp_consul_internal_configentry_IntentionHTTPPermission__Output>
          IntentionJWTClaimVerification: MessageTypeDefinition<_hashicorp_consul_internal_configentry_IntentionJWTClaimVerification, _hashicorp_consul_internal_configentry_IntentionJWTClaimVerification__Output>
          IntentionJWTProvider: MessageTypeDefinition<_hashicorp_consul_internal_configentry_IntentionJWTProvider, _hashicorp_consul_internal_configentry_IntentionJWTProvider__Output>
          IntentionJWTRequirement: MessageTypeDefinition<_hashicorp_consul_internal_configentry_IntentionJWTRequirement, _hashicorp_consul_internal_configentry_IntentionJWTRequirement__Output>
          IntentionPermission: MessageTypeDefinition<_hashicorp_consul_internal_configentry_IntentionPermission, _hashicorp_consul_internal_configentry_IntentionPermission__Output>
          IntentionSourceType: EnumTypeDefinition
          Kind: EnumTypeDefinition
          LeastRequestConfig: MessageTypeDefinition<_hashicorp_consul_internal_configentry_LeastRequestConfig, _hashicorp_consul_internal_configentry_LeastRequestConfig__Output>
          LinkedService: MessageTypeDefinition<_hashicorp_consul_internal_configentry_LinkedService, _hashicorp_consul_internal_configentry_LinkedService__Output>
          LoadBalancer: MessageTypeDefinition<_hashicorp_consul_internal_configentry_LoadBalancer, _hashicorp_consul_internal_configentry_LoadBalancer__Output>
          MeshConfig: MessageTypeDefinition<_hashicorp_consul_internal_configentry_MeshConfig, _hashicorp_consul_internal_configentry_MeshConfig__Output>
          MeshDirectionalHTTPConfig: MessageTypeDefinition<_hashicorp_consul_internal_configentry_MeshDirectionalHTTPConfig, _hashicorp_consul_internal_configentry_MeshDirectionalHTTPConfig__Output>
          MeshDirectionalTLSConfig: MessageTypeDefinition<_hashicorp_consul_internal_configentry_MeshDirectionalTLSConfig, _hashicorp_consul_internal_configentry_MeshDirectionalTLSConfig__Output>
          MeshGatewayConfig: MessageTypeDefinition<_hashicorp_consul_internal_configentry_MeshGatewayConfig, _hashicorp_consul_internal_configentry_MeshGatewayConfig__Output>
          MeshGatewayMode: EnumTypeDefinition
          MeshHTTPConfig: MessageTypeDefinition<_hashicorp_consul_internal_configentry_MeshHTTPConfig, _hashicorp_consul_internal_configentry_MeshHTTPConfig__Output>
          MeshTLSConfig: MessageTypeDefinition<_hashicorp_consul_internal_configentry_MeshTLSConfig, _hashicorp_consul_internal_configentry_MeshTLSConfig__Output>
          MutualTLSMode: EnumTypeDefinition
          PassiveHealthCheck: MessageTypeDefinition<_hashicorp_consul_internal_configentry_PassiveHealthCheck, _hashicorp_consul_internal_configentry_PassiveHealthCheck__Output>
          PathWithEscapedSlashesAction: EnumTypeDefinition
          PeeringMeshConfig: MessageTypeDefinition<_hashicorp_consul_internal_configentry_PeeringMeshConfig, _hashicorp_consul_internal_configentry_PeeringMeshConfig__Output>
          ProxyDefaults: MessageTypeDefinition<_hashicorp_consul_internal_configentry_ProxyDefaults, _hashicorp_consul_internal_configentry_ProxyDefaults__Output>
          ProxyMode: EnumTypeDefinition
          RateLimits: MessageTypeDefinition<_hashicorp_consul_internal_configentry_RateLimits, _hashicorp_consul_internal_configentry_RateLimits__Output>
          RequestNormalizationMeshConfig: MessageTypeDefinition<_hashicorp_consul_internal_configentry_RequestNormalizationMeshConfig, _hashicorp_consul_internal_configentry_RequestNormalizationMeshConfig__Output>
          RingHashConfig: MessageTypeDefinition<_hashicorp_consul_internal_configentry_RingHashConfig, _hashicorp_consul_internal_configentry_RingHashConfig__Output>
          ServiceDefaults: MessageTypeDefinition<_hashicorp_consul_internal_configentry_ServiceDefaults, _hashicorp_consul_internal_configentry_ServiceDefaults__Output>
          ServiceIntentions: MessageTypeDefinition<_hashicorp_consul_internal_configentry_ServiceIntentions, _hashicorp_consul_internal_configentry_ServiceIntentions__Output>
          ServiceResolver: MessageTypeDefinition<_hashicorp_consul_internal_configentry_ServiceResolver, _hashicorp_consul_internal_configentry_ServiceResolver__Output>
          ServiceResolverFailover: MessageTypeDefinition<_hashicorp_consul_internal_configentry_ServiceResolverFailover, _hashicorp_consul_internal_configentry_ServiceResolverFailover__Output>
          ServiceResolverFailoverPolicy: MessageTypeDefinition<_hashicorp_consul_internal_configentry_ServiceResolverFailoverPolicy, _hashicorp_consul_internal_configentry_ServiceResolverFailoverPolicy__Output>
          ServiceResolverFailoverTarget: MessageTypeDefinition<_hashicorp_consul_internal_configentry_ServiceResolverFailoverTarget, _hashicorp_consul_internal_configentry_ServiceResolverFailoverTarget__Output>
          ServiceResolverPrioritizeByLocality: MessageTypeDefinition<_hashicorp_consul_internal_configentry_ServiceResolverPrioritizeByLocality, _hashicorp_consul_internal_configentry_ServiceResolverPrioritizeByLocality__Output>
          ServiceResolverRedirect: MessageTypeDefinition<_hashicorp_consul_internal_configentry_ServiceResolverRedirect, _hashicorp_consul_internal_configentry_ServiceResolverRedirect__Output>
          ServiceResolverSubset: MessageTypeDefinition<_hashicorp_consul_internal_configentry_ServiceResolverSubset, _hashicorp_consul_internal_configentry_ServiceResolverSubset__Output>
          ServiceRoute: MessageTypeDefinition<_hashicorp_consul_internal_configentry_ServiceRoute, _hashicorp_consul_internal_configentry_ServiceRoute__Output>
          ServiceRouteDestination: MessageTypeDefinition<_hashicorp_consul_internal_configentry_ServiceRouteDestination, _hashicorp_consul_internal_configentry_ServiceRouteDestination__Output>
          ServiceRouteHTTPMatch: MessageTypeDefinition<_hashicorp_consul_internal_configentry_ServiceRouteHTTPMatch, _hashicorp_consul_internal_configentry_ServiceRouteHTTPMatch__Output>
          ServiceRouteHTTPMatchHeader: MessageTypeDefinition<_hashicorp_consul_internal_configentry_ServiceRouteHTTPMatchHeader, _hashicorp_consul_internal_configentry_ServiceRouteHTTPMatchHeader__Output>
          ServiceRouteHTTPMatchQueryParam: MessageTypeDefinition<_hashicorp_consul_internal_configentry_ServiceRouteHTTPMatchQueryParam, _hashicorp_consul_internal_configentry_ServiceRouteHTTPMatchQueryParam__Output>
          ServiceRouteMatch: MessageTypeDefinition<_hashicorp_consul_internal_configentry_ServiceRouteMatch, _hashicorp_consul_internal_configentry_ServiceRouteMatch__Output>
          ServiceRouter: MessageTypeDefinition<_hashicorp_consul_internal_configentry_ServiceRouter, _hashicorp_consul_internal_configentry_ServiceRouter__Output>
          ServiceSplit: MessageTypeDefinition<_hashicorp_consul_internal_configentry_ServiceSplit, _hashicorp_consul_internal_configentry_ServiceSplit__Output>
          ServiceSplitter: MessageTypeDefinition<_hashicorp_consul_internal_configentry_ServiceSplitter, _hashicorp_consul_internal_configentry_ServiceSplitter__Output>
          SourceIntention: MessageTypeDefinition<_hashicorp_consul_internal_configentry_SourceIntention, _hashicorp_consul_internal_configentry_SourceIntention__Output>
          TerminatingGateway: MessageTypeDefinition<_hashicorp_consul_internal_configentry_TerminatingGateway, _hashicorp_consul_internal_configentry_TerminatingGateway__Output>
          TransparentProxyConfig: MessageTypeDefinition<_hashicorp_consul_internal_configentry_TransparentProxyConfig, _hashicorp_consul_internal_configentry_TransparentProxyConfig__Output>
          TransparentProxyMeshConfig: MessageTypeDefinition<_hashicorp_consul_internal_configentry_TransparentProxyMeshConfig, _hashicorp_consul_internal_configentry_TransparentProxyMeshConfig__Output>
          UpstreamConfig: MessageTypeDefinition<_hashicorp_consul_internal_configentry_UpstreamConfig, _hashicorp_consul_internal_configentry_UpstreamConfig__Output>
          UpstreamConfiguration: MessageTypeDefinition<_hashicorp_consul_internal_configentry_UpstreamConfiguration, _hashicorp_consul_internal_configentry_UpstreamConfiguration__Output>
          UpstreamLimits: MessageTypeDefinition<_hashicorp_consul_internal_configentry_UpstreamLimits, _hashicorp_consul_internal_configentry_UpstreamLimits__Output>
        }
        service: {
          AIConfig: MessageTypeDefinition<_hashicorp_consul_internal_service_AIConfig, _hashicorp_consul_internal_service_AIConfig__Output>
          AccessLogsConfig: MessageTypeDefinition<_hashicorp_consul_internal_service_AccessLogsConfig, _hashicorp_consul_internal_service_AccessLogsConfig__Output>
          CheckServiceNode: MessageTypeDefinition<_hashicorp_consul_internal_service_CheckServiceNode, _hashicorp_consul_internal_service_CheckServiceNode__Output>
          CheckType: MessageTypeDefinition<_hashicorp_consul_internal_service_CheckType, _hashicorp_consul_internal_service_CheckType__Output>
          ConnectProxyConfig: MessageTypeDefinition<_hashicorp_consul_internal_service_ConnectProxyConfig, _hashicorp_consul_internal_service_ConnectProxyConfig__Output>
          ExposeConfig: MessageTypeDefinition<_hashicorp_consul_internal_service_ExposeConfig, _hashicorp_consul_internal_service_ExposeConfig__Output>
          ExposePath: MessageTypeDefinition<_hashicorp_consul_internal_service_ExposePath, _hashicorp_consul_internal_service_ExposePath__Output>
          HeaderValue: MessageTypeDefinition<_hashicorp_consul_internal_service_HeaderValue, _hashicorp_consul_internal_service_HeaderValue__Output>
          HealthCheck: MessageTypeDefinition<_hashicorp_consul_internal_service_HealthCheck, _hashicorp_consul_internal_service_HealthCheck__Output>
          HealthCheckDefinition: MessageTypeDefinition<_hashicorp_consul_internal_service_HealthCheckDefinition, _hashicorp_consul_internal_service_HealthCheckDefinition__Output>
          IndexedCheckServiceNodes: MessageTypeDefinition<_hashicorp_consul_internal_service_IndexedCheckServiceNodes, _hashicorp_consul_internal_service_IndexedCheckServiceNodes__Output>
          MeshGatewayConfig: MessageTypeDefinition<_hashicorp_consul_internal_service_MeshGatewayConfig, _hashicorp_consul_internal_service_MeshGatewayConfig__Output>
          Node: MessageTypeDefinition<_hashicorp_consul_internal_service_Node, _hashicorp_consul_internal_service_Node__Output>
          NodeService: MessageTypeDefinition<_hashicorp_consul_internal_service_NodeService, _hashicorp_consul_internal_service_NodeService__Output>
          PeeringServiceMeta: MessageTypeDefinition<_hashicorp_consul_internal_service_PeeringServiceMeta, _hashicorp_consul_internal_service_PeeringServiceMeta__Output>
          ServiceAddress: MessageTypeDefinition<_hashicorp_consul_internal_service_ServiceAddress, _hashicorp_consul_internal_service_ServiceAddress__Output>
          ServiceConnect: MessageTypeDefinition<_hashicorp_consul_internal_service_ServiceConnect, _hashicorp_consul_internal_service_ServiceConnect__Output>
          ServiceDefinition: MessageTypeDefinition<_hashicorp_consul_internal_service_ServiceDefinition, _hashicorp_consul_internal_service_ServiceDefinition__Output>
          ServicePort: MessageTypeDefinition<_hashicorp_consul_internal_service_ServicePort, _hashicorp_consul_internal_service_ServicePort__Output>
          TransparentProxyConfig: MessageTypeDefinition<_hashicorp_consul_internal_service_TransparentProxyConfig, _hashicorp_consul_internal_service_TransparentProxyConfig__Output>
          Upstream: MessageTypeDefinition<_hashicorp_consul_internal_service_Upstream, _hashicorp_consul_internal_service_Upstream__Output>
          Weights: MessageTypeDefinition<_hashicorp_consul_internal_service_Weights, _hashicorp_consul_internal_service_Weights__Output>
        }
      }
    }
  }
  subscribe: {
    CatalogOp: EnumTypeDefinition
    ConfigEntryUpdate: MessageTypeDefinition<_subscribe_ConfigEntryUpdate, _subscribe_ConfigEntryUpdate__Output>
    Event: MessageTypeDefinition<_subscribe_Event, _subscribe_Event__Output>
    EventBatch: MessageTypeDefinition<_subscribe_EventBatch, _subscribe_EventBatch__Output>
    NamedSubject: MessageTypeDefinition<_subscribe_NamedSubject, _subscribe_NamedSubject__Output>
    ServiceHealthUpdate: MessageTypeDefinition<_subscribe_ServiceHealthUpdate, _subscribe_ServiceHealthUpdate__Output>
    ServiceListUpdate: MessageTypeDefinition<_subscribe_ServiceListUpdate, _subscribe_ServiceListUpdate__Output>
    StateChangeSubscription: SubtypeConstructor<typeof grpc.Client, _subscribe_StateChangeSubscriptionClient> & { service: _subscribe_StateChangeSubscriptionDefinition }
    SubscribeRequest: MessageTypeDefinition<_subscribe_SubscribeRequest, _subscribe_SubscribeRequest__Output>
    Topic: EnumTypeDefinition
  }
}

