// Original file: proto/pbconfigentry/config_entry.proto


export interface UpstreamLimits {
  'MaxConnections'?: (number);
  'MaxPendingRequests'?: (number);
  'MaxConcurrentRequests'?: (number);
}

export interface UpstreamLimits__Output {
  'MaxConnections': (number);
  'MaxPendingRequests': (number);
  'MaxConcurrentRequests': (number);
}
