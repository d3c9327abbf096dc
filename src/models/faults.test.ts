import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { RetryAdvisor, ObserverAdvisor } from '../advisors'
import { ChatClient } from '../client'
import { collect } from '../core/testing/collect'
import { defineTool } from '../tools'
import { TraceCollector } from '../trace'
import { AnthropicChatModel } from './anthropic'
import { ChatModelError } from './errors'
import { OpenAIChatModel } from './openai'
import { loopback, recording, replay, type Handler } from './testing/fixtures'

// Faults injected by a real HTTP server on the loopback interface.

const KEY = 'sk-fault-0123456789abcdefghij'
const unhandled: unknown[] = []
const onUnhandled = (reason: unknown) => unhandled.push(reason)
const servers: Array<{ close(): Promise<void> }> = []

// Timers set by the library's own code (not Node's HTTP client) that were neither cleared nor fired.
const liveTimers = new Map<unknown, string>()
const realSetTimeout = globalThis.setTimeout
const realClearTimeout = globalThis.clearTimeout
function trackingSetTimeout(callback: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) {
  const stack = new Error().stack ?? ''
  const ours = /\/src\/(?!models\/testing|.*\.test\.ts)/.test(stack.split('\n').slice(2).join('\n'))
  const handle: unknown = realSetTimeout(
    (...inner: unknown[]) => {
      liveTimers.delete(handle)
      callback(...inner)
    },
    ms,
    ...args,
  )
  if (ours) liveTimers.set(handle, stack)
  return handle
}

beforeAll(() => {
  process.on('unhandledRejection', onUnhandled)
  globalThis.setTimeout = trackingSetTimeout as typeof setTimeout
  globalThis.clearTimeout = (handle: Parameters<typeof clearTimeout>[0]) => {
    liveTimers.delete(handle)
    realClearTimeout(handle)
  }
})
afterAll(() => {
  process.off('unhandledRejection', onUnhandled)
  globalThis.setTimeout = realSetTimeout
  globalThis.clearTimeout = realClearTimeout
})
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()))
  await new Promise((resolve) => realSetTimeout(resolve, 20))
  expect(unhandled).toEqual([])
  expect([...liveTimers.values()]).toEqual([])
  liveTimers.clear()
})

async function serve(...handlers: Handler[]) {
  const server = await loopback(...handlers)
  servers.push(server)
  return server
}

const json =
  (status: number, body: unknown, headers: Record<string, string> = {}): Handler =>
  (_request, response) =>
    void response.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body))

const sse =
  (...events: string[]): Handler =>
  (_request, response) => {
    response.writeHead(200, { 'content-type': 'text/event-stream' })
    response.end(events.map((event) => `data: ${event}\n\n`).join(''))
  }

const text = (content: string) =>
  JSON.stringify({ id: 'x', model: 'm', choices: [{ index: 0, delta: { content }, finish_reason: null }] })
const stop = JSON.stringify({ id: 'x', model: 'm', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })

const resetBeforeAnswer: Handler = (request) => void request.socket.destroy()
const resetMidStream: Handler = (request, response) => {
  response.writeHead(200, { 'content-type': 'text/event-stream' })
  response.write(`data: ${text('partial ')}\n\n`, () => setTimeout(() => request.socket.destroy(), 10))
}

function clientFor(url: string, retry = true) {
  const model = new OpenAIChatModel({ baseURL: `${url}/v1`, model: 'm', apiKey: KEY })
  const advisors = retry ? [RetryAdvisor.builder().initialDelayMs(5).maxDelayMs(20).build()] : []
  return ChatClient.builder(model)
    .defaultAdvisors(...advisors)
    .build()
}

