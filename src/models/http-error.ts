import { scrubAndTruncate } from '../core'
import { ChatModelError, isRetryableStatus, retryAfterMs, streamError, type ErrorContext } from './errors'

// Reading a provider's error body and advising on it: loaded when a request fails (see http.ts).

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
  const code = source['code'] ?? source['status']
  // Fields of another type are left undefined.
  return {
    message: textOf(source['message']),
    code: typeof code === 'number' ? String(code) : textOf(code),
    type: textOf(source['type']),
  }
}

const textOf = (value: unknown) => (typeof value === 'string' ? value : undefined)

/** The error for an HTTP response that is not ok, with advice on what to do. */
export async function httpError(response: Response, context: ErrorContext): Promise<ChatModelError> {
  const body = await response.text().catch(() => '')
  const provider = parseProviderError(body)
  const status = response.status
  const code = provider.code ?? provider.type
  const detail = provider.message ? `: ${provider.message.trim().replace(/\.+$/, '')}` : ''
  const advice = adviceFor(status, code, context)
  const retryAfter = retryAfterMs(response.headers) ?? retryAfterFromBody(body)
  const requestId = response.headers.get('x-request-id') ?? response.headers.get('request-id')
  const message = `${context.label} answered HTTP ${status}${code ? ` (${code})` : ''}${detail}. ${advice}`
  return new ChatModelError(message, {
    provider: context.provider,
    status,
    // Fields left undefined are not set.
    code: code || undefined,
    retryable: isRetryableStatus(status, response.headers),
    retryAfterMs: retryAfter,
    requestId: requestId || undefined,
  })
}

/**
 * The HTTP status an error type or code stands for when it comes inside a 200 answer (a stream's
 * error event, an error body), as the official SDKs map statuses to their error classes: the first
 * name the code or type holds.
 */
const IN_BAND_STATUS: Record<string, number> = {
  rate_limit: 429,
  overloaded_error: 529,
  overloaded: 503,
  unavailable: 503,
  timeout: 504,
  server_error: 500,
  api_error: 500,
  invalid_request: 400,
}

/** An error sent inside a 200 answer, with the status it carries (Groq, OpenRouter) or its code or type stands for. */
export function inBandError(error: unknown, context: ErrorContext, what: string): ChatModelError {
  const { message = 'unknown error', code: given, type } = parseProviderError(JSON.stringify({ error }))
  const code = given ?? type
  const carried = Number((error as { status_code?: unknown } | null)?.status_code ?? given)
  const status =
    carried >= 400 && carried < 600
      ? carried
      : Object.entries(IN_BAND_STATUS).find(([name]) => `${given} ${type}`.includes(name))?.[1]
  const advice = status ? `. ${adviceFor(status, code, context)}` : ''
  return streamError(`${what}${code ? ` (${code})` : ''}: ${message.replace(/\.+$/, '')}${advice}`, context, {
    retryable: status !== undefined && isRetryableStatus(status),
    status,
    code,
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
  // Seconds, or (13 digits) milliseconds.
  return Math.max(0, Number(reset) * (reset.length === 13 ? 1 : 1000) - Date.now())
}
