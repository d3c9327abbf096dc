import { createParser, type EventSourceMessage } from 'eventsource-parser'
import { abortError } from '../core'
import { networkError, type ErrorContext } from './errors'

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
