import { type Static, Type } from '@sinclair/typebox'
import { t } from 'elysia'
import { DateString } from '../../lib/dates'
import { MAX_PAGE } from '../../platform/data/pagination'
import { named, Nullable, Timestamp, QueryId } from '../../platform/http/schema'

/** A report's page: `page` and `limit` as every list's (platform/data/report.ts). */
const REPORT_PAGING = {
  page: t.Optional(t.Integer({ minimum: 1, maximum: MAX_PAGE, description: 'Page number, from 1' })),
  limit: t.Optional(t.Integer({ minimum: 1, description: 'Items per page (default 10); above 100 it is clamped' })),
}

export const FieldDayQuery = t.Object({
  date: t.String({ format: 'calendar-date', maxLength: 10, description: 'A local day of the workspace’s time zone (YYYY-MM-DD)' }),
  team_id: QueryId('Only members of this team'),
  user_id: QueryId('Only this user'),
  ...REPORT_PAGING,
})
export type FieldDayQuery = Static<typeof FieldDayQuery>

export const FieldDayRow = named(
  'FieldDayRow',
  Type.Object({
    user_id: Type.Integer(),
    name: Type.String(),
    distance_m: Type.Number({ description: 'Metres along the day’s route (as the route replay: jumps left out, nothing across gaps)' }),
    visits_planned: Type.Integer({ description: 'Visits of the day assigned to the user, cancelled ones left out' }),
    visits_completed: Type.Integer(),
    visits_missed: Type.Integer({ description: 'Still scheduled once the local day is over (0 for today and later days)' }),
    time_on_site_s: Type.Integer({ description: 'Sum of check-in → check-out of the completed visits' }),
    first_activity_at: Nullable(Timestamp({ description: 'Earliest ping, check-in or check-out within the day' })),
    last_activity_at: Nullable(Timestamp({ description: 'Latest ping, check-in or check-out within the day' })),
    flagged_visits: Type.Integer({ description: 'Visits of the day with integrity flags' }),
    visits_planned_by_plan: Type.Integer({ description: 'Visits of the day a journey plan generated (any status)' }),
    visits_unplanned: Type.Integer({ description: 'Visits of the day added outside a plan, by the office or the user (imported ones are neither)' }),
    plan_compliance_pct: Nullable(
      Type.Number({ description: 'Completed of the generated visits, in percent to one decimal; null when no plan generated a visit that day' }),
    ),
    out_of_sequence: Type.Integer({
      description: 'Completed visits checked in out of route order: the fewest whose removal leaves the rest in route_sequence order',
    }),
    effective_calls: Type.Integer({ description: 'Visits with a sales order of the day that is not rejected or cancelled, taken by the user' }),
    order_value: Type.Integer({ description: 'Σ total of those orders, in the workspace currency’s smallest unit' }),
  }),
)
export type FieldDayRow = Static<typeof FieldDayRow>

export const RetailExecutionQuery = t.Object({
  date_from: DateString({ description: 'First visit date of the period (YYYY-MM-DD, inclusive)' }),
  date_to: DateString({ description: 'Last visit date of the period (inclusive); at most 366 days from date_from' }),
  team_id: QueryId('Only visits of this team'),
  principal_id: QueryId('Only products of this principal'),
  form_id: QueryId('Only submissions of this form'),
  ...REPORT_PAGING,
})
export type RetailExecutionQuery = Static<typeof RetailExecutionQuery>

export const RetailExecutionRow = named(
  'RetailExecutionRow',
  Type.Object({
    product_id: Type.Integer(),
    sku: Type.String(),
    name: Type.String(),
    outlets_audited: Type.Integer({ description: 'Distinct outlets whose latest audit in the period answered the product’s row' }),
    availability_pct: Nullable(
      Type.Number({ description: 'Audited outlets with `available` true ÷ audited, percent to one decimal; null when no row answered `available`' }),
    ),
    out_of_stock_outlets: Type.Integer({ description: 'Audited outlets with `available` false' }),
    avg_facings: Nullable(Type.Number({ description: 'Mean of the answered `facings` cells, one decimal' })),
    avg_shelf_price: Nullable(Type.Integer({ description: 'Mean of the answered `shelf_price` cells, rounded half up (smallest currency unit)' })),
    list_price: Nullable(Type.Integer({ description: 'The product’s price (smallest currency unit)' })),
    price_deviation_pct: Nullable(
      Type.Number({ description: '(avg_shelf_price − list_price) ÷ list_price, percent to one decimal, signed; null without both' }),
    ),
  }),
)
export type RetailExecutionRow = Static<typeof RetailExecutionRow>