describe('faults on a loopback server', () => {
  it('retries a 429 after the retry-after it names, then answers', async () => {
    const server = await serve(
      json(429, { error: { message: 'slow down', code: 'rate_limit' } }, { 'retry-after': '0.05' }),
      sse(text('ok'), stop, '[DONE]'),
    )
    const started = performance.now()
    expect((await collect(clientFor(server.url).prompt('q').stream().content())).join('')).toBe('ok')
    expect(performance.now() - started).toBeGreaterThanOrEqual(45)
    expect(server.requests).toHaveLength(2)
  })

  it('retries a 500 and a 529, then answers', async () => {
    const answer = { id: 'r', model: 'm', choices: [{ index: 0, message: { content: 'fine' }, finish_reason: 'stop' }] }
    const server = await serve(
      json(500, { error: { message: 'boom' } }),
      json(529, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }),
      json(200, answer),
    )
    expect(await clientFor(server.url).prompt('q').call().content()).toBe('fine')
    expect(server.requests).toHaveLength(3)
  })

  it('ends a 500 that keeps failing in a retryable ChatModelError after the last attempt', async () => {
    const server = await serve(json(500, { error: { message: 'boom' } }))
    const error = await clientFor(server.url)
      .prompt('q')
      .call()
      .content()
      .catch((e: unknown) => e)
    expect(error).toMatchObject({ name: 'ChatModelError', status: 500, retryable: true })
    expect(server.requests).toHaveLength(3)
  })

  it('reports an answer that is not JSON', async () => {
    const server = await serve(
      (_request, response) =>
        void response.writeHead(200, { 'content-type': 'application/json' }).end('<html>gateway</html>'),
    )
    await expect(clientFor(server.url, false).prompt('q').call().content()).rejects.toMatchObject({
      name: 'ChatModelError',
      message: expect.stringMatching(/not JSON: <html>/) as string,
    })
  })

  it('retries a connection reset before the answer', async () => {
    const server = await serve(resetBeforeAnswer, sse(text('back'), stop, '[DONE]'))
    expect((await collect(clientFor(server.url).prompt('q').stream().content())).join('')).toBe('back')
  })

  it('reports a connection reset in the middle of a stream, after the text already read, without retrying', async () => {
    const server = await serve(resetMidStream, sse(text('never'), stop, '[DONE]'))
    const seen: string[] = []
    const read = (async () => {
      for await (const delta of clientFor(server.url).prompt('q').stream().content()) seen.push(delta)
    })()
    await expect(read).rejects.toBeInstanceOf(ChatModelError)
    expect(seen).toEqual(['partial '])
    expect(server.requests).toHaveLength(1)
  })

  it("accepts a stream that closes after its finish reason without [DONE], as OpenAI's SDK does", async () => {
    const server = await serve(sse(text('whole '), text('answer'), stop))
    expect((await collect(clientFor(server.url, false).prompt('q').stream().content())).join('')).toBe('whole answer')
  })

  it('reports a stream cut before any finish reason as retryable', async () => {
    const server = await serve(sse(text('cut ')))
    await expect(collect(clientFor(server.url, false).prompt('q').stream().content())).rejects.toMatchObject({
      name: 'ChatModelError',
      retryable: true,
      message: expect.stringMatching(/cut before its finish reason/) as string,
    })
  })

  it('reports a garbage line', async () => {
    const server = await serve(sse(text('a'), '{not json', stop, '[DONE]'))
    await expect(collect(clientFor(server.url, false).prompt('q').stream().content())).rejects.toMatchObject({
      name: 'ChatModelError',
      retryable: false,
      message: expect.stringMatching(/not JSON: \{not json/) as string,
    })
  })

  it('aborts a slow server at once with an AbortError', async () => {
    const server = await serve(replay(recording('openrouter/chat-stream-usage.sse'), 40, 200))
    const controller = new AbortController()
    const read = collect(clientFor(server.url).prompt('q').signal(controller.signal).stream().content())
    setTimeout(() => controller.abort(), 50)
    const started = performance.now()
    await expect(read).rejects.toMatchObject({ name: 'AbortError' })
    expect(performance.now() - started).toBeLessThan(500)
  })

  it('aborts a call waiting for a server that never answers', async () => {
    const server = await serve(() => {})
    const controller = new AbortController()
    const answer = clientFor(server.url).prompt('q').signal(controller.signal).call().content()
    setTimeout(() => controller.abort(), 20)
    await expect(answer).rejects.toMatchObject({ name: 'AbortError' })
  })

  it('never puts the API key in an error, whatever fails', async () => {
    const server = await serve(json(401, { error: { message: `bad key ${KEY}`, code: 'invalid_api_key' } }))
    const error = (await clientFor(server.url, false)
      .prompt('q')
      .call()
      .content()
      .catch((e: unknown) => e)) as Error
    expect(`${error.message} ${String(error)} ${JSON.stringify(error)}`).not.toContain(KEY)
    expect(server.requests[0]!.headers['authorization']).toBe(`Bearer ${KEY}`)
  })

  it('says the server cannot be reached when nothing listens', async () => {
    const server = await serve(() => {})
    const url = server.url
    await server.close()
    servers.length = 0
    await expect(clientFor(url, false).prompt('q').call().content()).rejects.toMatchObject({
      name: 'ChatModelError',
      retryable: true,
      message: expect.stringMatching(/^Could not reach/) as string,
    })
  })
})

