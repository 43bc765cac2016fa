// One error taxonomy for the whole hub: a stable string code, an optional field,
// a cause, and one table mapping each code to an HTTP status and a gRPC status.
import { status as GrpcStatus } from '@grpc/grpc-js';

export const ErrorCodes = {
  INVALID_ARGUMENT: { http: 400, grpc: GrpcStatus.INVALID_ARGUMENT },
  NOT_FOUND: { http: 404, grpc: GrpcStatus.NOT_FOUND },
  CONFLICT: { http: 409, grpc: GrpcStatus.ABORTED },
  PERMISSION_DENIED: { http: 403, grpc: GrpcStatus.PERMISSION_DENIED },
  LOG_COMPACTED: { http: 410, grpc: GrpcStatus.OUT_OF_RANGE },
  LOG_CLOSED: { http: 503, grpc: GrpcStatus.UNAVAILABLE },
  /** The log's store cannot be reached (a Redis outage): the write was not applied, and never will be; retry freely. */
  LOG_UNAVAILABLE: { http: 503, grpc: GrpcStatus.UNAVAILABLE },
  /**
   * The write went to the log's store but its answer did not come back in time: it may
   * have been applied (or was, and cannot be confirmed yet). Not safe to assume either way.
   * gRPC's DEADLINE_EXCEEDED is the status that says "may have completed".
   */
  LOG_OUTCOME_UNKNOWN: { http: 503, grpc: GrpcStatus.DEADLINE_EXCEEDED },
  /** The log no longer holds entries a reader already applied (a Redis failover lost them): the reader must rebuild. */
  LOG_REWOUND: { http: 503, grpc: GrpcStatus.UNAVAILABLE },
  SHUTTING_DOWN: { http: 503, grpc: GrpcStatus.UNAVAILABLE },
  SUBSCRIPTION_RESET: { http: 500, grpc: GrpcStatus.ABORTED },
  SLOW_CONSUMER: { http: 503, grpc: GrpcStatus.RESOURCE_EXHAUSTED },
  RATE_LIMITED: { http: 429, grpc: GrpcStatus.RESOURCE_EXHAUSTED },
  /** A real capacity bound was reached (e.g. --xds-max-streams, a full heap): try later or elsewhere. */
  OVER_CAPACITY: { http: 503, grpc: GrpcStatus.RESOURCE_EXHAUSTED },
  INTERNAL: { http: 500, grpc: GrpcStatus.INTERNAL },
} as const;

export type ErrorCode = keyof typeof ErrorCodes;

export class HubError extends Error {
  readonly code: ErrorCode;
  /** The request field at fault, when there is one (e.g. "Service.Port"). */
  readonly field: string | undefined;

  constructor(code: ErrorCode, message: string, options: { field?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'HubError';
    this.code = code;
    this.field = options.field;
  }

  get httpStatus(): number {
    return ErrorCodes[this.code].http;
  }

  get grpcStatus(): GrpcStatus {
    return ErrorCodes[this.code].grpc;
  }
}

export function invalid(field: string, reason: string): HubError {
  return new HubError('INVALID_ARGUMENT', `${field}: ${reason}`, { field });
}

export function isHubError(err: unknown, code?: ErrorCode): err is HubError {
  return err instanceof HubError && (code === undefined || err.code === code);
}

/** The status a gRPC call ends with for `err`: the code from the table and the message as details; anything not a HubError is INTERNAL. */
export function grpcStatusOf(err: unknown): { code: GrpcStatus; details: string } {
  const e = err instanceof HubError ? err : new HubError('INTERNAL', err instanceof Error ? err.message : String(err));
  return { code: e.grpcStatus, details: e.message };
}
