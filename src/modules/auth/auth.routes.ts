import { Elysia } from 'elysia'
import type { PlatformPlugin } from '../../platform/http/http'
import { created, ok } from '../../platform/http/reply'
import { responses } from '../../platform/http/schema'
import {
  EmptyEnvelope,
  ForgotPasswordBody,
  LoginBody,
  RefreshBody,
  RegisterBody,
  ResetPasswordBody,
  SessionEnvelope,
  SwitchWorkspaceBody,
} from './auth.schemas'
import { forgotPassword, login, logout, refresh, register, resetPassword, switchWorkspace } from './auth.service'

export const authRoutes = (platform: PlatformPlugin) =>
  new Elysia({ prefix: '/auth', tags: ['Auth'] })
    .use(platform)
    .post('/register', async ({ ctx, body }) => created(await register(ctx, body), 'REGISTERED', 'registered'), {
      public: true,
      body: RegisterBody,
      response: responses({ 201: SessionEnvelope }, ['VALIDATION_ERROR', 'REGISTRATION_DISABLED', 'USER_ALREADY_EXISTS', 'RATE_LIMITED']),
      detail: { summary: 'Register a workspace and its first user (super_admin)' },
    })
    .post('/login', async ({ ctx, body }) => ok(await login(ctx, body), 'LOGIN_SUCCESS', 'login successful'), {
      public: true,
      body: LoginBody,
      response: responses({ 200: SessionEnvelope }, ['VALIDATION_ERROR', 'INVALID_CREDENTIALS', 'ACCOUNT_DISABLED', 'RATE_LIMITED']),
      detail: { summary: 'Log in with email and password' },
    })
    .post('/refresh', async ({ ctx, body }) => ok(await refresh(ctx, body), 'TOKEN_REFRESHED', 'token refreshed'), {
      public: true,
      body: RefreshBody,
      response: responses({ 200: SessionEnvelope }, ['VALIDATION_ERROR', 'UNAUTHORIZED']),
      detail: { summary: 'Exchange a refresh token for new tokens (rotation)' },
    })
    .post('/logout', async ({ ctx, body }) => ok(await logout(ctx, body), 'LOGGED_OUT', 'logged out'), {
      auth: true,
      body: RefreshBody,
      response: responses({ 200: EmptyEnvelope }, ['VALIDATION_ERROR', 'UNAUTHORIZED', 'TOKEN_EXPIRED']),
      detail: { summary: 'Revoke the session of a refresh token' },
    })
    .post(
      '/forgot-password',
      async ({ ctx, body }) => {
        await forgotPassword(ctx, body)
        return ok({}, 'RESET_REQUESTED', 'if the account exists, a reset link has been sent')
      },
      {
        public: true,
        body: ForgotPasswordBody,
        response: responses({ 200: EmptyEnvelope }, ['VALIDATION_ERROR']),
        detail: { summary: 'Mail a password reset token (always 200)' },
      },
    )
    .post(
      '/reset-password',
      async ({ ctx, body }) => {
        await resetPassword(ctx, body)
        return ok({}, 'PASSWORD_RESET', 'password has been reset')
      },
      {
        public: true,
        body: ResetPasswordBody,
        response: responses({ 200: EmptyEnvelope }, ['VALIDATION_ERROR', 'RATE_LIMITED']),
        detail: { summary: 'Set a new password with a reset token; signs out every session' },
      },
    )
    .post('/switch-workspace', async ({ ctx, body }) => ok(await switchWorkspace(ctx, body), 'WORKSPACE_SWITCHED', 'workspace switched'), {
      auth: true,
      body: SwitchWorkspaceBody,
      response: responses({ 200: SessionEnvelope }, ['VALIDATION_ERROR', 'UNAUTHORIZED', 'TOKEN_EXPIRED', 'WORKSPACE_NOT_FOUND']),
      detail: { summary: 'Get tokens scoped to another accessible workspace' },
    })
