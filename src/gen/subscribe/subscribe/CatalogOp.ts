// Original file: proto/pbsubscribe/subscribe.proto

export const CatalogOp = {
  Register: 'Register',
  Deregister: 'Deregister',
} as const;

export type CatalogOp =
  | 'Register'
  | 0
  | 'Deregister'
  | 1

export type CatalogOp__Output = typeof CatalogOp[keyof typeof CatalogOp]
