import type { ErrorEnvelope, ErrorKind, ErrorPage } from "../contract/common.ts";

export interface FieldDetail {
  field: string;
  message: string;
}

/** An error with its HTTP answer. Domain code throws these; one handler turns them into the envelope. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly kind: ErrorKind,
    message: string,
    readonly details?: FieldDetail[],
    readonly headers?: Record<string, string>,
    /** A password page's refusal: what its prompt shows (ErrorPage); never a private page's. */
    readonly page?: ErrorPage,
  ) {
    super(message);
  }
}

export const badRequest = (message: string, details?: FieldDetail[]) =>
  new ApiError(400, details ? "validation_failed" : "bad_request", message, details);
export const invalidField = (field: string, message: string) =>
  new ApiError(400, "validation_failed", `Invalid request: ${field} ${message}`, [{ field, message }]);
export const notFound = (what: string) => new ApiError(404, "not_found", `${what} not found`);
export const conflict = (field: string, message: string) =>
  new ApiError(409, "conflict", `${field} ${message}`, [{ field, message }]);
export const unauthorized = (message: string) =>
  new ApiError(401, "unauthorized", message, undefined, { "WWW-Authenticate": 'Bearer realm="porchlight"' });
export const forbidden = (message: string) => new ApiError(403, "forbidden", message);

/**
 * A body over the limit. The connection closes after the answer: its unread rest would otherwise be taken for the
 * next request on it (see guardBody in headers.ts for how the rest is read so that the close does not reset it).
 */
export const payloadTooLarge = (maxBytes: number) =>
  new ApiError(413, "payload_too_large", `Request body is larger than ${maxBytes} bytes`, undefined, {
    Connection: "close",
  });

/** Plan limits answer 403: the request is understood and valid, the plan does not allow it. */
export const limitReached = (message: string) => new ApiError(403, "limit_reached", `Limit reached: ${message}`);

/** The envelope an ApiError is answered with (the app's error handler and the fast paths send the same bytes). */
export function errorBody(error: ApiError): ErrorEnvelope {
  return {
    success: false,
    message: error.message,
    code: error.status,
    error: error.kind,
    ...(error.details ? { details: error.details } : {}),
    ...(error.page ? { page: error.page } : {}),
  };
}
