import { scrubAndTruncate } from '../core'
import { ChatModelError, isRetryableStatus, retryAfterMs, scrub, type ErrorContext } from './errors'

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
  const result: ProviderError = {}
  if (typeof source['message'] === 'string') result.message = source['message']
  const code = source['code'] ?? source['status']
  if (typeof code === 'string' || typeof code === 'number') result.code = String(code)
  if (typeof source['type'] === 'string') result.type = source['type']
  return result
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
