/**
 * The sales order state machine (src/modules/orders/orders.machine.ts; docs/API.md §Orders), pair by pair:
 * every status × every action × who acts.
 */
import { describe, expect, test } from 'bun:test'
import { SALES_ORDER_STATUSES, type SalesOrderStatus } from '../src/db/schema'
import { COUNTING_STATUSES, ORDER_ACTIONS, type OrderAction, type OrderActor, REASON_REQUIRED, countsAsEffective, orderTransition } from '../src/modules/orders'

const X = 'INVALID_ORDER_STATUS'
/** The whole table: the target state, or the error a refused transition names. */
const EXPECTED: Record<OrderActor, Record<SalesOrderStatus, Record<OrderAction, string>>> = {
  office: {
    submitted: { approve: 'approved', reject: 'rejected', deliver: X, cancel: 'cancelled', edit: X },
    approved: { approve: X, reject: X, deliver: 'delivered', cancel: 'cancelled', edit: X },
    rejected: { approve: X, reject: X, deliver: X, cancel: X, edit: X },
    delivered: { approve: X, reject: X, deliver: X, cancel: X, edit: X },
    cancelled: { approve: X, reject: X, deliver: X, cancel: X, edit: X },
  },
  creator: {
    submitted: { approve: X, reject: X, deliver: X, cancel: 'cancelled', edit: 'submitted' },
    approved: { approve: X, reject: X, deliver: X, cancel: X, edit: X },
    rejected: { approve: X, reject: X, deliver: X, cancel: X, edit: X },
    delivered: { approve: X, reject: X, deliver: X, cancel: X, edit: X },
    cancelled: { approve: X, reject: X, deliver: X, cancel: X, edit: X },
  },
}

for (const actor of ['office', 'creator'] as const) {
  describe(`order transitions by the ${actor}: every (status, action) pair`, () => {
    for (const status of SALES_ORDER_STATUSES) {
      for (const action of ORDER_ACTIONS) {
        const outcome = EXPECTED[actor][status][action]
        const allowed = outcome !== X
        test(`${action} on a ${status} order ${allowed ? `moves it to ${outcome}` : `is refused with ${outcome}`}`, () => {
          expect(orderTransition(status, action, actor)).toEqual(allowed ? { ok: true, to: outcome as SalesOrderStatus } : { ok: false, error: X })
        })
      }
    }
  })
}

describe('the table as a whole', () => {
  test('only the documented transitions are allowed, nothing else', () => {
    const allowed = (['office', 'creator'] as const).flatMap((actor) =>
      SALES_ORDER_STATUSES.flatMap((status) =>
        ORDER_ACTIONS.filter((action) => orderTransition(status, action, actor).ok).map((action) => `${actor}:${status}:${action}`),
      ),
    )
    expect(allowed.sort()).toEqual([
      'creator:submitted:cancel',
      'creator:submitted:edit',
      'office:approved:cancel',
      'office:approved:deliver',
      'office:submitted:approve',
      'office:submitted:cancel',
      'office:submitted:reject',
    ])
  })

  test('rejected, delivered and cancelled are final', () => {
    for (const status of ['rejected', 'delivered', 'cancelled'] as const) {
      for (const actor of ['office', 'creator'] as const) {
        expect(ORDER_ACTIONS.filter((action) => orderTransition(status, action, actor).ok)).toEqual([])
      }
    }
  })

  test('reject and cancel need a reason, the others do not', () => {
    expect(ORDER_ACTIONS.filter((action) => REASON_REQUIRED.has(action))).toEqual(['reject', 'cancel'])
  })

  test('every order but a rejected or cancelled one makes the visit an effective call', () => {
    expect(SALES_ORDER_STATUSES.filter(countsAsEffective)).toEqual(['submitted', 'approved', 'delivered'])
    expect(COUNTING_STATUSES).toEqual(['submitted', 'approved', 'delivered'])
  })
})
