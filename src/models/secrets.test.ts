import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ObserverAdvisor } from '../advisors'
import { ChatClient } from '../client'
import { TraceCollector, toOtlp } from '../trace'
import { AnthropicChatModel } from './anthropic'
import { ChatModelError } from './errors'
import { OpenAIChatModel } from './openai'

// Every secret a model is given must stay out of errors and traces, whatever the server echoes.

const KEY = 'sk-secret-ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'
const HEADER_KEY = 'hdr-0123456789-custom-credential'
const PASSWORD = 'hunter2-Zq9xW7vPk3'

const unhandled: unknown[] = []
const onUnhandled = (reason: unknown) => unhandled.push(reason)
beforeAll(() => process.on('unhandledRejection', onUnhandled))
afterAll(() => {
  process.off('unhandledRejection', onUnhandled)
  expect(unhandled).toEqual([])
})

/** Fails the test when any piece of `secret` of 6 or more characters shows up in `text`. */
function expectNoPieceOf(secret: string, text: string) {
  for (let start = 0; start + 6 <= secret.length; start++) {
    expect(text, `holds ${secret.slice(start, start + 6)}`).not.toContain(secret.slice(start, start + 6))
  }
}

const answering =
  (status: number, body: string, headers: Record<string, string> = {}): typeof fetch =>
  () =>
    Promise.resolve(new Response(body, { status, headers }))

async function failure(model: OpenAIChatModel | AnthropicChatModel): Promise<ChatModelError> {
  const error: unknown = await model
    .call({ messages: [{ role: 'user', text: 'hi' }], options: {} })
    .catch((e: unknown) => e)
  expect(error).toBeInstanceOf(ChatModelError)
  return error as ChatModelError
}

const everything = (error: ChatModelError) =>
  [JSON.stringify(error), error.message, String(error.cause), (error.cause as Error | undefined)?.stack ?? ''].join(
    '\n',
  )

describe('secrets never leave a model error', () => {
  it('scrubs a key the server echoes in its error code, message and x-request-id', async () => {
    const body = JSON.stringify({ error: { message: `Bad key ${KEY}`, code: `invalid:${KEY}` } })
    const model = new OpenAIChatModel({
      model: 'm',
      apiKey: KEY,
      fetch: answering(401, body, { 'x-request-id': `req-${KEY}` }),
    })
    const error = await failure(model)
    expectNoPieceOf(KEY, everything(error))
    expect(error.code).toBe('invalid:[redacted]')
    expect(error.requestId).toBe('req-[redacted]')
  })

  it.each([490, 495, 499])('leaves no first characters of a key cut by the 500-character limit (at %i)', async (at) => {
    const body = 'x'.repeat(at) + KEY
    const error = await failure(new OpenAIChatModel({ model: 'm', apiKey: KEY, fetch: answering(500, body) }))
    expectNoPieceOf(KEY, everything(error))
  })

  it.each([110, 115, 119])('leaves no first characters of a key cut by the 120-character limit (at %i)', async (at) => {
    const body = 'y'.repeat(at) + KEY
    const error = await failure(new OpenAIChatModel({ model: 'm', apiKey: KEY, fetch: answering(200, body) }))
    expect(error.message).toContain('the answer is not JSON')
    expectNoPieceOf(KEY, everything(error))
  })

  it('scrubs a key given through headers (not apiKey), and the token of an Authorization header', async () => {
    const body = JSON.stringify({ error: { message: `${HEADER_KEY} and tok-ABCDEFGHIJ0123 refused` } })
    const model = new AnthropicChatModel({
      model: 'm',
      headers: { 'x-my-key': HEADER_KEY, Authorization: 'Bearer tok-ABCDEFGHIJ0123' },
      fetch: answering(403, body, { 'request-id': HEADER_KEY }),
    })
    const error = await failure(model)
    expectNoPieceOf(HEADER_KEY, everything(error))
    expectNoPieceOf('tok-ABCDEFGHIJ0123', everything(error))
  })

  it('keeps URL credentials out of a network error, its cause and the trace', async () => {
    const baseURL = `https://ann:${PASSWORD}@llm.example.test/v1`
    const model = new OpenAIChatModel({
      model: 'm',
      baseURL,
      fetch: (url) =>
        Promise.reject(
          new TypeError(`Request cannot be constructed from a URL that includes credentials: ${url as string}`),
        ),
    })
    const error = await failure(model)
    expect(error.message).toContain('Could not reach llm.example.test at https://llm.example.test/v1/chat/completions')
    expectNoPieceOf(PASSWORD, everything(error))
    expect(everything(error)).not.toContain(`ann:`)

    const collector = new TraceCollector()
    const client = ChatClient.builder(model)
      .defaultAdvisors(new ObserverAdvisor({ sink: collector }))
      .build()
    await expect(client.prompt('hi').call().content()).rejects.toThrow(ChatModelError)
    expectNoPieceOf(PASSWORD, JSON.stringify(collector.events))
    expectNoPieceOf(PASSWORD, JSON.stringify(toOtlp(collector.events)))
  })

  it('keeps an echoed key out of the trace’s error events, code included', async () => {
    const body = JSON.stringify({ error: { message: `no: ${KEY}`, code: KEY } })
    const model = new OpenAIChatModel({ model: 'm', apiKey: KEY, fetch: answering(400, body) })
    const collector = new TraceCollector()
    const client = ChatClient.builder(model)
      .defaultAdvisors(new ObserverAdvisor({ sink: collector }))
      .build()
    await expect(client.prompt('hi').call().content()).rejects.toThrow(ChatModelError)
    expect(collector.ofType('error')).not.toHaveLength(0)
    expectNoPieceOf(KEY, JSON.stringify(collector.events))
  })
})

