// Original file: proto/pbconfigentry/config_entry.proto


export interface HTTPHeaderModifiers {
  'Add'?: ({[key: string]: string});
  'Set'?: ({[key: string]: string});
  'Remove'?: (string)[];
}

export interface HTTPHeaderModifiers__Output {
  'Add': ({[key: string]: string});
  'Set': ({[key: string]: string});
  'Remove': (string)[];
}
