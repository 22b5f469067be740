/**
 * The few error classes the tool raises on purpose. Each carries a stable `code`;
 * the CLI's single top-level catch turns any of them into one line and exit code 2.
 * Messages never contain a client secret: they name the variable to check instead.
 */

export type ServiceName = 'giftcard' | 'dp';

export const SERVICE_LABEL: Record<ServiceName, string> = {
  giftcard: 'the gift card service',
  dp: 'the delivery partner service',
};

export abstract class LedgerReconError extends Error {
  abstract readonly code: string;
  /** The process exit code this error maps to when it reaches the CLI. */
  readonly exitCode: number = 2;
}

/** A configuration value is missing or malformed. */
export class ConfigError extends LedgerReconError {
  readonly code = 'CONFIG';
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(message);
  }
}

/** The service refused our credentials (401) or our account (403). Never retried. */
export class AuthError extends LedgerReconError {
  readonly code = 'AUTH';
  constructor(
    readonly service: ServiceName,
    readonly errCode: string,
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** The service answered with a non-retryable error (400, 404, 422 …). */
export class ApiError extends LedgerReconError {
  readonly code: string = 'API';
  constructor(
    readonly service: ServiceName,
    readonly status: number,
    readonly errCode: string,
    readonly path: string,
    message: string,
  ) {
    super(message);
  }
}

/** 404: the record does not exist for our merchant (or our DP). */
export class NotFoundError extends ApiError {
  override readonly code = 'NOT_FOUND';
}

/** 400 on a request that carried a cursor: the service no longer accepts it. */
export class CursorRejectedError extends ApiError {
  override readonly code = 'CURSOR_REJECTED';
}

/** The service could not be reached, or kept failing, after every retry. */
export class ServiceUnavailableError extends LedgerReconError {
  readonly code = 'SERVICE_UNAVAILABLE';
  constructor(
    readonly service: ServiceName,
    readonly attempts: number,
    message: string,
  ) {
    super(message);
  }
}

/** The service broke the pagination contract (a repeated cursor, hasMore with no cursor). */
export class PaginationError extends LedgerReconError {
  readonly code = 'PAGINATION';
  constructor(
    readonly service: ServiceName,
    readonly path: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * A payload failed validation at the edge. It carries the raw JSON as received and the
 * reason, so the sync can quarantine the record instead of dropping or coercing it.
 */
export class PayloadValidationError extends LedgerReconError {
  readonly code = 'PAYLOAD_INVALID';
  constructor(
    readonly resource: string,
    readonly raw: unknown,
    readonly reason: string,
  ) {
    super(`${resource} failed validation: ${reason}`);
  }
}

/** A list the service served of which not one record could be mirrored: the night holds nothing of it. */
export class NothingMirroredError extends LedgerReconError {
  readonly code = 'NOTHING_MIRRORED';
}

/** Another sync, check or run holds the mirror's lock. */
export class LockHeldError extends LedgerReconError {
  readonly code = 'LOCK_HELD';
}

/** The mirror cannot serve the command: missing, unreadable, or holding no sync yet. */
export class MirrorError extends LedgerReconError {
  readonly code = 'MIRROR';
}

/** The service cannot be reached as configured: the host does not resolve, TLS, or no HTTP there. Never retried. */
export class ConnectionError extends LedgerReconError {
  readonly code = 'CONNECTION';
  constructor(
    readonly service: ServiceName,
    message: string,
  ) {
    super(message);
  }
}

/** A path the user gave (`--db`, `--out`) cannot be used: read-only, not creatable, a file where a folder should be, no space. */
export class FileSystemError extends LedgerReconError {
  readonly code = 'FILE_SYSTEM';
}

/** Books were given, and not one row of them could be imported. */
export class BooksImportError extends LedgerReconError {
  readonly code = 'BOOKS_IMPORT';
}

/**
 * The operator stopped the command (Ctrl-C, SIGINT; or a service manager's stop, SIGTERM):
 * what was read whole is committed with its checkpoint and the next run resumes. Exit 130 or
 * 143, as a shell reports a process its signal ended.
 */
export class InterruptedError extends LedgerReconError {
  readonly code = 'INTERRUPTED';
  override readonly exitCode: number;
  constructor(
    readonly signal: 'SIGINT' | 'SIGTERM',
    message: string,
  ) {
    super(message);
    this.exitCode = signal === 'SIGINT' ? 130 : 143;
  }
}
