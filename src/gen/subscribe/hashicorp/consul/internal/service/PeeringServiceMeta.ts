// Original file: proto/pbservice/service.proto


export interface PeeringServiceMeta {
  'SNI'?: (string)[];
  'SpiffeID'?: (string)[];
  'Protocol'?: (string);
}

export interface PeeringServiceMeta__Output {
  'SNI': (string)[];
  'SpiffeID': (string)[];
  'Protocol': (string);
}
