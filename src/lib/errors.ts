/**
 * One error hierarchy. Services throw these; the error handler (./error-handler.ts) is the only place
 * that turns anything thrown into an HTTP answer. `errors` is always an object: per-field messages
 * (`{ "pings.3.lat": ["must be at most 90"] }`) or details such as `{ channel_count: 3 }`.
 */
export type ErrorDetails = Record<string, unknown>

export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly errors: ErrorDetails = {},
    readonly headers: Record<string, string> = {},
    /** Extra top-level members of the error envelope (regional errors carry `data: []`, docs/API.md §Errors). */
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message)
    this.name = 'AppError'
  }
}

/** 400 VALIDATION_ERROR with per-field messages. */
export class ValidationFailed extends AppError {
  constructor(errors: Record<string, string[]>, message = 'Validation failed') {
    super(400, 'VALIDATION_ERROR', message, errors)
  }

  static field(field: string, ...messages: string[]): ValidationFailed {
    return new ValidationFailed({ [field]: messages })
  }
}

/** `ENTITY` → 404 `ENTITY_NOT_FOUND`, message "channel group not found". */
export class NotFound extends AppError {
  constructor(entity: string, message = `${humanize(entity)} not found`) {
    super(404, `${entity}_NOT_FOUND`, message)
  }
}

export class Conflict extends AppError {
  constructor(code: string, message: string, errors: ErrorDetails = {}) {
    super(409, code, message, errors)
  }
}

/** 409 `ENTITY_ALREADY_EXISTS` with the offending field. */
export class AlreadyExists extends Conflict {
  constructor(entity: string, field: string, message = `${humanize(entity)} with this ${field} already exists`) {
    super(`${entity}_ALREADY_EXISTS`, message, { [field]: [message] })
  }
}

export class Unauthorized extends AppError {
  constructor(code = 'UNAUTHORIZED', message = 'authentication required') {
    super(401, code, message)
  }
}

export class Forbidden extends AppError {
  constructor(code = 'FORBIDDEN', message = 'you do not have permission to do this') {
    super(403, code, message)
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
