/**
 * Audit entries (docs/API.md §Audit log). They are written only through `TxScope.audit` inside
 * `withTransaction`, so an entry commits or rolls back together with its mutation, and the table's
 * triggers refuse any UPDATE or DELETE afterwards.
 *
 * `updated` entries hold the old and new values of exactly the fields that changed, and nothing else:
 * the caller passes the entity before and after, and `changedFields` here is the only place that
 * decides what changed. An update request that changes nothing still writes its one entry (every
 * mutation request is audited), with `{}` and `{}`. Extras that are not fields of the entity go to
 * `metadata`, beside the request's ip, user agent, request id and timestamp.
 */
import { auditLogs } from '../../db/schema'
import type { Db } from '../../db/client'
import { sql } from 'drizzle-orm'
import { prepared } from '../../db/prepared'

const ph = sql.placeholder
const insertEntry = prepared((db) =>
  db
    .insert(auditLogs)
    .values({
      workspace_id: ph('workspace_id'),
      actor_id: ph('actor_id'),
      actor_name: ph('actor_name'),
      actor_role: ph('actor_role'),
      entity_type: ph('entity_type'),
      entity_id: ph('entity_id'),
      entity_name: ph('entity_name'),
      action: ph('action'),
      old_values: ph('old_values'),
      new_values: ph('new_values'),
      metadata: ph('metadata'),
      created_at: ph('created_at'),
    })
    .prepare(),
)
import type { RequestContext } from '../context'

/**
 * The entity types audit entries name, one key per type. The platform names none: each module
 * declares its own in its `<module>.manifest.ts`, for the compiler by declaration merging
 *
 *   declare module '../../platform/data/audit' {
 *     interface AuditEntityTypes extends Record<'visit' | 'submission', true> {}
 *   }
 *
 * and for the audit-log filter by listing them in the manifest (`registerAuditEntityTypes`).
 */
// biome-ignore lint/suspicious/noEmptyInterface: an interface, so that modules can merge their types into it.
export interface AuditEntityTypes {}
export type AuditEntityType = keyof AuditEntityTypes & string

/** Every registered entity type, in the order the composition root registered them (the filter's choices). */
export const AUDIT_ENTITY_TYPES: readonly AuditEntityType[] = []

/** Sets the entity types from the modules' declarations; filled in place, so every importer sees them. */
export function registerAuditEntityTypes(types: readonly string[]) {
  const list = AUDIT_ENTITY_TYPES as string[]
  list.length = 0
  list.push(...new Set(types))
}

export const AUDIT_ACTIONS = ['created', 'updated', 'deleted', 'approved', 'rejected', 'assigned', 'unassigned', 'login', 'logout'] as const
export type AuditAction = (typeof AUDIT_ACTIONS)[number]

type Values = Record<string, unknown>

interface EntryBase {
  entityType: AuditEntityType
  entityId: string | number
  entityName: string
  /** Extras that are not fields of the entity (who was notified, how a password changed); merged into `metadata`. */
  metadata?: Values
  /** Defaults to the request's actor; login/registration name the user explicitly. */
  actor?: { id: number; name: string; role: string; workspaceId: number }
}

/** `created`, `deleted`, `approved`, … : the caller states the values. */
export interface ValuesEntry extends EntryBase {
  action: Exclude<AuditAction, 'updated'>
  oldValues?: Values | null
  newValues?: Values | null
}

/**
 * `updated`: the caller hands over the entity as it was and as it is, never the values themselves;
 * `insertAudit` keeps exactly the fields whose value changed (see `changedFields`). So no call site
 * can record a field that did not change, or miss one that did.
 */
export interface UpdatedEntry extends EntryBase {
  action: 'updated'
  /** The entity before the change (a row or its presented shape). */
  before: Values
  /** The same entity after the change, in the same shape as `before`. */
  after: Values
  oldValues?: never
  newValues?: never
}

export type AuditEntry = ValuesEntry | UpdatedEntry

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

/** Never part of an `updated` entry: bumped by every write, so it says nothing about what changed. */
const NOT_COMPARED = new Set(['updated_at'])

/** Whether an `updated` entry compares `key`: worked out once per key (they are a table's column names). */
const comparedKeys = new Map<string, boolean>()
function isCompared(key: string): boolean {
  let compared = comparedKeys.get(key)
  if (compared === undefined) {
    compared = !NOT_COMPARED.has(key) && !SECRET_KEY.test(key)
    // Keys come from rows, not from clients, but the map stays bounded whatever passes through.
    if (comparedKeys.size < 10_000) comparedKeys.set(key, compared)
  }
  return compared
}

/**
 * The fields an update changed, as `{ old, new }` halves with identical keys, each key's two values
 * different (deep comparison, so a JSON column with the same content is unchanged). Compared over
 * the keys of both sides (a key missing on one side counts as null); `updated_at` and secret keys
 * (password hashes, tokens) are left out. An update that changed nothing gives `{}` and `{}`.
 * Every write's audit entry runs this over a whole row, so the same value (most columns) is told
 * apart without the deep comparison.
 */
export function changedFields(before: Values, after: Values): { oldValues: Values; newValues: Values } {
  const oldValues: Values = {}
  const newValues: Values = {}
  const compare = (key: string) => {
    if (!isCompared(key)) return
    const was = before[key] ?? null
    const is = after[key] ?? null
    if (Object.is(was, is) || Bun.deepEquals(was, is, true)) return
    oldValues[key] = was
    newValues[key] = is
  }
  for (const key of Object.keys(before)) compare(key)
  for (const key of Object.keys(after)) if (!Object.hasOwn(before, key)) compare(key)
  return { oldValues, newValues }
}

export async function insertAudit(tx: Db, ctx: RequestContext, entry: AuditEntry): Promise<void> {
  const actor =
    entry.actor ??
    (ctx.actor && {
      id: ctx.actor.userId,
      name: ctx.actor.name,
      role: ctx.actor.role,
      workspaceId: ctx.actor.workspaceId,
    })
  if (!actor) throw new Error('an audit entry needs an actor')
  await insertEntry(tx).run({
    workspace_id: actor.workspaceId,
    actor_id: actor.id,
    actor_name: actor.name,
    actor_role: actor.role,
    entity_type: entry.entityType,
    entity_id: String(entry.entityId),
    entity_name: entry.entityName,
    action: entry.action,
    ...values(entry),
    metadata: {
      ...redact(entry.metadata),
      ip: ctx.meta.ip,
      user_agent: ctx.meta.userAgent,
      request_id: ctx.meta.requestId,
      timestamp: ctx.meta.timestamp,
    },
    created_at: ctx.deps.clock.now().toISOString(),
  })
}

function values(entry: AuditEntry): { old_values: Values | null; new_values: Values | null } {
  if (entry.action !== 'updated') return { old_values: redact(entry.oldValues), new_values: redact(entry.newValues) }
  const diff = changedFields(entry.before, entry.after)
  return { old_values: redact(diff.oldValues), new_values: redact(diff.newValues) }
}

function isPlainObject(value: unknown): value is Values {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
