import { Elysia } from 'elysia'
import type { PlatformPlugin } from '../../platform/http/http'
import { ok } from '../../platform/http/reply'
import { Envelope, responses } from '../../platform/http/schema'
import { EmptyEnvelope } from '../auth'
import { PasswordChangeBody, ProfileBody, ProfileSchema } from './profile.schemas'
import { changePassword, getProfile, updateProfile } from './profile.service'

export const profileRoutes = (platform: PlatformPlugin) =>
  new Elysia({ prefix: '/app/v1/profile', tags: ['Profile'] })
    .use(platform)
    .get('', async ({ ctx }) => ok(await getProfile(ctx)), {
      auth: true,
      response: responses({ 200: Envelope(ProfileSchema) }, ['UNAUTHORIZED', 'TOKEN_EXPIRED']),
      detail: { summary: 'Your profile' },
    })
    .put('', async ({ ctx, body }) => ok(await updateProfile(ctx, body), 'PROFILE_UPDATED', 'profile updated'), {
      auth: true,
      body: ProfileBody,
      response: responses({ 200: Envelope(ProfileSchema) }, ['VALIDATION_ERROR', 'UNAUTHORIZED', 'TOKEN_EXPIRED']),
      detail: { summary: 'Change your name or phone' },
    })
    .put(
      '/password',
      async ({ ctx, body }) => {
        await changePassword(ctx, body)
        return ok({}, 'PASSWORD_CHANGED', 'password changed; other sessions have been signed out')
      },
      {
        auth: true,
        body: PasswordChangeBody,
        response: responses({ 200: EmptyEnvelope }, ['VALIDATION_ERROR', 'UNAUTHORIZED', 'TOKEN_EXPIRED', 'RATE_LIMITED']),
        detail: { summary: 'Change your password; signs out your other sessions' },
      },
    )
