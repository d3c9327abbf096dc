import type { ChatCompletionChunk, ChatCompletionParams } from '@wllama/wllama'
import { describe, expect, it } from 'vitest'
import type { Prompt } from '../core'
import { collect } from '../core/testing/collect'
import { ChatModelError } from '../models'
import { defineTool } from '../tools'
import type { WllamaEngine } from './engine'
import { wllamaError } from './errors'
import { WllamaChatModel } from './model'

// The adapter's translation and failure handling, against a scripted stand-in for the engine (the
// real engine runs in wllama.browser.test.ts).

type Request = ChatCompletionParams & { onData?: (chunk: ChatCompletionChunk) => void }

/** Replies with the given texts, one chunk per character, or never answers (`'stall'`). */
class ScriptedEngine {
  readonly requests: Request[] = []
  exits = 0
  constructor(
    private readonly replies: string[],
    private readonly finishReason: 'stop' | 'length' = 'stop',
  ) {}

  createChatCompletion(request: Request): Promise<void> {
    this.requests.push(request)
    const reply = this.replies.shift() ?? ''
    if (reply === 'stall') return new Promise(() => {})
    for (const char of reply) request.onData?.(chunk({ content: char }))
    request.onData?.({
      ...chunk({}),
      choices: [{ index: 0, delta: {}, finish_reason: this.finishReason, logprobs: null }],
      timings: {
        cache_n: 2,
        prompt_n: 10,
        prompt_ms: 5,
        prompt_per_token_ms: 0.5,
        prompt_per_second: 2000,
        predicted_n: reply.length,
        predicted_ms: 20,
        predicted_per_token_ms: 1,
        predicted_per_second: 1000,
      },
    })
    return Promise.resolve()
  }

  async exit(): Promise<void> {
    this.exits++
  }

  getLoadedContextInfo(): never {
    throw new Error('not used')
  }
}

/**
 * Replies a character a task, as llama.cpp decodes, then fails with `failure` if given; rejects,
 * as wllama does, once its request is aborted. `settled` tells when its own promise settled.
 */
class DecodingEngine {
  readonly requests: Request[] = []
  settled = false
  constructor(
    private readonly reply: string,
    private readonly failure?: Error,
  ) {}

  createChatCompletion(request: Request): Promise<void> {
    this.requests.push(request)
    return this.#decode(request).finally(() => (this.settled = true))
  }

  async #decode(request: Request): Promise<void> {
    for (const char of this.reply) {
      await nextTask()
      if (request.abortSignal?.aborted) throw new DOMException('The operation was aborted', 'AbortError')
      request.onData?.(chunk({ content: char }))
    }
    if (this.failure) throw this.failure
  }
}

const nextTask = () => new Promise((resolve) => setTimeout(resolve))

/** Runs `body`, then, once the engine's own promise settled, expects no promise rejected with nobody awaiting it. */
async function withoutUnhandledRejections(engine: DecodingEngine, body: () => Promise<void>): Promise<void> {
  const unhandled: unknown[] = []
  const onUnhandled = (reason: unknown) => unhandled.push(reason)
  process.on('unhandledRejection', onUnhandled)
  try {
    await body()
    await expect.poll(() => engine.settled).toBe(true)
    await nextTask()
    expect(unhandled).toEqual([])
  } finally {
    process.off('unhandledRejection', onUnhandled)
  }
}

function chunk(delta: { content?: string }): ChatCompletionChunk {
  return {
    id: '',
    object: 'chat.completion.chunk',
    created: 0,
    model: '',
    choices: [{ index: 0, delta, finish_reason: null, logprobs: null }],
  }
}

const modelOn = (engine: ScriptedEngine | DecodingEngine, stallTimeoutMs?: number) =>
  new WllamaChatModel(engine as unknown as WllamaEngine, {
    model: 'tiny.gguf',
    ...(stallTimeoutMs ? { stallTimeoutMs } : {}),
  })

const weather = defineTool({
  name: 'weather',
  description: 'Weather in a city',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  execute: ({ city }: { city: string }) => `sunny in ${city}`,
})

const prompt = (options: Prompt['options'] = {}, messages?: Prompt['messages']): Prompt => ({
  messages: messages ?? [
    { role: 'system', text: 'Be brief.' },
    { role: 'user', text: 'Weather in Oslo?' },
  ],
  options,
})

