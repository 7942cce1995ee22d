import { type Static, Type } from '@sinclair/typebox'
import { t } from 'elysia'
import { named, Nullable, QueryId } from '../../platform/http/schema'

export const RangeQuery = t.Object({
  date_from: t.Optional(t.String({ format: 'calendar-date', maxLength: 10, description: 'Default: 6 days before date_to' })),
  date_to: t.Optional(t.String({ format: 'calendar-date', maxLength: 10, description: "Default: today in the workspace's time zone (its local day)" })),
  team_id: QueryId('Only this team'),
})
export type RangeQuery = Static<typeof RangeQuery>

const Range = Type.Object({ date_from: Type.String(), date_to: Type.String() })
const Rate = Type.Number({ description: 'completed / (total − cancelled), 0..1' })

export const DashboardMetrics = named(
  'DashboardMetrics',
  Type.Object({
    range: Range,
    visits: Type.Object({
      total: Type.Integer(),
      scheduled: Type.Integer(),
      in_progress: Type.Integer(),
      completed: Type.Integer(),
      cancelled: Type.Integer(),
      force_closed: Type.Integer(),
    }),
    completion_rate: Rate,
    submissions: Type.Object({ pending: Type.Integer(), approved: Type.Integer(), rejected: Type.Integer() }),
    pending_approvals: Type.Integer(),
    active_field_users: Type.Integer({ description: 'Users who pinged, clocked in or checked in during the range' }),
    pings_received: Type.Integer(),
  }),
)

export const DashboardSummary = named(
  'DashboardSummary',
  Type.Object({
    range: Range,
    flagged_visits_today: Type.Integer({ description: 'Visits of the workspace’s local today with integrity flags (of the team, when filtered)' }),
    effective_calls_today: Type.Integer({
      description: 'Visits with a sales order of the local today that is not rejected or cancelled (of the team’s visits, when filtered)',
    }),
    orders_today: Type.Integer({ description: 'Sales orders of the local today that are not rejected or cancelled' }),
    order_value_today: Type.Integer({ description: 'Σ total of those orders, in the workspace currency’s smallest unit' }),
    teams: Type.Array(
      Type.Object({
        team_id: Nullable(Type.Integer()),
        team_name: Nullable(Type.String()),
        visits_total: Type.Integer(),
        visits_completed: Type.Integer(),
        completion_rate: Rate,
        pending_approvals: Type.Integer(),
      }),
    ),
    users: Type.Array(
      Type.Object({
        user_id: Type.Integer(),
        name: Type.String(),
        visits_total: Type.Integer(),
        visits_completed: Type.Integer(),
        completion_rate: Rate,
      }),
    ),
  }),
)
