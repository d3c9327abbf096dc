import { describe, expect, it } from 'vitest'
import { userMessage, type ChatModel, type ChatResponse, type Prompt } from '../core'
import { collect } from '../core/testing/collect'
import { AnthropicChatModel } from './anthropic'
import { ChatModelError } from './errors'
import { OpenAIChatModel } from './openai'
import { OpenAIResponsesChatModel } from './openai-responses'
import { recording, recordingsOf, written, writtenOf } from './testing/fixtures'

// A server (or a proxy) that closes a stream cleanly in the middle of it, at any byte: before the
// response is complete the caller gets a retryable ChatModelError that says the stream was cut;
// from the byte that completes it on, what the bytes up to the last whole event give.

type Format = 'chat' | 'anthropic' | 'responses'

const prompt: Prompt = { messages: [userMessage('hi')], options: {} }
/** Fixtures read at every byte: the kinds the issue measured (Responses reasoning + call, Anthropic thinking, DeepSeek). */
const EVERY_BYTE = new Set([
  'responses/reasoning-tool-call.sse',
  'providers/anthropic/messages-stream-thinking.sse',
  'quirks/deepseek-reasoning-content.sse',
])

interface Fixture {
  name: string
  format: Format
  body: Uint8Array
}

function fixtures(): Fixture[] {
  const recorded = recordingsOf(
    ['openai/', 'groq/', 'openrouter/', 'vllm/', 'mistral/', 'anthropic/', 'openai-responses/'],
    '.sse',
  )
    .concat(recordingsOf(['mistral/'], '.chunks.jsonl'))
    .map((file) => ({ name: `providers/${file}`, body: recording(file).body }))
  const quirks = writtenOf('quirks', '.sse').map((file) => ({
    name: `quirks/${file}`,
    body: written('quirks', file).body,
  }))
  const responses = writtenOf('responses', '.sse').map((file) => ({
    name: `responses/${file}`,
    body: written('responses', file).body,
  }))
  return [...recorded, ...quirks, ...responses].map((fixture) => ({ ...fixture, format: formatOf(fixture.name) }))
}

function formatOf(name: string): Format {
  if (/anthropic/.test(name)) return 'anthropic'
  return /responses/.test(name) ? 'responses' : 'chat'
}

/** A body that arrives in one read and then ends cleanly, as a server that closed the connection politely. */
function politeBody(bytes: Uint8Array): Response {
  let read = false
  const reader = {
    read: () =>
      Promise.resolve(read ? { done: true, value: undefined } : ((read = true), { done: false, value: bytes })),
    cancel: () => Promise.resolve(),
  }
  return {
    ok: true,
    status: 200,
    url: '',
    headers: new Headers(),
    body: { getReader: () => reader },
  } as unknown as Response
}

function modelFor(format: Format, next: () => Uint8Array): ChatModel {
  const fetch = () => Promise.resolve(politeBody(next()))
  if (format === 'anthropic') return new AnthropicChatModel({ model: 'c', fetch })
  return format === 'responses'
    ? new OpenAIResponsesChatModel({ model: 'r', fetch })
    : new OpenAIChatModel({ model: 'm', fetch })
}

type Outcome = ChatResponse[] | { error: string; retryable: boolean; status?: number; code?: string }

async function outcome(model: ChatModel): Promise<Outcome> {
  try {
    return await collect(model.stream(prompt))
  } catch (error) {
    if (!(error instanceof ChatModelError)) return { error: String(error), retryable: false }
    return { error: error.message, retryable: error.retryable, status: error.status, code: error.code }
  }
}

const isCut = (result: Outcome) =>
  !Array.isArray(result) && result.retryable && /the stream was cut before/.test(result.error)

interface StreamEvent {
  /** The byte after the last byte of its data: a body cut there holds the whole event. */
  end: number
  name: string | undefined
  data: string
}

/** The server-sent events of a body with the byte offsets where their data ends (read by the test, not the adapter). */
function eventsOf(body: Uint8Array): StreamEvent[] {
  const events: StreamEvent[] = []
  let data: string[] = []
  let name: string | undefined
  let end = 0
  let start = 0
  const decoder = new TextDecoder()
  for (let i = 0; i <= body.length; i++) {
    const byte = body[i]
    if (i < body.length && byte !== 10 && byte !== 13) continue
    const line = decoder.decode(body.subarray(start, i))
    if (line === '') {
      if (data.length > 0) events.push({ end, name, data: data.join('\n') })
      data = []
      name = undefined
    } else if (line.startsWith('data:')) {
      data.push(line.slice(5).replace(/^ /, ''))
      end = i
    } else if (line.startsWith('event:')) name = line.slice(6).trim()
    if (byte === 13 && body[i + 1] === 10) i++
    start = i + 1
  }
  if (data.length > 0) events.push({ end, name, data: data.join('\n') })
  return events
}

