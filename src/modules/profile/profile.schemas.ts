import { type Static, Type } from '@sinclair/typebox'
import { named, OptionalText, RequiredText } from '../../platform/http/schema'
import { Password } from '../../platform/http/schema'
import { UserSchema } from '../users'

export const ProfileBody = Type.Object({ name: Type.Optional(RequiredText(255)), phone: OptionalText(32, { multiline: false }) }, { minProperties: 1 })
export type ProfileInput = Static<typeof ProfileBody>

export const PasswordChangeBody = Type.Object({ current_password: Type.String({ minLength: 1, maxLength: 1024 }), new_password: Password })
export type PasswordChangeInput = Static<typeof PasswordChangeBody>

/** The caller's user, with the version of what their role may sync (as login answers it). */
export const ProfileSchema = named(
  'Profile',
  Type.Object({
    ...UserSchema.properties,
    grants_version: Type.String({ description: 'What your role may sync to the phone; when it changes, the sync cursor is refused (docs/API.md §Sync)' }),
  }),
)
