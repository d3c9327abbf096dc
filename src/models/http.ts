import { abortError, isAbortError, scrubAndTruncate } from '../core'
import { networkError, type ErrorContext } from './errors'
import { httpError } from './http-error'
import { unreadable } from './wire'

export interface HttpOptions {
  fetch?: typeof fetch | undefined
  headers: Record<string, string>
  signal?: AbortSignal | undefined
}

/** How an OpenAI-style API is asked: the app's headers, with `authorization: Bearer <apiKey>` when there is a key. */
export function bearerHttp(
  options: {
    headers?: Record<string, string> | undefined
    apiKey?: string | undefined
    fetch?: typeof fetch | undefined
  },
  signal: AbortSignal | undefined,
): HttpOptions {
  const headers: Record<string, string> = { ...options.headers }
  if (options.apiKey) headers['authorization'] = `Bearer ${options.apiKey}`
  return { fetch: options.fetch, headers, signal }
}

/** POSTs JSON; a failure becomes a ChatModelError (or an AbortError when aborted). */
export async function postJson(
  url: string,
  body: unknown,
  options: HttpOptions,
  context: ErrorContext,
): Promise<Response> {
  const fetcher = options.fetch ?? globalThis.fetch.bind(globalThis)
  let response: Response
  try {
    response = await fetcher(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...options.headers },
      body: JSON.stringify(body),
      ...(options.signal ? { signal: options.signal } : {}),
    })
  } catch (error) {
    if (options.signal?.aborted || isAbortError(error)) throw abortError(options.signal)
    throw networkError(error, url, context)
  }
  if (!response.ok) {
    throw await httpError(response, context)
  }
  return response
}

/** The JSON body of a response; a body cut short or not JSON becomes a ChatModelError. */
export async function readJson<T>(
  response: Response,
  signal: AbortSignal | undefined,
  context: ErrorContext,
): Promise<T> {
  let text: string
  try {
    text = await response.text()
  } catch (error) {
    if (signal?.aborted) throw abortError(signal)
    throw networkError(error, response.url || context.label, context)
  }
  try {
    return JSON.parse(text) as T
  } catch {
    throw unreadable(`the answer is not JSON: ${scrubAndTruncate(text, 120)}`, context)
  }
}
