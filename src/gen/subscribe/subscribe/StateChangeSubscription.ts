// Original file: proto/pbsubscribe/subscribe.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { Event as _subscribe_Event, Event__Output as _subscribe_Event__Output } from '../subscribe/Event';
import type { SubscribeRequest as _subscribe_SubscribeRequest, SubscribeRequest__Output as _subscribe_SubscribeRequest__Output } from '../subscribe/SubscribeRequest';

export interface StateChangeSubscriptionClient extends grpc.Client {
  Subscribe(argument: _subscribe_SubscribeRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_subscribe_Event__Output>;
  Subscribe(argument: _subscribe_SubscribeRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_subscribe_Event__Output>;
  subscribe(argument: _subscribe_SubscribeRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_subscribe_Event__Output>;
  subscribe(argument: _subscribe_SubscribeRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_subscribe_Event__Output>;
  
}

export interface StateChangeSubscriptionHandlers extends grpc.UntypedServiceImplementation {
  Subscribe: grpc.handleServerStreamingCall<_subscribe_SubscribeRequest__Output, _subscribe_Event>;
  
}

export interface StateChangeSubscriptionDefinition extends grpc.ServiceDefinition {
  Subscribe: MethodDefinition<_subscribe_SubscribeRequest, _subscribe_Event, _subscribe_SubscribeRequest__Output, _subscribe_Event__Output>
}