describe('WllamaChatModel requests', () => {
  it('sends plain turns with sampling options under llama.cpp names', async () => {
    const engine = new ScriptedEngine(['Hi'])
    await modelOn(engine).call(prompt({ temperature: 0.2, topP: 0.9, maxTokens: 8, seed: 1, stopSequences: ['#'] }))
    expect(engine.requests[0]).toMatchObject({
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Weather in Oslo?' },
      ],
      temperature: 0.2,
      top_p: 0.9,
      max_tokens: 8,
      seed: 1,
      stop: ['#'],
      stream: true,
    })
    expect(engine.requests[0]!.response_format).toBeUndefined()
  })

  it('sends the model-wide maxTokens when a prompt sets none', async () => {
    const engine = new ScriptedEngine(['a', 'b'])
    const model = new WllamaChatModel(engine as unknown as WllamaEngine, { model: 'tiny.gguf', maxTokens: 64 })
    await model.call(prompt())
    await model.call(prompt({ maxTokens: 8 }))
    expect(engine.requests.map((request) => request.max_tokens)).toEqual([64, 8])
  })

  it('constrains a reply with tools to the answer-or-tool-calls schema, instructions in the system turn', async () => {
    const engine = new ScriptedEngine(['{"tool_calls":[{"name":"weather","arguments":{"city":"Oslo"}}]}'])
    const response = await modelOn(engine).call(prompt({ tools: [weather] }))
    const request = engine.requests[0]!
    expect(request.messages[0]!.content).toMatch(/^Be brief\.\n\nYou can call tools\./)
    const schema = request.response_format!.json_schema!.schema as { anyOf: unknown[] }
    expect(request.response_format!.type).toBe('json_schema')
    expect(schema.anyOf).toHaveLength(2)
    expect(response.results[0]!.output.toolCalls).toEqual([
      { id: expect.stringMatching(/^call_/) as string, name: 'weather', arguments: '{"city":"Oslo"}' },
    ])
    expect(response.results[0]!.metadata.finishReason).toBe('tool_calls')
  })

  it('a named or required tool choice leaves only the tool-calls branch; none sends no tools', async () => {
    const engine = new ScriptedEngine(['{"tool_calls":[{"name":"weather","arguments":{"city":"Oslo"}}]}', 'Fine.'])
    await modelOn(engine).call(prompt({ tools: [weather], toolChoice: { name: 'weather' } }))
    const schema = engine.requests[0]!.response_format!.json_schema!.schema as { required: string[] }
    expect(schema.required).toEqual(['tool_calls'])
    await modelOn(engine).call(prompt({ tools: [weather], toolChoice: 'none' }))
    expect(engine.requests[1]!.response_format).toBeUndefined()
    expect(engine.requests[1]!.messages[0]!.content).toBe('Be brief.')
  })

  it("shows the model its earlier calls in the JSON it must use, and tool results as the user's turn", async () => {
    const engine = new ScriptedEngine(['{"answer":"Sunny."}'])
    const response = await modelOn(engine).call(
      prompt({ tools: [weather] }, [
        { role: 'user', text: 'Weather?' },
        { role: 'assistant', text: '', toolCalls: [{ id: 'c1', name: 'weather', arguments: '{"city":"Oslo"}' }] },
        { role: 'tool', responses: [{ id: 'c1', name: 'weather', responseData: 'sunny' }] },
      ]),
    )
    expect(engine.requests[0]!.messages.slice(1)).toEqual([
      { role: 'user', content: 'Weather?' },
      { role: 'assistant', content: '{"tool_calls":[{"name":"weather","arguments":{"city":"Oslo"}}]}' },
      { role: 'user', content: 'Tool results:\n- weather (c1): sunny' },
    ])
    expect(response.results[0]!.output.text).toBe('Sunny.')
  })

  it('streams the answer text of the JSON envelope as it arrives', async () => {
    const engine = new ScriptedEngine(['{"answer":"Sunny in Oslo."}'])
    const chunks = await collect(modelOn(engine).stream(prompt({ tools: [weather] })))
    const texts = chunks.map((c) => c.results[0]!.output.text).filter(Boolean)
    expect(texts.length).toBeGreaterThan(5)
    expect(texts.join('')).toBe('Sunny in Oslo.')
  })

  it('puts usage, speed and the engine timings on the last chunk', async () => {
    const engine = new ScriptedEngine(['abc'])
    const chunks = await collect(modelOn(engine).stream(prompt()))
    expect(chunks.at(-1)!.metadata).toMatchObject({
      model: 'tiny.gguf',
      usage: { promptTokens: 12, completionTokens: 3, totalTokens: 15, cacheReadTokens: 2 },
      speed: { prefillTokensPerSecond: 2000, decodeTokensPerSecond: 1000 },
      timings: { promptTokens: 10, cachedTokens: 2, promptMs: 5, predictedTokens: 3, predictedMs: 20 },
    })
  })

  it('refuses an image before the engine sees anything', async () => {
    const engine = new ScriptedEngine([])
    const image = { type: 'image' as const, image: 'data:image/png;base64,iVBORw0KGgo=', mediaType: 'image/png' }
    await expect(
      modelOn(engine).call(prompt({}, [{ role: 'user', text: '', parts: [{ type: 'text', text: 'What?' }, image] }])),
    ).rejects.toBeInstanceOf(ChatModelError)
    expect(engine.requests).toHaveLength(0)
  })
})

