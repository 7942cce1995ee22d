import { Type } from '@sinclair/typebox'

/** `:id` of a stored file: its opaque name, not a number. */
export const FileParams = Type.Object({ id: Type.String({ maxLength: 64 }) })
