// Original file: proto/pbsubscribe/subscribe.proto


export interface NamedSubject {
  'Key'?: (string);
  'Namespace'?: (string);
  'Partition'?: (string);
  'PeerName'?: (string);
}

export interface NamedSubject__Output {
  'Key': (string);
  'Namespace': (string);
  'Partition': (string);
  'PeerName': (string);
}