describe('WllamaChatModel failures', () => {
  it('a reply cut off inside the JSON envelope is a retryable invalid-output error', async () => {
    const engine = new ScriptedEngine(['{"tool_calls":[{"na'])
    await expect(modelOn(engine).call(prompt({ tools: [weather] }))).rejects.toMatchObject({
      code: 'invalid-output',
      retryable: true,
    })
  })

  it('a reply that breaks off at the token limit says so', async () => {
    const engine = new ScriptedEngine(['{"answer":"abc'], 'length')
    const failure = modelOn(engine).call(prompt({ tools: [weather], maxTokens: 14 }))
    await expect(failure).rejects.toMatchObject({ code: 'invalid-output' })
    await expect(failure).rejects.toThrow(
      "llama.cpp model 'tiny.gguf': the reply was cut off at the token limit (14 tokens), so the model's reply is not complete JSON",
    )
  })

  it('an engine that stops responding is shut down, and the model says so from then on', async () => {
    const engine = new ScriptedEngine(['stall'])
    const model = modelOn(engine, 30)
    await expect(model.call(prompt())).rejects.toMatchObject({
      code: 'engine-unresponsive',
      message: expect.stringContaining("llama.cpp model 'tiny.gguf': Nothing came for 30 ms") as string,
    })
    expect(engine.exits).toBe(1)
    expect(engine.requests[0]!.abortSignal!.aborted).toBe(true)
    await expect(model.call(prompt())).rejects.toMatchObject({ code: 'disposed' })
  })

  it('an abort settles the stream at once and aborts the engine request', async () => {
    const engine = new ScriptedEngine(['stall'])
    const controller = new AbortController()
    const reading = collect(modelOn(engine).stream(prompt(), controller.signal))
    await expect.poll(() => engine.requests.length).toBe(1)
    controller.abort()
    await expect(reading).rejects.toMatchObject({ name: 'AbortError' })
    expect(engine.requests[0]!.abortSignal!.aborted).toBe(true)
  })

  it('an engine error mid-stream reaches the reader after the chunks before it, in order', async () => {
    const engine = new DecodingEngine('abc', new Error('Cannot enlarge memory arrays'))
    const texts: string[] = []
    const reading = (async () => {
      for await (const response of modelOn(engine).stream(prompt())) texts.push(response.results[0]!.output.text)
    })()
    await expect(reading).rejects.toMatchObject({ code: 'out-of-memory', provider: 'wllama' })
    expect(texts).toEqual(['a', 'b', 'c'])
  })

  it("a reader that stops mid-stream stops the engine's decoding, and the engine's rejection is no news", async () => {
    const engine = new DecodingEngine('abcdefgh')
    await withoutUnhandledRejections(engine, async () => {
      const texts: string[] = []
      for await (const response of modelOn(engine).stream(prompt())) {
        texts.push(response.results[0]!.output.text)
        if (texts.length === 2) break
      }
      expect(texts).toEqual(['a', 'b'])
      expect(engine.requests[0]!.abortSignal!.aborted).toBe(true)
    })
  })

  it("an abort mid-stream stops the engine's decoding, and the engine's rejection is no news", async () => {
    const engine = new DecodingEngine('abcdefgh')
    await withoutUnhandledRejections(engine, async () => {
      const controller = new AbortController()
      const texts: string[] = []
      const reading = (async () => {
        for await (const response of modelOn(engine).stream(prompt(), controller.signal)) {
          texts.push(response.results[0]!.output.text)
          if (texts.length === 2) controller.abort()
        }
      })()
      await expect(reading).rejects.toMatchObject({ name: 'AbortError' })
      expect(texts).toEqual(['a', 'b'])
      expect(engine.requests[0]!.abortSignal!.aborted).toBe(true)
    })
  })

  it("prefers llama.cpp's log line to the engine's meaningless RangeError", () => {
    const error = wllamaError(
      new RangeError('Invalid typed array length: 1163217991\nStack trace…'),
      'tiny.gguf',
      'JSON schema error at #: unrecognized type strange',
    )
    expect(error).toMatchObject({ code: 'unsupported-schema', provider: 'wllama' })
    expect(error.message).toContain(
      "llama.cpp model 'tiny.gguf': JSON schema error at #: unrecognized type strange (Invalid typed array length: 1163217991)",
    )
    expect(wllamaError(new Error('Cannot enlarge memory arrays'), 'big.gguf').code).toBe('out-of-memory')
  })

  it('tells a grammar the model broke while decoding from a schema llama.cpp could not convert', () => {
    const broken = wllamaError(
      new RangeError('Invalid typed array length: 4'),
      'spm.gguf',
      'Unexpected empty grammar stack after accepting piece: ▁{',
    )
    expect(broken.code).toBe('grammar-mismatch')
    expect(broken.message).toContain('the schema itself is fine')
    expect(broken.message).not.toContain('Simplify')
    expect(wllamaError(new Error('llama_grammar_init_impl: failed to parse grammar'), 'x.gguf').code).toBe(
      'unsupported-schema',
    )
  })
})

describe('WllamaChatModel window', () => {
  it('says the context llama.cpp was loaded with, and nothing before it is loaded', () => {
    const loaded = { getLoadedContextInfo: () => ({ n_ctx: 1024 }) }
    expect(new WllamaChatModel(loaded as unknown as WllamaEngine, { model: 'tiny.gguf' }).contextWindow).toBe(1024)
    expect(modelOn(new ScriptedEngine([])).contextWindow).toBeUndefined()
  })
})
