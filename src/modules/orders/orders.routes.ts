/**
 * Sales orders (docs/API.md §Orders): the phone takes, edits and cancels its own at its visit in progress;
 * the office lists, approves, rejects, delivers and cancels them.
 */
import { Elysia } from 'elysia'
import { CREATED_LOCATION, type PlatformPlugin } from '../../platform/http/http'
import { created, listed, ok } from '../../platform/http/reply'
import { AUTHED_ERRORS, documentedSchema, Envelope, IdParams, ListEnvelope, responses } from '../../platform/http/schema'
import { compiledBody } from '../../platform/http/validation'
import { OfficeOrderQuery, PhoneOrderQuery, ReasonBody, SalesOrderBody, SalesOrderListItem, SalesOrderSchema } from './orders.schemas'
import { createSalesOrder, decideSalesOrder, getOfficeOrder, getPhoneOrder, listOfficeOrders, listPhoneOrders, updateSalesOrder } from './orders.service'

const OneOrder = Envelope(SalesOrderSchema)
/** The hot route's body, checked by a compiled TypeBox check without the normalisation pass: the service reads each declared field. */
const checkOrder = compiledBody(SalesOrderBody)
const Orders = ListEnvelope(SalesOrderListItem)
const DECIDE_ERRORS = [...AUTHED_ERRORS, 'SALES_ORDER_NOT_FOUND', 'INVALID_ORDER_STATUS'] as const

export const phoneOrderRoutes = (platform: PlatformPlugin) =>
  new Elysia({ prefix: '/app/v1', tags: ['Sales orders'] })
    .use(platform)
    .post(
      '/visits/:id/sales-orders',
      async ({ ctx, params, body }) => created(await createSalesOrder(ctx, params.id, checkOrder(body)), 'SALES_ORDER_CREATED', 'order taken'),
      {
        auth: 'sales_order:create',
        idempotency: 'required',
        params: IdParams,
        response: responses({ 201: OneOrder }, [...AUTHED_ERRORS, 'VISIT_NOT_FOUND', 'OUTLET_NOT_FOUND', 'INVALID_VISIT_STATUS']),
        detail: {
          summary: 'Take an order at your visit in progress (prices resolved now and frozen; X-Idempotency-Key required)',
          requestBody: { required: true, content: { 'application/json': { schema: documentedSchema(SalesOrderBody) } } },
          [CREATED_LOCATION]: '/app/v1/sales-orders/:id',
        },
      },
    )
    .get('/sales-orders', async ({ ctx, query }) => listed(await listPhoneOrders(ctx, query)), {
      auth: 'sales_order:view',
      query: PhoneOrderQuery,
      response: responses({ 200: Orders }),
      detail: { summary: 'Your orders' },
    })
    .get('/sales-orders/:id', async ({ ctx, params }) => ok(await getPhoneOrder(ctx, params.id)), {
      auth: 'sales_order:view',
      params: IdParams,
      response: responses({ 200: OneOrder }, [...AUTHED_ERRORS, 'SALES_ORDER_NOT_FOUND']),
      detail: { summary: 'One of your orders, with its lines' },
    })
    .put('/sales-orders/:id', async ({ ctx, params, body }) => ok(await updateSalesOrder(ctx, params.id, body), 'SALES_ORDER_UPDATED', 'order updated'), {
      auth: 'sales_order:create',
      params: IdParams,
      body: SalesOrderBody,
      response: responses({ 200: OneOrder }, DECIDE_ERRORS),
      detail: { summary: 'Change your order while it is submitted (the whole body again; unchanged lines keep their price)' },
    })
    .put(
      '/sales-orders/:id/cancel',
      async ({ ctx, params, body }) => ok(await decideSalesOrder(ctx, params.id, 'cancel', 'creator', body), 'SALES_ORDER_CANCELLED', 'order cancelled'),
      {
        auth: 'sales_order:create',
        params: IdParams,
        body: ReasonBody,
        response: responses({ 200: OneOrder }, DECIDE_ERRORS),
        detail: { summary: 'Cancel your order while it is submitted' },
      },
    )

/** What every office decision declares: the approver's permission, the order's id, the answers. */
const DECISION = { auth: 'sales_order:approve', params: IdParams, response: responses({ 200: OneOrder }, DECIDE_ERRORS) } as const

export const officeOrderRoutes = (platform: PlatformPlugin) =>
  new Elysia({ prefix: '/office/v1/sales-orders', tags: ['Sales orders'] })
    .use(platform)
    .get('', async ({ ctx, query }) => listed(await listOfficeOrders(ctx, query)), {
      auth: 'sales_order:view',
      query: OfficeOrderQuery,
      response: responses({ 200: Orders }),
      detail: { summary: 'List sales orders' },
    })
    .get('/:id', async ({ ctx, params }) => ok(await getOfficeOrder(ctx, params.id)), {
      auth: 'sales_order:view',
      params: IdParams,
      response: responses({ 200: OneOrder }, [...AUTHED_ERRORS, 'SALES_ORDER_NOT_FOUND']),
      detail: { summary: 'A sales order with its lines' },
    })
    .put('/:id/approve', async ({ ctx, params }) => ok(await decideSalesOrder(ctx, params.id, 'approve', 'office'), 'SALES_ORDER_APPROVED', 'order approved'), {
      ...DECISION,
      detail: { summary: 'Approve a submitted order' },
    })
    .put(
      '/:id/reject',
      async ({ ctx, params, body }) => ok(await decideSalesOrder(ctx, params.id, 'reject', 'office', body), 'SALES_ORDER_REJECTED', 'order rejected'),
      { ...DECISION, body: ReasonBody, detail: { summary: 'Reject a submitted order (reason required)' } },
    )
    .put(
      '/:id/deliver',
      async ({ ctx, params }) => ok(await decideSalesOrder(ctx, params.id, 'deliver', 'office'), 'SALES_ORDER_DELIVERED', 'order delivered'),
      {
        ...DECISION,
        detail: { summary: 'Mark an approved order delivered' },
      },
    )
    .put(
      '/:id/cancel',
      async ({ ctx, params, body }) => ok(await decideSalesOrder(ctx, params.id, 'cancel', 'office', body), 'SALES_ORDER_CANCELLED', 'order cancelled'),
      { ...DECISION, body: ReasonBody, detail: { summary: 'Cancel a submitted or approved order (reason required)' } },
    )
