import { type Static, Type } from '@sinclair/typebox'
import { TimeZoneString } from '../../lib/dates'
import { Email, Envelope, Id, named, Password, RequiredText } from '../../platform/http/schema'

const OpaqueToken = Type.String({ minLength: 1, maxLength: 512, pattern: '\\S' })

export const RegisterBody = Type.Object({
  name: RequiredText(255),
  email: Email,
  password: Password,
  workspace_name: RequiredText(255),
  timezone: Type.Optional(TimeZoneString({ description: 'The new workspace’s IANA time zone; default: the server’s DEFAULT_TIMEZONE' })),
})
export type RegisterInput = Static<typeof RegisterBody>

/** Login takes any password string: length rules apply when one is set, not when one is tried. */
export const LoginBody = Type.Object({ email: Email, password: Type.String({ minLength: 1, maxLength: 1024, pattern: '\\S' }) })
export type LoginInput = Static<typeof LoginBody>

export const RefreshBody = Type.Object({ refresh_token: OpaqueToken })
export type RefreshInput = Static<typeof RefreshBody>

export const ForgotPasswordBody = Type.Object({ email: Email })
export type ForgotPasswordInput = Static<typeof ForgotPasswordBody>

export const ResetPasswordBody = Type.Object({ token: OpaqueToken, password: Password })
export type ResetPasswordInput = Static<typeof ResetPasswordBody>

export const SwitchWorkspaceBody = Type.Object({ workspace_id: Id() })
export type SwitchWorkspaceInput = Static<typeof SwitchWorkspaceBody>

export const SessionSchema = named(
  'Session',
  Type.Object({
    token: Type.String({ description: 'Access token (JWT HS256)' }),
    refresh_token: Type.String({ description: 'Opaque, single use' }),
    expires_in: Type.Integer({ description: 'Access token lifetime in seconds' }),
    user: Type.Object({
      id: Type.Integer(),
      email: Type.String(),
      name: Type.String(),
      role: Type.String({ description: 'Role slug' }),
      workspace_id: Type.Integer(),
      timezone: Type.String({ description: 'The workspace’s IANA time zone' }),
      grants_version: Type.String({ description: 'What this role may sync to the phone; when it changes, the sync cursor is refused (docs/API.md §Sync)' }),
    }),
  }),
)

export type Session = Static<typeof SessionSchema>
/** Who a session is for; the workspace's time zone and grants version are added when the session is answered. */
export type SessionUser = Omit<Session['user'], 'timezone' | 'grants_version'>

export const SessionEnvelope = Envelope(SessionSchema)
export const EmptyEnvelope = Envelope(Type.Object({}))
