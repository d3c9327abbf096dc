import { hasSecrets, scrubSecrets, thrownMessage } from '../core'
import { withoutCredentials } from './secrets'

/** Every failure of a remote model: HTTP errors, network failures, broken streams. Never holds an API key. */
export class ChatModelError extends Error {
  override readonly name = 'ChatModelError'
  readonly provider!: string
  readonly status?: number
  /** The provider's error code or type, e.g. `invalid_api_key`, `overloaded_error`. */
  readonly code?: string
  readonly retryable!: boolean
  readonly retryAfterMs?: number
  /** The provider's request id, to quote to its support. */
  readonly requestId?: string

  constructor(
    message: string,
    details: {
      provider: string
      status?: number
      code?: string
      retryable: boolean
      retryAfterMs?: number
      requestId?: string
      cause?: unknown
    },
  ) {
    // Servers echo keys in messages, codes and request ids; every text is scrubbed of registered secrets.
    const { cause, ...fields } = details
    super(scrubSecrets(message), cause === undefined ? undefined : { cause: scrubbedCause(cause) })
    for (const [key, value] of Object.entries(fields))
      if (value !== undefined) Object.assign(this, { [key]: typeof value === 'string' ? scrubSecrets(value) : value })
  }
}

/**
 * Retryable as the official OpenAI and Anthropic SDKs decide it: an `x-should-retry` header wins;
 * otherwise 408, 409, 429 and every 5xx (529 included) are retryable.
 */
export function isRetryableStatus(status: number, headers?: Headers): boolean {
  const shouldRetry = headers?.get('x-should-retry')
  return (
    shouldRetry === 'true' ||
    (shouldRetry !== 'false' && (status === 408 || status === 409 || status === 429 || status >= 500))
  )
}

/** Milliseconds to wait from `retry-after-ms`, else `retry-after` (seconds or an HTTP date). */
export function retryAfterMs(headers: Headers, now = Date.now()): number | undefined {
  const ms = headers.get('retry-after-ms')
  if (ms !== null && Number.isFinite(Number(ms))) return Math.max(0, Number(ms))
  const after = headers.get('retry-after')?.trim()
  if (!after) return undefined
  const seconds = Number(after)
  const wait = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(after) - now
  return Number.isNaN(wait) ? undefined : Math.max(0, wait)
}

export interface ErrorContext {
  provider: string
  /** A readable provider name for messages: 'OpenAI', 'Anthropic', or the base URL's host. */
  label: string
  model: string
}

/** A fetch that failed before any response: offline, DNS, CORS, a reset connection. */
export function networkError(error: unknown, url: string, context: ErrorContext): ChatModelError {
  const reason = thrownMessage(error)
  const message = `Could not reach ${context.label} at ${withoutCredentials(url)}: ${reason}. Check the base URL and your connection; in a browser the server must also allow this page's origin (CORS).`
  return new ChatModelError(message, {
    provider: context.provider,
    retryable: true,
    cause: error,
  })
}

/** A stream that broke: cut off before its end, an unreadable line, or an error sent inside it. */
export function streamError(
  message: string,
  context: ErrorContext,
  details: { retryable: boolean; status?: number; code?: string },
): ChatModelError {
  return new ChatModelError(`${context.label}: ${message}`, {
    provider: context.provider,
    ...details,
  })
}

/** A stream that ended before its end (a dropped connection, a proxy that closed it): trying again is safe. */
export function streamCut(missing: string, context: ErrorContext): ChatModelError {
  return streamError(`the stream was cut before ${missing}; the connection may have dropped. Try again.`, context, {
    retryable: true,
  })
}

/** The cause as it may be kept: unchanged when it holds no secret, else a copy whose texts are scrubbed. */
function scrubbedCause(cause: unknown, depth = 0): unknown {
  if (!hasSecrets()) return cause
  if (typeof cause === 'string') return scrubSecrets(cause)
  if (!(cause instanceof Error) || depth > 4) return cause
  const message = thrownMessage(cause)
  const inner: unknown = cause.cause
  const scrubbedInner = inner === undefined ? undefined : scrubbedCause(inner, depth + 1)
  if (
    scrubSecrets(message) === message &&
    scrubbedInner === inner &&
    scrubSecrets(cause.stack ?? '') === (cause.stack ?? '')
  ) {
    return cause
  }
  const copy = new Error(scrubSecrets(message), scrubbedInner === undefined ? undefined : { cause: scrubbedInner })
  copy.name = cause.name
  copy.stack = scrubSecrets(cause.stack ?? '')
  return copy
}
