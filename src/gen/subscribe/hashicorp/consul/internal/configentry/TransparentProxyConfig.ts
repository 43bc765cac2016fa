// Original file: proto/pbconfigentry/config_entry.proto


export interface TransparentProxyConfig {
  'OutboundListenerPort'?: (number);
  'DialedDirectly'?: (boolean);
}

export interface TransparentProxyConfig__Output {
  'OutboundListenerPort': (number);
  'DialedDirectly': (boolean);
}
