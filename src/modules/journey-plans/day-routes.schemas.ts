/** The day route of a field user (docs/API.md §Journey plans, "The day route"). */
import { type Static, Type } from '@sinclair/typebox'
import { t } from 'elysia'
import { VISIT_STATUSES } from '../../db/schema'
import { Id, MAX_ID, named, Nullable } from '../../platform/http/schema'
import { DateString } from '../../lib/dates'

export const DayRouteQuery = t.Object({
  user_id: t.Integer({ minimum: 1, maximum: MAX_ID, description: 'The field user whose day it is' }),
  date: t.String({ format: 'calendar-date', maxLength: 10, description: 'The workspace’s local day' }),
})
export type DayRouteQuery = Static<typeof DayRouteQuery>

const Point = Type.Object({ latitude: Type.Number({ minimum: -90, maximum: 90 }), longitude: Type.Number({ minimum: -180, maximum: 180 }) })

export const OptimizeBody = Type.Object({
  user_id: Id({ description: 'The field user whose day it is' }),
  date: DateString({ description: 'The workspace’s local day' }),
  start: Type.Optional(Point),
  locked_visit_ids: Type.Optional(Type.Array(Id(), { maxItems: 500, description: 'Visits that keep their place in the route' })),
})
export type OptimizeInput = Static<typeof OptimizeBody>

export const DayRouteSchema = named(
  'DayRoute',
  Type.Object({
    stops: Type.Array(
      Type.Object({
        visit_id: Type.Integer(),
        status: Type.String({ enum: [...VISIT_STATUSES] }),
        outlet: Type.Object({ id: Type.Integer(), name: Type.String(), latitude: Nullable(Type.Number()), longitude: Nullable(Type.Number()) }),
        route_sequence: Nullable(Type.Integer({ description: 'The stop’s place in the day (1 first); null until planned or optimised' })),
        leg_distance_m: Nullable(
          Type.Integer({ description: 'Straight-line metres from the stop before (the first: from `start`, else 0); null without coordinates' }),
        ),
      }),
    ),
    total_distance_m: Type.Integer(),
    distance_source: Type.String({ enum: ['straight_line'], description: 'How distances were measured: great-circle (haversine) lines' }),
  }),
)
export type DayRoute = Static<typeof DayRouteSchema>
