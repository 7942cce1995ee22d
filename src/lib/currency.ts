/**
 * Currency codes (docs/API.md §Workspaces): ISO 4217, three upper-case letters, and one the runtime's ICU knows
 * (`Intl.supportedValuesOf('currency')`), so `XYZ` or `idr` is refused rather than stored. Codes are not
 * normalised: a client that sends `idr` learns the spelling instead of having it changed behind its back.
 */
import { FormatRegistry, Type } from '@sinclair/typebox'

export const DEFAULT_CURRENCY = 'IDR'

const CODES: ReadonlySet<string> = new Set(Intl.supportedValuesOf('currency'))

export const isCurrencyCode = (value: string) => /^[A-Z]{3}$/.test(value) && CODES.has(value)

FormatRegistry.Set('currency-code', isCurrencyCode)

/** An ISO 4217 currency code in a body. */
export const CurrencyCode = (options: { description?: string } = {}) =>
  Type.String({
    format: 'currency-code',
    minLength: 3,
    maxLength: 3,
    examples: ['IDR'],
    error: 'must be an ISO 4217 currency code in upper case (e.g. IDR)',
    ...options,
  })
