// Original file: proto/pbcommon/common.proto


export interface Locality {
  'Region'?: (string);
  'Zone'?: (string);
}

export interface Locality__Output {
  'Region': (string);
  'Zone': (string);
}