/** The index of the event that completes (or fails) the response, by the provider's documented protocol. */
function decisiveEvent(format: Format, events: StreamEvent[]): number {
  let starts = 0
  return events.findIndex((event) => {
    if (format === 'chat') {
      if (event.data.trim() === '[DONE]' || event.name === 'error') return true
      const chunk = JSON.parse(event.data) as { error?: unknown; choices?: Array<{ finish_reason?: unknown } | null> }
      return (
        (chunk.error ?? null) !== null ||
        (chunk.choices ?? []).some((choice) => (choice?.finish_reason ?? null) !== null)
      )
    }
    const type = (JSON.parse(event.data) as { type?: string }).type
    if (format === 'anthropic')
      return type === 'message_stop' || type === 'error' || (type === 'message_start' && starts++ > 0)
    return ['response.completed', 'response.incomplete', 'response.failed', 'error'].includes(type ?? '')
  })
}

/**
 * Every byte for the fixtures of the issue and the small ones. A large one is read, cut by cut, in
 * time that grows with its length: it gets a dense sample instead, half of it the bytes around line
 * ends (where what a cut leaves changes), half on an even stride.
 */
function positionsOf(fixture: Fixture): number[] {
  const length = fixture.body.length
  if (EVERY_BYTE.has(fixture.name) || length <= 3000) return Array.from({ length }, (_, i) => i)
  const budget = Math.min(length, Math.ceil(60_000_000 / length))
  const positions = new Set<number>()
  const stride = Math.ceil(length / (budget / 2))
  for (let i = 0; i < length; i += stride) positions.add(i)
  const lineEnds = fixture.body.reduce<number[]>((ends, byte, i) => (byte === 10 ? [...ends, i] : ends), [])
  const every = Math.max(1, Math.ceil((lineEnds.length * 3) / (budget / 2)))
  lineEnds
    .filter((_, n) => n % every === 0)
    .forEach((end) => [end - 1, end, end + 1].forEach((near) => near < length && positions.add(near)))
  return [...positions].sort((a, b) => a - b)
}

describe('a stream cut at any byte is retryable until it is complete', () => {
  const all = fixtures()

  it('covers the streamed fixtures of all three adapters', () => {
    const formats = all.map((fixture) => fixture.format)
    expect(formats.filter((format) => format === 'chat').length).toBeGreaterThanOrEqual(15)
    expect(formats.filter((format) => format === 'anthropic').length).toBeGreaterThanOrEqual(5)
    expect(formats.filter((format) => format === 'responses').length).toBeGreaterThanOrEqual(8)
  })

  for (const fixture of all) {
    it(`${fixture.name}: a retryable 'cut' error before the response completes, its result from then on`, async () => {
      let body = fixture.body
      const model = modelFor(fixture.format, () => body)
      const read = async (length: number) => ((body = fixture.body.subarray(0, length)), outcome(model))
      const events = eventsOf(fixture.body)
      const decisive = decisiveEvent(fixture.format, events)
      expect(decisive).toBeGreaterThanOrEqual(0)
      const whole = await read(fixture.body.length)
      // After the completing event, a cut only loses the events it drops (usage, [DONE]): the result as of the last whole event.
      const asOf = new Map<number, Outcome>()
      const unexpected: Array<{ position: number; got: Outcome }> = []
      for (const position of positionsOf(fixture)) {
        const got = await read(position)
        const wholeEvents = events.filter((event) => event.end <= position).length
        if (wholeEvents <= decisive) {
          if (!isCut(got)) unexpected.push({ position, got })
          continue
        }
        if (!asOf.has(wholeEvents)) asOf.set(wholeEvents, await read(events[wholeEvents - 1]!.end))
        const expected = asOf.get(wholeEvents)!
        const answers = (result: Outcome) => (Array.isArray(result) ? result.map((chunk) => chunk.results) : result)
        const sameAnswer = !Array.isArray(whole) || JSON.stringify(answers(got)) === JSON.stringify(answers(whole))
        if (isCut(got) || JSON.stringify(got) !== JSON.stringify(expected) || !sameAnswer)
          unexpected.push({ position, got })
      }
      expect(unexpected.slice(0, 3)).toEqual([])
      expect(isCut(whole)).toBe(false)
    }, 60_000)
  }
})
