import { createParser, type EventSourceMessage } from 'eventsource-parser'
import { abortError, isAbortError, scrubAndTruncate } from '../core'
import { httpError, networkError, streamError, type ErrorContext } from './errors'

export interface HttpOptions {
  fetch?: typeof fetch | undefined
  headers: Record<string, string>
  signal?: AbortSignal | undefined
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
  if (!response.ok) throw await httpError(response, context)
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
    throw streamError(`the answer is not JSON: ${scrubAndTruncate(text, 120)}`, context)
  }
}

/**
 * The server-sent events of a response body, decoded as UTF-8 across chunk boundaries. A read
 * that fails (a reset connection) becomes a ChatModelError; aborting cancels the body.
 */
export async function* serverSentEvents(
  response: Response,
  signal: AbortSignal | undefined,
  context: ErrorContext,
): AsyncGenerator<EventSourceMessage> {
  if (!response.body) return
  const reader = response.body.getReader()
  const decoder = new TextDecoder()
  const events: EventSourceMessage[] = []
  const parser = createParser({ onEvent: (event) => events.push(event) })
  const cancel = () => void reader.cancel().catch(() => {})
  signal?.addEventListener('abort', cancel, { once: true })
  try {
    for (;;) {
      let read: ReadableStreamReadResult<Uint8Array>
      try {
        read = await reader.read()
      } catch (error) {
        if (signal?.aborted) throw abortError(signal)
        throw networkError(error, response.url || context.label, context)
      }
      if (signal?.aborted) throw abortError(signal)
      if (read.done) {
        parser.feed(decoder.decode() + '\n\n')
        yield* events.splice(0)
        return
      }
      parser.feed(decoder.decode(read.value, { stream: true }))
      if (events.length > 0) yield* events.splice(0)
    }
  } finally {
    signal?.removeEventListener('abort', cancel)
    cancel()
  }
}
