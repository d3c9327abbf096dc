import type { ChatCompletionChunk, ChatCompletionParams } from '@wllama/wllama'
import wasmUrl from '@wllama/wllama/esm/wasm/wllama.wasm?url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { tinyGguf } from '../../scripts/tiny-gguf.mjs'
import { ObserverAdvisor } from '../advisors'
import { ChatClient } from '../client'
import type { ChatResponse, Prompt } from '../core'
import { collect } from '../core/testing/collect'
import { ChatModelError } from '../models'
import { defineTool } from '../tools'
import { TraceCollector } from '../trace'
import type { WllamaEngine } from './engine'
import { WllamaChatModel, type EngineTimings } from './index'

// The real llama.cpp runtime (wllama's wasm, served by Vite) with a tiny model generated here from
// a seed: its text is nonsense, but every token comes from the engine.

const tinyModel = () => new Blob([tinyGguf() as BlobPart])
const prompt = (text: string, options: Prompt['options'] = {}): Prompt => ({
  messages: [{ role: 'user', text }],
  options: { seed: 7, ...options },
})

let model: WllamaChatModel

beforeAll(async () => {
  model = await WllamaChatModel.create({ model: tinyModel(), wasmUrl })
}, 60_000)

afterAll(async () => {
  await model?.dispose()
})

describe('WllamaChatModel on the real engine', () => {
  it('names itself after the file and streams one chunk per token, usage on the last', async () => {
    expect(model.model).toBe('advisor-chain tiny test model (nonsense text)')
    const chunks = await collect(model.stream(prompt('Hello', { maxTokens: 24 })))
    const text = chunks.map((chunk) => chunk.results[0]!.output.text).join('')
    expect(chunks.length).toBeGreaterThan(10)
    expect(text.length).toBeGreaterThan(10)
    const last = chunks.at(-1)!
    expect(last.results[0]!.metadata.finishReason).toBe('length')
    expect(last.metadata.usage).toMatchObject({ completionTokens: 24 })
    expect(last.metadata.usage!.promptTokens).toBeGreaterThan(0)
  })

  it('runs a grammar-constrained tool call through ChatClient and the tool loop', async () => {
    const cities: string[] = []
    const weather = defineTool({
      name: 'weather',
      description: 'Weather in a city',
      inputSchema: {
        type: 'object',
        properties: { city: { enum: ['Oslo', 'Lima'] } },
        required: ['city'],
        additionalProperties: false,
      },
      returnDirect: true,
      execute: ({ city }: { city: string }) => (cities.push(city), `sunny in ${city}`),
    })
    const client = ChatClient.builder(model)
      .defaultTools(weather)
      .defaultOptions({ toolChoice: { name: 'weather' }, maxTokens: 600, seed: 3 })
      .build()
    const answer = await client.prompt('Weather?').call().content()
    expect(cities.length).toBeGreaterThan(0)
    expect(cities.every((city) => city === 'Oslo' || city === 'Lima')).toBe(true)
    expect(answer).toContain(`sunny in ${cities[0]}`)
  })

  it('answers in a response schema (structured output) through the grammar', async () => {
    const response = await model.call(
      prompt('Pick', {
        maxTokens: 300,
        responseFormat: {
          type: 'json_schema',
          schema: {
            type: 'object',
            properties: { ok: { type: 'boolean' } },
            required: ['ok'],
            additionalProperties: false,
          },
        },
      }),
    )
    expect(JSON.parse(response.results[0]!.output.text)).toEqual({ ok: expect.any(Boolean) as boolean })
  })

  it('stops decoding within 100 ms of an abort, and the engine is free again', async () => {
    const controller = new AbortController()
    const stream = model.stream(prompt('Go on', { maxTokens: 1800 }), controller.signal)
    let chunks = 0
    let abortedAt = 0
    const read = (async () => {
      for await (const _chunk of stream) {
        if (++chunks < 5) continue
        abortedAt = performance.now()
        controller.abort()
      }
    })()
    await expect(read).rejects.toMatchObject({ name: 'AbortError' })
    expect(performance.now() - abortedAt).toBeLessThan(100)
    const after = await model.call(prompt('Again', { maxTokens: 4 }))
    expect(after.metadata.usage?.completionTokens).toBe(4)
  })

  it('stops decoding when the reader stops mid-stream, and the engine is free again', async () => {
    let decoded = 0
    let ended: Promise<string> | undefined
    // The shared engine, counting what it decodes and telling how its reply ended.
    const watching = {
      getLoadedContextInfo: () => model.engine.getLoadedContextInfo(),
      exit: () => Promise.resolve(),
      createChatCompletion(params: ChatCompletionParams & { onData: (chunk: ChatCompletionChunk) => void }) {
        const reply = model.engine.createChatCompletion({
          ...params,
          stream: true,
          onData: (chunk) => (decoded++, params.onData(chunk)),
        })
        ended = reply.then(
          () => 'finished',
          (error: Error) => error.name,
        )
        return reply
      },
    }
    const watched = new WllamaChatModel(watching as unknown as WllamaEngine, { model: 'watched' })
    let read = 0
    for await (const _chunk of watched.stream(prompt('Go on', { maxTokens: 1800 }))) if (++read === 5) break
    expect(await ended).toBe('AbortError')
    expect(decoded).toBeLessThan(1800)
    const after = await model.call(prompt('Again', { maxTokens: 4 }))
    expect(after.metadata.usage?.completionTokens).toBe(4)
  })

  it('puts the engine timings into the trace the observer records', async () => {
    const collector = new TraceCollector()
    const client = ChatClient.builder(model)
      .defaultAdvisors(new ObserverAdvisor({ sink: collector }))
      .defaultOptions({ maxTokens: 16, seed: 5 })
      .build()
    await collect(client.prompt('Time me').stream().content())
    const [response] = collector.ofType('model-response')
    const timings = response!.metadata?.['timings'] as EngineTimings
    expect(timings.predictedTokens).toBe(16)
    expect(timings.predictedMs).toBeGreaterThan(0)
    expect(timings.promptTokens + timings.cachedTokens).toBeGreaterThan(0)
    expect(response!.metadata?.['speed']).toMatchObject({ decodeTokensPerSecond: expect.any(Number) as number })
    expect(response!.usage).toMatchObject({ completionTokens: 16 })
  })
})

