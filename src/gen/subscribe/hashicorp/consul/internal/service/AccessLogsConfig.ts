// Original file: proto/pbservice/service.proto


export interface AccessLogsConfig {
  'Enabled'?: (boolean);
  'DisableListenerLogs'?: (boolean);
  'Type'?: (string);
  'Path'?: (string);
  'JSONFormat'?: (string);
  'TextFormat'?: (string);
}

export interface AccessLogsConfig__Output {
  'Enabled': (boolean);
  'DisableListenerLogs': (boolean);
  'Type': (string);
  'Path': (string);
  'JSONFormat': (string);
  'TextFormat': (string);
}
