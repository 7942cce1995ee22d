/**
 * One error hierarchy. Services throw these; the error handler (./error-handler.ts) is the only place
 * that turns anything thrown into an HTTP answer. `errors` is always an object: per-field messages
 * (`{ "pings.3.lat": ["must be at most 90"] }`) or details such as `{ channel_count: 3 }`.
 */
export type ErrorDetails = Record<string, unknown>

/**
 * The catalogue: every error code the service answers with, its HTTP status and its default message
 * (docs/API.md §Errors is the client's copy; a test holds the two together). A code is chosen where
 * the error is thrown; its status is chosen here, once: services never pick a status. `ErrorCode` is
 * a closed union, so a misspelt code does not compile.
 */
const CATALOGUE = {
  VALIDATION_ERROR: { status: 400, message: 'Validation failed' },
  IDEMPOTENCY_KEY_REQUIRED: { status: 400, message: 'this request needs an X-Idempotency-Key header, so that a retry cannot make it twice' },
  LOCATION_REQUIRED: { status: 400, message: 'GPS location (latitude and longitude) is required' },
  UNAUTHORIZED: { status: 401, message: 'authentication required' },
  TOKEN_EXPIRED: { status: 401, message: 'access token expired' },
  INVALID_CREDENTIALS: { status: 401, message: 'invalid email or password' },
  FORBIDDEN: { status: 403, message: 'you do not have permission to do this' },
  ACCOUNT_DISABLED: { status: 403, message: 'this account is disabled' },
  REGISTRATION_DISABLED: { status: 403, message: 'registration is disabled' },
  ROLE_LOCKED: { status: 403, message: 'built-in roles cannot be changed or deleted' },
  ROUTE_NOT_FOUND: { status: 404, message: 'route not found' },
  REGIONAL_PROVINCE_NOT_FOUND: { status: 404, message: 'province not found' },
  REGIONAL_CITY_NOT_FOUND: { status: 404, message: 'city not found' },
  REGIONAL_DISTRICT_NOT_FOUND: { status: 404, message: 'district not found' },
  CONFLICT: { status: 409, message: 'a record with these values already exists' },
  CANNOT_MODIFY_SELF: { status: 409, message: 'you cannot deactivate, delete or change the role of your own account' },
  CHANNEL_GROUP_HAS_CHILDREN: { status: 409, message: 'channel group still has channels' },
  CHANNEL_HAS_CHILDREN: { status: 409, message: 'channel still has accounts' },
  PROJECT_HAS_ACTIVE_VISITS: { status: 409, message: 'project still has scheduled or in-progress visits' },
  OUTLET_HAS_ACTIVE_VISITS: { status: 409, message: 'outlet still has scheduled or in-progress visits' },
  ROLE_IN_USE: { status: 409, message: 'role is still assigned to users' },
  PRINCIPAL_IN_USE: { status: 409, message: 'principal still has products or projects' },
  FORM_IN_USE: { status: 409, message: 'form is used by projects' },
  ATTENDANCE_ALREADY_OPEN: { status: 409, message: 'you are already clocked in' },
  ATTENDANCE_NOT_OPEN: { status: 409, message: 'you are not clocked in' },
  VISIT_ALREADY_CHECKED_IN: { status: 409, message: 'visit is already checked in' },
  VISIT_NOT_STARTED: { status: 409, message: 'visit has not been checked in yet' },
  INVALID_VISIT_STATUS: { status: 409, message: 'this action is not allowed in the visit’s status' },
  ACTIVE_VISIT_EXISTS: { status: 409, message: 'check out of your visit in progress first' },
  INVALID_ORDER_STATUS: { status: 409, message: 'this action is not allowed in the order’s status' },
  INVALID_SUBMISSION_STATUS: { status: 409, message: 'only a completed submission awaiting approval can be approved or rejected' },
  SUBMISSION_ALREADY_SUBMITTED: { status: 409, message: 'a submitted form cannot be changed or removed' },
  IDEMPOTENCY_KEY_IN_PROGRESS: { status: 409, message: 'a request with this idempotency key is still being processed' },
  JOURNEY_PLAN_INACTIVE: { status: 409, message: 'the journey plan is inactive' },
  EXPORT_NOT_READY: { status: 409, message: 'the export is not ready' },
  EXPORT_FAILED: { status: 409, message: 'the export failed' },
  PAYLOAD_TOO_LARGE: { status: 413, message: 'request body is larger than 10 MiB' },
  SUBMISSION_REQUIRED: { status: 422, message: 'required forms are not completed' },
  OUTSIDE_GEOFENCE: { status: 422, message: 'you are outside the outlet’s geofence' },
  IDEMPOTENCY_KEY_REUSED: { status: 422, message: 'this idempotency key was used for a different request' },
  RATE_LIMITED: { status: 429, message: 'too many attempts, try again later' },
  INTERNAL_ERROR: { status: 500, message: 'an unexpected error occurred' },
  REGIONAL_SERVICE_ERROR: { status: 503, message: 'regional service unavailable' },
  SERVICE_BUSY: { status: 503, message: 'the service is busy, retry shortly' },
} as const satisfies Record<string, { status: number; message: string }>