describe('a tool conversation against recorded provider streams', () => {
  const getCapital = (log: string[]) =>
    defineTool({
      name: 'get_capital',
      description: 'The capital of a country',
      inputSchema: { type: 'object', properties: { country: { type: 'string' } }, required: ['country'] },
      execute: ({ country }) => (log.push(country), country === 'UK' ? 'London' : 'unknown'),
    })

  it('runs the tool loop over an OpenAI stream: recorded tool call, then an answer', async () => {
    const log: string[] = []
    const collector = new TraceCollector()
    const server = await serve(
      replay(recording('openai/chat-stream-tool-call-role-with-tool.sse'), 64),
      sse(text('The capital is '), text('London.'), stop, '[DONE]'),
    )
    const model = new OpenAIChatModel({ baseURL: `${server.url}/v1`, model: 'gpt-4o-mini', apiKey: KEY })
    const client = ChatClient.builder(model)
      .defaultTools(getCapital(log))
      .defaultAdvisors(new ObserverAdvisor({ sink: collector }))
      .build()
    const answer = (await collect(client.prompt('Capital of the UK?').stream().content())).join('')
    expect(answer).toBe('The capital is London.')
    expect(log).toEqual(['UK'])
    const second = JSON.parse(server.requests[1]!.body) as { messages: Array<Record<string, unknown>> }
    expect(second.messages.slice(-2)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_ZR5UUuTt3pf61kjwAJIYdVMj',
            type: 'function',
            function: { name: 'get_capital', arguments: '{"country":"UK"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_ZR5UUuTt3pf61kjwAJIYdVMj', content: 'London' },
    ])
    expect(collector.ofType('run-end')[0]).toMatchObject({ status: 'ok', rounds: 2 })
    expect(JSON.stringify(collector.events)).not.toContain(KEY)
  })

  it('runs the tool loop over an Anthropic stream', async () => {
    const log: string[] = []
    const add = defineTool({
      name: 'customAdditionImplementation',
      description: 'Adds',
      inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } },
      execute: ({ a, b }) => (log.push(`${a}+${b}`), (a ?? 0) + (b ?? 0)),
    })
    const answerEvents =
      'event: message_start\ndata: {"type":"message_start","message":{"id":"m2","model":"claude","usage":{"input_tokens":900}}}\n\n' +
      'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n' +
      'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"2 + 3 = 5"}}\n\n' +
      'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":7}}\n\n' +
      'event: message_stop\ndata: {"type":"message_stop"}\n\n'
    const server = await serve(
      replay(recording('anthropic/messages-stream-tool-use-single.sse'), 50),
      (_request, response) => void response.writeHead(200, { 'content-type': 'text/event-stream' }).end(answerEvents),
    )
    const model = new AnthropicChatModel({ baseURL: server.url, model: 'claude', apiKey: KEY })
    const answer = (
      await collect(ChatClient.builder(model).defaultTools(add).build().prompt('2+3?').stream().content())
    ).join('')
    expect(answer).toBe('2 + 3 = 5')
    expect(log).toEqual(['2+3'])
    const second = JSON.parse(server.requests[1]!.body) as { messages: Array<{ role: string; content: unknown[] }> }
    expect(second.messages.at(-1)).toEqual({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'toolu_01GWMYVRPdJWuP8ywu1XZDW8', content: '5' }],
    })
  })
})