describe('WllamaChatModel counts tokens with the model file itself', () => {
  it("counts the chat template's rendering with the model's own vocabulary, as the call reads it", async () => {
    // ChatML around the turn, one token per byte in this vocabulary: <|im_start|> "user\nHello"
    // <|im_end|> "\n" <|im_start|> "assistant\n" is 1 + 10 + 1 + 1 + 1 + 10 tokens.
    expect(await model.countTokens(prompt('Hello'))).toBe(24)
    const conversation: Prompt = {
      messages: [
        { role: 'system', text: 'Answer briefly.' },
        { role: 'user', text: 'Où est la gare ? 駅はどこですか' },
        { role: 'assistant', text: 'Tout droit.', toolCalls: [] },
        { role: 'user', text: 'Merci' },
      ],
      options: { seed: 7, maxTokens: 2 },
    }
    const counted = await model.countTokens(conversation)
    const response = await model.call(conversation)
    expect(counted).toBe(response.metadata.usage?.promptTokens)
    expect(response.metadata.usage?.completionTokens).toBe(2)
  })

  it('counts the prompt the tool strategy sends (its instructions included), not the bare messages', async () => {
    const tool = defineTool({
      name: 'weather',
      description: 'Weather in a city',
      inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      execute: () => 'sunny',
    })
    const bare = await model.countTokens(prompt('Weather?'))
    const withTools = await model.countTokens(prompt('Weather?', { tools: [tool], maxTokens: 300 }))
    expect(withTools).toBeGreaterThan(bare + 50)
  })

  it("counts a prompt longer than the window from llama.cpp's refusal, and the engine stays usable", async () => {
    const small = await WllamaChatModel.create({ model: tinyModel(), wasmUrl, contextLength: 256 })
    try {
      expect(small.contextWindow).toBe(256)
      const long = prompt('x'.repeat(400))
      expect(await small.countTokens(long)).toBe(400 + 19)
      await expect(small.call(long)).rejects.toMatchObject({ code: 'context-full' })
      expect(await small.countTokens(prompt('Hello'))).toBe(24)
    } finally {
      await small.dispose()
    }
  }, 30_000)
})

