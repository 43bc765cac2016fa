// Original file: proto/pbconfigentry/config_entry.proto


export interface LeastRequestConfig {
  'ChoiceCount'?: (number);
}

export interface LeastRequestConfig__Output {
  'ChoiceCount': (number);
}
