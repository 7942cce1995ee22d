import { Elysia, t } from 'elysia'
import type { PlatformPlugin } from '../../platform/http/http'
import { created, listed, ok } from '../../platform/http/reply'
import { AUTHED_ERRORS, Envelope, IdParams, ListEnvelope, responses } from '../../platform/http/schema'
import { createHoliday, deleteHoliday, listHolidays } from './holidays.service'
import {
  GenerateBody,
  GenerateResultSchema,
  HolidayBody,
  HolidayQuery,
  HolidaySchema,
  JourneyPlanBody,
  JourneyPlanQuery,
  JourneyPlanSchema,
  JourneyPlanUpdateBody,
} from './journey-plans.schemas'
import { createPlan, deletePlan, generatePlan, getPlan, importStops, listPlans, updatePlan } from './journey-plans.service'

const planRoutes = (platform: PlatformPlugin) =>
  new Elysia({ prefix: '/office/v1/journey-plans', tags: ['Journey plans'] })
    .use(platform)
    .get('', async ({ ctx, query }) => listed(await listPlans(ctx, query)), {
      auth: 'journey_plan.view',
      query: JourneyPlanQuery,
      response: responses({ 200: ListEnvelope(JourneyPlanSchema) }),
      detail: { summary: 'List journey plans (filters: user, team, project, active; keyword on the name)' },
    })
    .get('/:id', async ({ ctx, params }) => ok(await getPlan(ctx, params.id)), {
      auth: 'journey_plan.view',
      params: IdParams,
      response: responses({ 200: Envelope(JourneyPlanSchema) }, [...AUTHED_ERRORS, 'JOURNEY_PLAN_NOT_FOUND']),
      detail: { summary: 'Get a journey plan with its stops' },
    })
    .post('', async ({ ctx, body }) => created(await createPlan(ctx, body), 'JOURNEY_PLAN_CREATED', 'journey plan created'), {
      auth: 'journey_plan.manage',
      body: JourneyPlanBody,
      response: responses({ 201: Envelope(JourneyPlanSchema) }),
      detail: { summary: 'Create a journey plan; an active plan generates the visits of the horizon at once' },
    })
    .put('/:id', async ({ ctx, params, body }) => ok(await updatePlan(ctx, params.id, body), 'JOURNEY_PLAN_UPDATED', 'journey plan updated'), {
      auth: 'journey_plan.manage',
      params: IdParams,
      body: JourneyPlanUpdateBody,
      response: responses({ 200: Envelope(JourneyPlanSchema) }, [...AUTHED_ERRORS, 'JOURNEY_PLAN_NOT_FOUND']),
      detail: { summary: 'Update a journey plan; stops replaces the list; future scheduled generated visits are replaced' },
    })
    .delete('/:id', async ({ ctx, params }) => ok(await deletePlan(ctx, params.id), 'JOURNEY_PLAN_DELETED', 'journey plan deleted'), {
      auth: 'journey_plan.manage',
      params: IdParams,
      response: responses({ 200: Envelope(JourneyPlanSchema) }, [...AUTHED_ERRORS, 'JOURNEY_PLAN_NOT_FOUND']),
      detail: { summary: 'Delete a journey plan (soft); its scheduled generated visits from tomorrow on are removed' },
    })
    .post('/:id/stops/import', async ({ ctx, params, body }) => ok(await importStops(ctx, params.id, body), 'JOURNEY_PLAN_STOPS_IMPORTED', 'stops imported'), {
      auth: 'journey_plan.manage',
      params: IdParams,
      body: t.String({ minLength: 1, description: 'text/csv: outlet_code,weekday,weeks,sequence with a header row' }),
      response: responses({ 200: Envelope(JourneyPlanSchema) }, [...AUTHED_ERRORS, 'JOURNEY_PLAN_NOT_FOUND']),
      detail: { summary: 'Replace a journey plan’s stops from CSV (Content-Type: text/csv); one bad row changes nothing' },
    })
    .post('/:id/generate', async ({ ctx, params, body }) => ok(await generatePlan(ctx, params.id, body), 'JOURNEY_PLAN_GENERATED', 'visits generated'), {
      auth: 'journey_plan.manage',
      params: IdParams,
      body: GenerateBody,
      response: responses({ 200: Envelope(GenerateResultSchema) }, [...AUTHED_ERRORS, 'JOURNEY_PLAN_NOT_FOUND', 'JOURNEY_PLAN_INACTIVE']),
      detail: { summary: 'Generate a journey plan’s visits of a date range (at most 62 days) now' },
    })

const holidayRoutes = (platform: PlatformPlugin) =>
  new Elysia({ prefix: '/office/v1/holidays', tags: ['Journey plans'] })
    .use(platform)
    .get('', async ({ ctx, query }) => listed(await listHolidays(ctx, query)), {
      auth: 'journey_plan.view',
      query: HolidayQuery,
      response: responses({ 200: ListEnvelope(HolidaySchema) }),
      detail: { summary: 'List the workspace’s holidays (by date; date_from, date_to inclusive; keyword on the name)' },
    })
    .post('', async ({ ctx, body }) => created(await createHoliday(ctx, body), 'HOLIDAY_CREATED', 'holiday created'), {
      auth: 'journey_plan.manage',
      body: HolidayBody,
      response: responses({ 201: Envelope(HolidaySchema) }, [...AUTHED_ERRORS, 'HOLIDAY_ALREADY_EXISTS']),
      detail: { summary: 'Declare a holiday: no visit is generated on it; its scheduled generated visits are removed' },
    })
    .delete('/:id', async ({ ctx, params }) => ok(await deleteHoliday(ctx, params.id), 'HOLIDAY_DELETED', 'holiday deleted'), {
      auth: 'journey_plan.manage',
      params: IdParams,
      response: responses({ 200: Envelope(HolidaySchema) }, [...AUTHED_ERRORS, 'HOLIDAY_NOT_FOUND']),
      detail: { summary: 'Remove a holiday; visits of that date within the horizon are generated again' },
    })

export const journeyPlanRoutes = (platform: PlatformPlugin) => new Elysia().use(planRoutes(platform)).use(holidayRoutes(platform))
