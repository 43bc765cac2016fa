// Original file: proto/pbcommon/common.proto


export interface EnterpriseMeta {
  'Namespace'?: (string);
  'Partition'?: (string);
}

export interface EnterpriseMeta__Output {
  'Namespace': (string);
  'Partition': (string);
}
