// Original file: proto/pbconfigentry/config_entry.proto


export interface IntentionJWTClaimVerification {
  'Path'?: (string)[];
  'Value'?: (string);
}

export interface IntentionJWTClaimVerification__Output {
  'Path': (string)[];
  'Value': (string);
}
