// Original file: proto/pbservice/service.proto


export interface Weights {
  'Passing'?: (number);
  'Warning'?: (number);
}

export interface Weights__Output {
  'Passing': (number);
  'Warning': (number);
}
