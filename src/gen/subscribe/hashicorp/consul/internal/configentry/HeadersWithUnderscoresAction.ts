// Original file: proto/pbconfigentry/config_entry.proto

export const HeadersWithUnderscoresAction = {
  HeadersWithUnderscoresActionAllow: 'HeadersWithUnderscoresActionAllow',
  HeadersWithUnderscoresActionRejectRequest: 'HeadersWithUnderscoresActionRejectRequest',
  HeadersWithUnderscoresActionDropHeader: 'HeadersWithUnderscoresActionDropHeader',
} as const;

export type HeadersWithUnderscoresAction =
  | 'HeadersWithUnderscoresActionAllow'
  | 0
  | 'HeadersWithUnderscoresActionRejectRequest'
  | 1
  | 'HeadersWithUnderscoresActionDropHeader'
  | 2

export type HeadersWithUnderscoresAction__Output = typeof HeadersWithUnderscoresAction[keyof typeof HeadersWithUnderscoresAction]
