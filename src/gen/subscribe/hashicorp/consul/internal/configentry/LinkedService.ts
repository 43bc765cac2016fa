// Original file: proto/pbconfigentry/config_entry.proto


export interface LinkedService {
  'Name'?: (string);
  'Namespace'?: (string);
  'Partition'?: (string);
  'CAFile'?: (string);
  'CertFile'?: (string);
  'KeyFile'?: (string);
  'SNI'?: (string);
  'DisableAutoHostRewrite'?: (boolean);
}

export interface LinkedService__Output {
  'Name': (string);
  'Namespace': (string);
  'Partition': (string);
  'CAFile': (string);
  'CertFile': (string);
  'KeyFile': (string);
  'SNI': (string);
  'DisableAutoHostRewrite': (boolean);
}
