/** Named domain errors; `src/handlers/rest/http.ts` (errorResponse) maps them to status codes in one place. */

export interface ErrorDetail {
  path: string;
  message: string;
}

export class ValidationError extends Error {
  override readonly name = 'ValidationError';
  constructor(
    message: string,
    readonly details: ErrorDetail[] = [],
    readonly code = 'validation_error',
  ) {
    super(message);
  }
}

export class InvalidIdentifierError extends ValidationError {
  constructor(kind: string, value: string) {
    super(`${kind} must be 1 to 256 characters`, [{ path: kind, message: `invalid ${kind}: ${JSON.stringify(value).slice(0, 64)}` }], 'invalid_identifier');
  }
}

export class NotFoundError extends Error {
  override readonly name = 'NotFoundError';
}

export class Unauthorized extends Error {
  override readonly name = 'Unauthorized';
}
