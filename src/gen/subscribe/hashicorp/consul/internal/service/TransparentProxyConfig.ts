// Original file: proto/pbservice/service.proto


export interface TransparentProxyConfig {
  'OutboundListenerPort'?: (number);
  'DialedDirectly'?: (boolean);
}

export interface TransparentProxyConfig__Output {
  'OutboundListenerPort': (number);
  'DialedDirectly': (boolean);
}