describe('secrets never reach a trace through streamed text', () => {
  it('shows none of the body of an unregistered 164-character key streamed in 4-character chunks', async () => {
    const { ChatClient: Client } = await import('../client')
    const { ScriptedChatModel } = await import('./scripted')
    const collector = new TraceCollector()
    const key = `sk-proj-${'Zq9_x'.repeat(31)}a`
    const text = `the key is ${key} and more`
    const model = new ScriptedChatModel([{ text, chunks: text.match(/.{1,4}/gs)! }])
    const client = Client.builder(model)
      .defaultAdvisors(new ObserverAdvisor({ sink: collector }))
      .build()
    for await (const _ of client.prompt('q').stream().content());
    const shown = collector
      .ofType('model-chunk')
      .map((chunk) => chunk.text)
      .join('')
    expect(key).toHaveLength(164)
    expect(shown).not.toMatch(/proj|Zq9|_x/)
  })

  it('gives back text held at the end of a stream that sends no finish reason', async () => {
    const { ChatClient: Client } = await import('../client')
    const { ScriptedChatModel } = await import('./scripted')
    const collector = new TraceCollector()
    // The start of the registered key, held back in case the key follows; not yet a key of any pattern.
    const tail = KEY.slice(0, 2)
    const model = new ScriptedChatModel([{ text: `ends with ${tail}`, chunks: ['ends with ', tail], finishReason: '' }])
    const client = Client.builder(model)
      .defaultAdvisors(new ObserverAdvisor({ sink: collector }))
      .build()
    for await (const _ of client.prompt('q').stream().content());
    expect(
      collector
        .ofType('model-chunk')
        .map((chunk) => chunk.text)
        .join(''),
    ).toBe(`ends with ${tail}`)
  })

  const sse = (deltas: string[]) =>
    deltas
      .map((content) => `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content } }] })}\n\n`)
      .concat(
        `data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n`,
        'data: [DONE]\n\n',
      )
      .join('')

  it.each([1, 3, 5])('masks a key the model streams back in pieces of %i characters', async (size) => {
    const echo = `Sure, your key is ${KEY} as given.`
    const deltas = echo.match(new RegExp(`[\\s\\S]{1,${size}}`, 'g'))!
    const model = new OpenAIChatModel({
      model: 'm',
      apiKey: KEY,
      fetch: answering(200, sse(deltas), { 'content-type': 'text/event-stream' }),
    })
    const collector = new TraceCollector()
    const client = ChatClient.builder(model)
      .defaultAdvisors(new ObserverAdvisor({ sink: collector }))
      .build()
    const streamed: string[] = []
    for await (const text of client.prompt('echo my key').stream().content()) streamed.push(text)
    expect(streamed.join('')).toBe(echo)
    const chunks = collector.ofType('model-chunk').map((chunk) => chunk.text)
    expect(chunks.join('')).toBe('Sure, your key is [redacted] as given.')
    expectNoPieceOf(KEY, JSON.stringify(collector.events))
  })
})
