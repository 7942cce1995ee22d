/**
 * Audit entries (SPEC AuditLog, CONTRACT §6). They are written only through `TxScope.audit` inside
 * `withTransaction`, so an entry commits or rolls back together with its mutation, and the table's
 * triggers refuse any UPDATE or DELETE afterwards.
 */
import { auditLogs } from '../db/schema'
import type { Db } from '../db/client'
import type { RequestContext } from './context'

export const AUDIT_ENTITY_TYPES = [
  'user',
  'outlet',
  'team',
  'project',
  'principal',
  'visit',
  'submission',
  'form',
  'product',
  'role',
  'permission',
  'workspace',
  'attendance',
  'sales_order',
  'channel_group',
  'channel',
  'account',
  'sub_area',
] as const
export type AuditEntityType = (typeof AUDIT_ENTITY_TYPES)[number]

export const AUDIT_ACTIONS = [
  'created',
  'updated',
  'deleted',
  'approved',
  'rejected',
  'assigned',
  'unassigned',
  'login',
  'logout',
] as const
export type AuditAction = (typeof AUDIT_ACTIONS)[number]

type Values = Record<string, unknown>

export interface AuditEntry {
  entityType: AuditEntityType
  entityId: string | number
  entityName: string
  action: AuditAction
  oldValues?: Values | null
  newValues?: Values | null
  /** Defaults to the request's actor; login/registration name the user explicitly. */
  actor?: { id: number; name: string; role: string; workspaceId: number }
}

/** Keys never written into an audit entry, at any depth. */
const SECRET_KEY = /password|secret|token|hash|name_key/i

export function redact(values: Values | null | undefined): Values | null {
  if (!values) return null
  return Object.fromEntries(
    Object.entries(values)
      .filter(([key]) => !SECRET_KEY.test(key))
      .map(([key, value]) => [key, isPlainObject(value) ? redact(value) : value]),
  )
}

/**
 * The fields an update changed, as `{ old, new }` halves; `updated_at` is left out (CONTRACT §6).
 * Only keys present in `after` are compared, so callers pass the row after the update.
 */
export function changedFields(before: Values, after: Values): { oldValues: Values; newValues: Values } {
  const oldValues: Values = {}
  const newValues: Values = {}
  for (const [key, value] of Object.entries(after)) {
    if (key === 'updated_at' || !(key in before)) continue
    if (JSON.stringify(before[key]) !== JSON.stringify(value)) {
      oldValues[key] = before[key]
      newValues[key] = value
    }
  }
  return { oldValues, newValues }
}

export async function insertAudit(tx: Db, ctx: RequestContext, entry: AuditEntry): Promise<void> {
  const actor = entry.actor ?? (ctx.actor && {
    id: ctx.actor.userId,
    name: ctx.actor.name,
    role: ctx.actor.role,
    workspaceId: ctx.actor.workspaceId,
  })
  if (!actor) throw new Error('an audit entry needs an actor')
  await tx.insert(auditLogs).values({
    workspace_id: actor.workspaceId,
    actor_id: actor.id,
    actor_name: actor.name,
    actor_role: actor.role,
    entity_type: entry.entityType,
    entity_id: String(entry.entityId),
    entity_name: entry.entityName,
    action: entry.action,
    old_values: redact(entry.oldValues),
    new_values: redact(entry.newValues),
    metadata: {
      ip: ctx.meta.ip,
      user_agent: ctx.meta.userAgent,
      request_id: ctx.meta.requestId,
      timestamp: ctx.meta.timestamp,
    },
    created_at: ctx.deps.clock.now().toISOString(),
  })
}

function isPlainObject(value: unknown): value is Values {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
