import { abortError } from '../core'
import { networkError, type ErrorContext } from './errors'

/**
 * One server-sent event: its type (`event:`) and its data lines joined. (Its `id:` is not kept:
 * nothing here reconnects with a last event id.)
 */
export interface ServerSentEvent {
  event?: string
  data: string
  /** The body ended inside this event (no blank line after it): its data may be cut off. */
  cut?: true
}

/**
 * The server-sent events of a response body, decoded as UTF-8 across chunk boundaries. A read
 * that fails (a reset connection) becomes a ChatModelError; aborting cancels the body.
 */
export async function* serverSentEvents(
  response: Response,
  signal: AbortSignal | undefined,
  context: ErrorContext,
): AsyncGenerator<ServerSentEvent> {
  if (!response.body) return
  const reader = response.body.getReader()
  const decoder = new TextDecoder()
  const parser = new EventStreamParser()
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
        // A last event without its blank line is still an event (servers cut short send some), marked as maybe cut.
        for (const event of parser.feed(decoder.decode() + '\n\n')) yield { ...event, cut: true }
        return
      }
      const events = parser.feed(decoder.decode(read.value, { stream: true }))
      if (events.length > 0) yield* events
    }
  } finally {
    signal?.removeEventListener('abort', cancel)
    cancel()
  }
}

const NO_EVENTS: readonly ServerSentEvent[] = []

/** The event stream format (WHATWG HTML, "Parsing an event stream"), fed text in pieces of any size. */
export class EventStreamParser {
  /** The start of a line that has not ended yet. */
  #partial = ''
  #started = false
  /** A CR ended the last piece: an LF starting the next belongs to it. */
  #afterCR = false
  #event: string | undefined
  #data: string[] = []

  feed(text: string): readonly ServerSentEvent[] {
    if (text === '') return NO_EVENTS
    if (!this.#started) {
      this.#started = true
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1)
    }
    if (this.#afterCR && text.charCodeAt(0) === 10) text = text.slice(1)
    this.#afterCR = false
    let events: ServerSentEvent[] | undefined
    let start = 0
    for (;;) {
      const end = lineEnd(text, start)
      if (end < 0) break
      const line = this.#partial + text.slice(start, end)
      this.#partial = ''
      const event = this.#line(line)
      if (event) (events ??= []).push(event)
      start = end + 1
      if (text.charCodeAt(end) === 13) {
        if (start === text.length) this.#afterCR = true
        else if (text.charCodeAt(start) === 10) start++
      }
    }
    this.#partial += text.slice(start)
    return events ?? NO_EVENTS
  }

  #line(line: string): ServerSentEvent | undefined {
    if (line === '') return this.#dispatch()
    if (line.charCodeAt(0) === 58) return undefined
    const colon = line.indexOf(':')
    const field = colon < 0 ? line : line.slice(0, colon)
    let value = colon < 0 ? '' : line.slice(colon + 1)
    if (value.charCodeAt(0) === 32) value = value.slice(1)
    if (field === 'data') this.#data.push(value)
    else if (field === 'event') this.#event = value
    return undefined
  }

  #dispatch(): ServerSentEvent | undefined {
    const data = this.#data
    const type = this.#event
    this.#event = undefined
    if (data.length === 0) return undefined
    this.#data = []
    const event: ServerSentEvent = { data: data.join('\n') }
    if (type) event.event = type
    return event
  }
}

/** Where the next line ending (CR or LF) is, from `start`; -1 when none. */
function lineEnd(text: string, start: number): number {
  const lf = text.indexOf('\n', start)
  const cr = text.indexOf('\r', start)
  return cr < 0 ? lf : lf < 0 ? cr : Math.min(cr, lf)
}
