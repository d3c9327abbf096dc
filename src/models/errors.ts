import { hasSecrets, scrubAndTruncate, scrubSecrets, thrownMessage } from '../core'
import { withoutCredentials } from './secrets'

/** Every failure of a remote model: HTTP errors, network failures, broken streams. Never holds an API key. */
export class ChatModelError extends Error {
  override readonly name = 'ChatModelError'
  readonly provider: string
  readonly status?: number
  /** The provider's error code or type, e.g. `invalid_api_key`, `overloaded_error`. */
  readonly code?: string
  readonly retryable: boolean
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
    super(scrubSecrets(message), details.cause === undefined ? undefined : { cause: scrubbedCause(details.cause) })
    this.provider = details.provider
    this.retryable = details.retryable
    if (details.status !== undefined) this.status = details.status
    if (details.code !== undefined) this.code = scrubSecrets(details.code)
    if (details.retryAfterMs !== undefined) this.retryAfterMs = details.retryAfterMs
    if (details.requestId !== undefined) this.requestId = scrubSecrets(details.requestId)
  }
}

/**
 * Retryable as the official OpenAI and Anthropic SDKs decide it: an `x-should-retry` header wins;
 * otherwise 408, 409, 429 and every 5xx (529 included) are retryable.
 */
export function isRetryableStatus(status: number, headers?: Headers): boolean {
  const shouldRetry = headers?.get('x-should-retry')
  if (shouldRetry === 'true') return true
  if (shouldRetry === 'false') return false
  return status === 408 || status === 409 || status === 429 || status >= 500
}

/** Milliseconds to wait from `retry-after-ms`, else `retry-after` (seconds or an HTTP date). */
export function retryAfterMs(headers: Headers, now = Date.now()): number | undefined {
  const ms = headers.get('retry-after-ms')
  if (ms !== null && Number.isFinite(Number(ms))) return Math.max(0, Number(ms))
  const after = headers.get('retry-after')
  if (after === null || after.trim() === '') return undefined
  const seconds = Number(after)
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000)
  const date = Date.parse(after)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}

interface ProviderError {
  message?: string
  code?: string
  type?: string
}

/** Reads the error out of any provider's body: OpenAI, Anthropic, OpenRouter, Gemini, Ollama, plain text. */
export function parseProviderError(body: string): ProviderError {
  let parsed: unknown
  try {
    parsed = JSON.parse(body)
  } catch {
    const text = body.trim()
    return text ? { message: scrubAndTruncate(text, 500) } : {}
  }
  const root = Array.isArray(parsed) ? (parsed[0] as unknown) : parsed
  if (root === null || typeof root !== 'object') return {}
  const error = (root as { error?: unknown }).error
  if (typeof error === 'string') return { message: error }
  const source = (error !== null && typeof error === 'object' ? error : root) as Record<string, unknown>
  const result: ProviderError = {}
  if (typeof source['message'] === 'string') result.message = source['message']
  const code = source['code'] ?? source['status']
  if (typeof code === 'string' || typeof code === 'number') result.code = String(code)
  if (typeof source['type'] === 'string') result.type = source['type']
  return result
}

export interface ErrorContext {
  provider: string
  /** A readable provider name for messages: 'OpenAI', 'Anthropic', or the base URL's host. */
  label: string
  model: string
  /** Removed from every message, in case a server echoes it. */
  apiKey?: string | undefined
}

/** The error for an HTTP response that is not ok, with advice on what to do. */
export async function httpError(response: Response, context: ErrorContext): Promise<ChatModelError> {
  const body = await response.text().catch(() => '')
  const provider = parseProviderError(body)
  const status = response.status
  const code = provider.code ?? provider.type
  const detail = provider.message ? `: ${provider.message.trim().replace(/\.+$/, '')}` : ''
  const advice = adviceFor(status, code, context)
  const retryAfter = retryAfterMs(response.headers) ?? retryAfterFromBody(body)
  const requestId = response.headers.get('x-request-id') ?? response.headers.get('request-id') ?? undefined
  const message = `${context.label} answered HTTP ${status}${code ? ` (${code})` : ''}${detail}. ${advice}`
  return new ChatModelError(scrub(message, context.apiKey), {
    provider: context.provider,
    status,
    ...(code ? { code } : {}),
    retryable: isRetryableStatus(status, response.headers),
    ...(retryAfter !== undefined ? { retryAfterMs: retryAfter } : {}),
    ...(requestId ? { requestId } : {}),
  })
}

function adviceFor(status: number, code: string | undefined, context: ErrorContext): string {
  if (status === 401 || status === 403 || code === 'invalid_api_key' || code === 'authentication_error') {
    return `Check the API key given to the ${context.label} model (and that it may use model '${context.model}').`
  }
  if (status === 404 || code === 'model_not_found' || code === 'not_found_error') {
    return `Check the model name '${context.model}' and the base URL: the model may not exist or this key may not have access to it.`
  }
  if (status === 429)
    return 'Rate limited: wait before trying again (a RetryAdvisor does this for you), or send fewer requests.'
  if (status === 529 || code === 'overloaded_error')
    return 'The provider is overloaded right now; try again in a little while.'
  if (status >= 500) return 'The provider failed on its side; trying again usually works.'
  if (status === 413) return 'The request is too large: shorten the conversation or the tool results.'
  return 'The request was refused; see the message for what to change.'
}

/** OpenRouter-style bodies carry the reset time as epoch milliseconds in `metadata.headers`. */
function retryAfterFromBody(body: string): number | undefined {
  const reset = /"X-RateLimit-Reset"\s*:\s*"?(\d{10,13})"?/i.exec(body)?.[1]
  if (!reset) return undefined
  const at = reset.length === 13 ? Number(reset) : Number(reset) * 1000
  return Math.max(0, at - Date.now())
}

/** A fetch that failed before any response: offline, DNS, CORS, a reset connection. */
export function networkError(error: unknown, url: string, context: ErrorContext): ChatModelError {
  const reason = thrownMessage(error)
  const message = `Could not reach ${context.label} at ${withoutCredentials(url)}: ${reason}. Check the base URL and your connection; in a browser the server must also allow this page's origin (CORS).`
  return new ChatModelError(scrub(message, context.apiKey), {
    provider: context.provider,
    retryable: true,
    cause: error,
  })
}

/** A stream that broke: cut off before its end, an unreadable line, or an error sent inside it. */
export function streamError(
  message: string,
  context: ErrorContext,
  details: { retryable: boolean; status?: number; code?: string } = { retryable: false },
): ChatModelError {
  return new ChatModelError(scrub(`${context.label}: ${message}`, context.apiKey), {
    provider: context.provider,
    ...details,
  })
}

export function scrub(text: string, apiKey: string | undefined): string {
  return apiKey && apiKey.length >= 4 ? text.split(apiKey).join('[redacted]') : text
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
