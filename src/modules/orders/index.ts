/**
 * The face of the orders module: everything other modules, app.ts, jobs/, ws/ and tests use of it, and
 * nothing else. Code outside the module imports from here, never from its files (docs/ARCHITECTURE.md).
 */
export { ordersManifest } from './orders.manifest'
export { officeOrderRoutes, phoneOrderRoutes } from './orders.routes'
export { priceListRoutes } from './price-lists.routes'
export { AMOUNT_TOO_LARGE, basisPointsToPct, discountBasisPoints, lineTotal, orderTotals } from './money'
export { type PricedOutlet, type PriceList, resolvePrice, tierFor, tiersFor, winningLists } from './pricing'
export { COUNTING_STATUSES, countsAsEffective, ORDER_ACTIONS, type OrderAction, type OrderActor, orderTransition, REASON_REQUIRED } from './orders.machine'
export { allocateOrderNumber, formatOrderNumber, parseOrderNumber } from './order-number'
export { COUNTING_STATUSES_SQL, ORDER_EXPORT_COLUMNS, orderLinesPage, orderListWhere, salesOrderScope } from './orders.queries'
export { OfficeOrderQuery } from './orders.schemas'
