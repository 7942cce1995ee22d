/**
 * The sales order state machine (src/modules/orders/README.md; docs/API.md §Orders) as one pure table:
 *
 *               ┌──approve (office)──▶ approved ──deliver (office)──▶ delivered
 *   submitted ──┼──reject (office, reason)──▶ rejected
 *     │  ▲      │                      │
 *     └──┘ edit (creator)              └──cancel (office, reason)──┐
 *     └──────────cancel (office or creator, reason)────────────────┴──▶ cancelled
 *
 * Who acts matters: the office decides (approve, reject, deliver, cancel from submitted or approved); the creator
 * may edit or cancel their own order only while it is submitted. Anything not in the table is
 * INVALID_ORDER_STATUS (409). Reject and cancel need a reason; that is a 400 on the body, checked before the
 * status (REASON_REQUIRED). Orders are never deleted: rejected, delivered and cancelled are final.
 */
import type { SalesOrderStatus } from '../../db/schema'

export type OrderAction = 'approve' | 'reject' | 'deliver' | 'cancel' | 'edit'
export type OrderActor = 'office' | 'creator'

export const ORDER_ACTIONS: readonly OrderAction[] = ['approve', 'reject', 'deliver', 'cancel', 'edit']

export const ORDER_TRANSITIONS: Record<OrderAction, { from: Record<OrderActor, readonly SalesOrderStatus[]>; to: SalesOrderStatus }> = {
  approve: { from: { office: ['submitted'], creator: [] }, to: 'approved' },
  reject: { from: { office: ['submitted'], creator: [] }, to: 'rejected' },
  deliver: { from: { office: ['approved'], creator: [] }, to: 'delivered' },
  cancel: { from: { office: ['submitted', 'approved'], creator: ['submitted'] }, to: 'cancelled' },
  edit: { from: { office: [], creator: ['submitted'] }, to: 'submitted' },
}

/** Actions whose body must carry a non-blank `reason`. */
export const REASON_REQUIRED: ReadonlySet<OrderAction> = new Set(['reject', 'cancel'])

export type OrderTransitionResult = { ok: true; to: SalesOrderStatus } | { ok: false; error: 'INVALID_ORDER_STATUS' }

export function orderTransition(status: SalesOrderStatus, action: OrderAction, actor: OrderActor): OrderTransitionResult {
  const rule = ORDER_TRANSITIONS[action]
  return rule.from[actor].includes(status) ? { ok: true, to: rule.to } : { ok: false, error: 'INVALID_ORDER_STATUS' }
}

/** Orders that make the visit an effective call and count in the day's figures: all but rejected and cancelled. */
export const COUNTING_STATUSES: readonly SalesOrderStatus[] = ['submitted', 'approved', 'delivered']
export const countsAsEffective = (status: SalesOrderStatus) => COUNTING_STATUSES.includes(status)