describe('WllamaChatModel from a URL', () => {
  it("downloads through the origin's storage, reporting progress, and runs", async () => {
    const progress: number[] = []
    const fromUrl = await WllamaChatModel.create({
      model: '/tiny-test-model.gguf',
      wasmUrl,
      onProgress: (report) => progress.push(report.fraction),
    })
    try {
      expect(progress.at(-1)).toBe(1)
      const response = await fromUrl.call(prompt('Hi', { maxTokens: 3 }))
      expect(response.metadata.usage?.completionTokens).toBe(3)
    } finally {
      await fromUrl.dispose()
    }
  }, 30_000)

  it('stops a download that turns out larger than the limit', async () => {
    await expect(
      WllamaChatModel.create({ model: '/tiny-test-model.gguf', wasmUrl, maxModelBytes: 100_000 }),
    ).rejects.toMatchObject({ code: 'too-large', message: expect.stringContaining('over the 0.1 MB limit') as string })
  }, 30_000)
})

describe('WllamaChatModel refuses bad input clearly', () => {
  const create = (model: Blob, extra: object = {}) =>
    WllamaChatModel.create({ model, wasmUrl, name: 'bad.gguf', ...extra })

  it('a file that is not GGUF', async () => {
    const error = await create(new Blob(['<!doctype html><p>Not found</p>'])).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ChatModelError)
    expect(error).toMatchObject({ code: 'not-gguf', provider: 'wllama' })
    expect((error as Error).message).toMatch(/'bad\.gguf'.*not a GGUF model/)
  })

  it('a GGUF file cut short, which llama.cpp itself loads "successfully" with no vocabulary', async () => {
    const cut = new Blob([tinyGguf().slice(0, 4096)])
    await expect(create(cut)).rejects.toMatchObject({ code: 'not-gguf' })
  }, 30_000)

  it('a model over the size limit, before anything loads', async () => {
    await expect(create(tinyModel(), { maxModelBytes: 100_000 })).rejects.toMatchObject({
      code: 'too-large',
      message: expect.stringMatching(/0\.4 MB, over the 0\.1 MB limit/) as string,
    })
  })

  it('more than one thread on a page that is not cross-origin isolated', async () => {
    expect(crossOriginIsolated).toBe(false)
    await expect(create(tinyModel(), { threads: 2 })).rejects.toMatchObject({
      code: 'not-isolated',
      message: expect.stringContaining('Cross-Origin-Embedder-Policy') as string,
    })
  })

  it('a schema llama.cpp cannot make a grammar of', async () => {
    const chunks: Promise<ChatResponse[]> = collect(
      model.stream(
        prompt('x', {
          maxTokens: 50,
          responseFormat: { type: 'json_schema', schema: { $ref: '#/$defs/missing' } },
        }),
      ),
    )
    await expect(chunks).rejects.toMatchObject({
      code: 'unsupported-schema',
      message: expect.stringContaining('cannot resolve $ref #/$defs/missing') as string,
    })
    expect((await model.call(prompt('still fine', { maxTokens: 2 }))).metadata.usage?.completionTokens).toBe(2)
  })
})