/** Entities a route reads by id: each has `<ENTITY>_NOT_FOUND` (404, also for another workspace’s id). */
export const ENTITIES = [
  'ACCOUNT',
  'ATTENDANCE',
  'AUDIT_LOG',
  'CHANNEL',
  'CHANNEL_GROUP',
  'EXPORT_JOB',
  'FILE',
  'FORM',
  'HOLIDAY',
  'JOURNEY_PLAN',
  'NOTIFICATION',
  'OUTLET',
  'PRICE_LIST',
  'PRINCIPAL',
  'PRODUCT',
  'PROJECT',
  'PUSH_TOKEN',
  'ROLE',
  'SALES_ORDER',
  'SUB_AREA',
  'SUBMISSION',
  'TEAM',
  'USER',
  'VISIT',
  'WORKSPACE',
] as const
export type Entity = (typeof ENTITIES)[number]

/** Entities with a unique field (a name, an e-mail, a code): each has `<ENTITY>_ALREADY_EXISTS` (409). */
export const UNIQUE_ENTITIES = [
  'ACCOUNT',
  'CHANNEL',
  'CHANNEL_GROUP',
  'HOLIDAY',
  'OUTLET',
  'PRINCIPAL',
  'PRODUCT',
  'PROJECT',
  'ROLE',
  'SUB_AREA',
  'TEAM',
  'USER',
] as const satisfies readonly Entity[]
export type UniqueEntity = (typeof UNIQUE_ENTITIES)[number]

export type ErrorCode = keyof typeof CATALOGUE | `${Entity}_NOT_FOUND` | `${UniqueEntity}_ALREADY_EXISTS`

/** Every code of the catalogue, the entity-derived ones spelt out (the OpenAPI enums, the docs test). */
export const ERROR_CODES: readonly ErrorCode[] = [
  ...(Object.keys(CATALOGUE) as (keyof typeof CATALOGUE)[]),
  ...ENTITIES.map((entity) => `${entity}_NOT_FOUND` as const),
  ...UNIQUE_ENTITIES.map((entity) => `${entity}_ALREADY_EXISTS` as const),
]

/** A code's status and default message (Unkey's `codeToStatus`). */
export function describeCode(code: ErrorCode): { status: number; message: string } {
  if (code in CATALOGUE) return CATALOGUE[code as keyof typeof CATALOGUE]
  if (code.endsWith('_NOT_FOUND')) return { status: 404, message: `${humanize(code.slice(0, -'_NOT_FOUND'.length))} not found` }
  return { status: 409, message: `${humanize(code.slice(0, -'_ALREADY_EXISTS'.length))} already exists` }
}

export const codeToStatus = (code: ErrorCode): number => describeCode(code).status

/** The one error class: a code from the catalogue; the status follows from the code. */
export class AppError extends Error {
  readonly status: number

  constructor(
    readonly code: ErrorCode,
    message: string = describeCode(code).message,
    readonly errors: ErrorDetails = {},
    readonly headers: Record<string, string> = {},
    /** Extra top-level members of the error envelope (regional errors carry `data: []`, docs/API.md §Errors). */
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message)
    this.name = 'AppError'
    this.status = codeToStatus(code)
  }
}

/** VALIDATION_ERROR with per-field messages. */
export class ValidationFailed extends AppError {
  constructor(errors: Record<string, string[]>, message = 'Validation failed') {
    super('VALIDATION_ERROR', message, errors)
  }

  static field(field: string, ...messages: string[]): ValidationFailed {
    return new ValidationFailed({ [field]: messages })
  }
}

/** `CHANNEL_GROUP` → `CHANNEL_GROUP_NOT_FOUND`, message "channel group not found". */
export class NotFound extends AppError {
  constructor(entity: Entity, message = `${humanize(entity)} not found`) {
    super(`${entity}_NOT_FOUND`, message)
  }
}

/** `<ENTITY>_ALREADY_EXISTS` with the offending field. */
export class AlreadyExists extends AppError {
  constructor(entity: UniqueEntity, field: string, message = `${humanize(entity)} with this ${field} already exists`) {
    super(`${entity}_ALREADY_EXISTS`, message, { [field]: [message] })
  }
}

/**
 * Not an error for the client: the request repeats an idempotency key whose first run succeeded.
 * The handler must not run again; the answer is 204 with X-Idempotency-Code (docs/API.md §Idempotency).
 */
export class IdempotentReplay extends Error {
  /** @param location path of the resource the first run created, if it created one (sent as Location). */
  constructor(readonly location: string | null = null) {
    super('Duplicate request — already processed')
    this.name = 'IdempotentReplay'
  }
}

/** `CHANNEL_GROUP` → `channel group`. */
export function humanize(code: string): string {
  return code.toLowerCase().replaceAll('_', ' ')
}
