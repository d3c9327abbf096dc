import { describe, expect, it } from 'vitest'
import { RetryAdvisor, ObserverAdvisor } from '../advisors'
import { ChatClient } from '../client'
import {
  assistantMessage,
  filePart,
  imagePart,
  systemMessage,
  toolResponseMessage,
  userMessage,
  userMessageOf,
  type Prompt,
} from '../core'
import { collect } from '../core/testing/collect'
import { defineTool } from '../tools'
import { TraceCollector } from '../trace'
import { AnswerStreamer, replySchema } from '../models'
import { webllmError } from './errors'
import { defaultToolStrategy } from './engine'
import { WebLLMChatModel } from './model'
import { FakeWebLLMEngine } from './testing/fake-engine'

const weather = (log: string[] = []) =>
  defineTool({
    name: 'weather',
    description: 'Weather in a city',
    inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    execute: ({ city }) => (log.push(city), `sunny in ${city}`),
  })

const QWEN = 'Qwen3-1.7B-q4f16_1-MLC'
const HERMES = 'Hermes-3-Llama-3.1-8B-q4f16_1-MLC'

describe('WebLLMChatModel requests', () => {
  it('sends string content only and never the prompt arrays themselves (WebLLM rewrites them)', async () => {
    const engine = new FakeWebLLMEngine(['hi'])
    const prompt: Prompt = {
      messages: [systemMessage('Be brief.'), userMessage('Hello'), assistantMessage('', [])],
      options: {},
    }
    await new WebLLMChatModel(engine, { model: QWEN }).call(prompt)
    expect(prompt.messages).toHaveLength(3)
    expect(engine.requests[0]!.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hello' },
      { role: 'assistant', content: '' },
    ])
  })

  it('constrained-json: tools in the system prompt, a grammar for the reply, earlier turns in the same JSON', async () => {
    const engine = new FakeWebLLMEngine(['{"answer":"ok"}'])
    await new WebLLMChatModel(engine, { model: QWEN }).call({
      messages: [
        systemMessage('Be brief.'),
        userMessage('Weather in Oslo?'),
        assistantMessage('', [{ id: 'c1', name: 'weather', arguments: '{"city":"Oslo"}' }]),
        toolResponseMessage([{ id: 'c1', name: 'weather', responseData: 'rain' }]),
      ],
      options: { tools: [weather()] },
    })
    const request = engine.requests[0]!
    expect(request.messages[0]!.role).toBe('system')
    expect(request.messages[0]!.content).toMatch(/^Be brief\.\n\nYou can call tools\. Reply with JSON only/)
    expect(request.messages[0]!.content).toContain('- weather: Weather in a city')
    expect(request.messages.slice(1)).toEqual([
      { role: 'user', content: 'Weather in Oslo?' },
      { role: 'assistant', content: '{"tool_calls":[{"name":"weather","arguments":{"city":"Oslo"}}]}' },
      { role: 'user', content: 'Tool results:\n- weather (c1): rain' },
    ])
    expect(request.response_format).toEqual({
      type: 'json_object',
      schema: JSON.stringify(replySchema([weather().definition])),
    })
    expect(request.tools).toBeUndefined()
  })

  it('native: WebLLM tools, no custom system prompt (its text goes before the first user message), tool messages', async () => {
    const engine = new FakeWebLLMEngine(['ok'])
    await new WebLLMChatModel(engine, { model: HERMES }).call({
      messages: [
        systemMessage('Be brief.'),
        userMessage('Weather?'),
        assistantMessage('', [{ id: 'c1', name: 'weather', arguments: '{"city":"Oslo"}' }]),
        toolResponseMessage([{ id: 'c1', name: 'weather', responseData: 'rain' }]),
      ],
      options: { tools: [weather()], temperature: 0.2, maxTokens: 64 },
    })
    const request = engine.requests[0]!
    expect(request.messages).toEqual([
      { role: 'user', content: 'Be brief.\n\nWeather?' },
      {
        role: 'assistant',
        content: '',
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'weather', arguments: '{"city":"Oslo"}' } }],
      },
      { role: 'tool', content: 'rain', tool_call_id: 'c1' },
    ])
    expect(request.tools).toEqual([
      {
        type: 'function',
        function: { name: 'weather', description: 'Weather in a city', parameters: weather().definition.inputSchema },
      },
    ])
    expect([request.temperature, request.max_tokens]).toEqual([0.2, 64])
  })

  it('picks native tools only for WebLLM function-calling models', () => {
    expect([
      defaultToolStrategy(HERMES),
      defaultToolStrategy(QWEN),
      defaultToolStrategy('Llama-3.2-1B-Instruct-q4f32_1-MLC'),
    ]).toEqual(['native', 'constrained-json', 'constrained-json'])
  })

  it('maps responseFormat json_schema to the grammar, the schema as a string', async () => {
    const engine = new FakeWebLLMEngine(['{"city":"Oslo","days":2}'])
    const schema = {
      type: 'object',
      properties: { city: { type: 'string' }, days: { type: 'integer' } },
      required: ['city', 'days'],
    } as const
    const trip = await ChatClient.create(new WebLLMChatModel(engine, { model: QWEN }))
      .prompt('Plan a trip')
      .call()
      .entity(schema)
    expect(trip).toEqual({ city: 'Oslo', days: 2 })
    expect(engine.requests[0]!.response_format).toEqual({ type: 'json_object', schema: JSON.stringify(schema) })
    expect(engine.requests[0]!.messages.at(-1)!.content).toBe('Plan a trip')
  })
})

for (const mode of ['call', 'stream'] as const) {
  const read = (client: ChatClient, text: string) =>
    mode === 'call'
      ? client.prompt(text).call().content()
      : collect(client.prompt(text).stream().content()).then((deltas) => deltas.join(''))

  describe(`WebLLMChatModel tool loop (${mode})`, () => {
    it('constrained-json: a multi-round tool conversation through ChatClient', async () => {
      const log: string[] = []
      const engine = new FakeWebLLMEngine([
        '{"tool_calls":[{"name":"weather","arguments":{"city":"Oslo"}},{"name":"weather","arguments":{"city":"Rome"}}]}',
        '{"tool_calls":[{"name":"weather","arguments":{"city":"Lima"}}]}',
        '{"answer":"Sunny in Oslo, Rome and Lima."}',
      ])
      const client = ChatClient.builder(new WebLLMChatModel(engine, { model: QWEN }))
        .defaultTools(weather(log))
        .build()
      expect(await read(client, 'Weather in three cities?')).toBe('Sunny in Oslo, Rome and Lima.')
      expect(log).toEqual(['Oslo', 'Rome', 'Lima'])
      expect(engine.requests[2]!.messages.at(-1)).toEqual({
        role: 'user',
        content: expect.stringMatching(/^Tool results:\n- weather \(call_\w+\): sunny in Lima/) as string,
      })
    })

    it('native: tool calls without ids get stable ones and the loop runs', async () => {
      const log: string[] = []
      const engine = new FakeWebLLMEngine([
        { toolCalls: [{ name: 'weather', arguments: '{"city":"Oslo"}' }] },
        'Sunny in Oslo.',
      ])
      const client = ChatClient.builder(new WebLLMChatModel(engine, { model: HERMES }))
        .defaultTools(weather(log))
        .build()
      expect(await read(client, 'Weather?')).toBe('Sunny in Oslo.')
      const call = (engine.requests[1]!.messages[1] as { tool_calls: Array<{ id: string }> }).tool_calls[0]!
      expect(call.id).toMatch(/^call_\w+$/)
      expect(engine.requests[1]!.messages[2]).toEqual({ role: 'tool', content: 'sunny in Oslo', tool_call_id: call.id })
    })

    it('answers a call of an unknown tool with an Error: the model can repair', async () => {
      const engine = new FakeWebLLMEngine([
        '{"tool_calls":[{"name":"forecast","arguments":{}}]}',
        '{"answer":"Sorry."}',
      ])
      const client = ChatClient.builder(new WebLLMChatModel(engine, { model: QWEN }))
        .defaultTools(weather())
        .build()
      expect(await read(client, 'q')).toBe('Sorry.')
      expect(engine.requests[1]!.messages.at(-1)!.content).toContain(
        "Error: unknown tool 'forecast'. Available tools: weather.",
      )
    })

    it('fails a cut-off reply with a retryable error, which a RetryAdvisor retries', async () => {
      const engine = new FakeWebLLMEngine(['{"tool_calls":[{"name":"wea', '{"answer":"fine"}'])
      const bare = ChatClient.builder(new WebLLMChatModel(new FakeWebLLMEngine(['{"answer":"cut']), { model: QWEN }))
        .defaultTools(weather())
        .build()
      await expect(read(bare, 'q')).rejects.toMatchObject({
        name: 'ChatModelError',
        code: 'InvalidOutputError',
        retryable: true,
      })
      const retrying = ChatClient.builder(new WebLLMChatModel(engine, { model: QWEN }))
        .defaultTools(weather())
        .defaultAdvisors(
          RetryAdvisor.builder()
            .sleep(async () => {})
            .build(),
        )
        .build()
      expect(await read(retrying, 'q')).toBe('fine')
    })
  })
}

describe('WebLLMChatModel streaming', () => {
  it('streams a Qwen3 <think> block as reasoning deltas and only the answer as text', async () => {
    const engine = new FakeWebLLMEngine(['<think>\nThe user says hi.\n</think>\n\nHello!'], { chunkSize: 3 })
    const chunks = await collect(
      new WebLLMChatModel(engine, { model: QWEN }).stream({ messages: [userMessage('hi')], options: {} }),
    )
    const outputs = chunks.map((chunk) => chunk.results[0]!.output)
    expect(outputs.map((output) => output.text).join('')).toBe('Hello!')
    expect(outputs.map((output) => output.reasoning ?? '').join('')).toBe('The user says hi.')
    expect(outputs.filter((output) => output.reasoning).length).toBeGreaterThan(1)
  })

  it('keeps a <think> block out of a called answer and out of the constrained JSON', async () => {
    const engine = new FakeWebLLMEngine(['<think>Plain.</think>Hi.', '<think>Call it.</think>{"answer":"Sunny."}'])
    const model = new WebLLMChatModel(engine, { model: QWEN })
    expect((await model.call({ messages: [userMessage('hi')], options: {} })).results[0]!.output).toEqual({
      role: 'assistant',
      text: 'Hi.',
      toolCalls: [],
      reasoning: 'Plain.',
    })
    const constrained = await model.call({ messages: [userMessage('weather?')], options: { tools: [weather()] } })
    expect(constrained.results[0]!.output).toMatchObject({ text: 'Sunny.', reasoning: 'Call it.' })
  })

  it('streams the answer of a constrained reply live, decoded from the JSON as it arrives', async () => {
    const engine = new FakeWebLLMEngine(['{"answer":"Line one\\nsays \\"hi\\" \\u00e9!"}'], { chunkSize: 3 })
    const chunks = await collect(
      new WebLLMChatModel(engine, { model: QWEN }).stream({
        messages: [userMessage('q')],
        options: { tools: [weather()] },
      }),
    )
    const texts = chunks.map((chunk) => chunk.results[0]!.output.text).filter(Boolean)
    expect(texts.length).toBeGreaterThan(3)
    expect(texts.join('')).toBe('Line one\nsays "hi" é!')
  })

  it('carries usage and speed on the last chunk', async () => {
    const engine = new FakeWebLLMEngine(['Hello there'])
    const chunks = await collect(
      new WebLLMChatModel(engine, { model: QWEN }).stream({ messages: [userMessage('q')], options: {} }),
    )
    expect(chunks.at(-1)!.metadata).toMatchObject({
      model: QWEN,
      usage: { promptTokens: 50, completionTokens: 10, totalTokens: 60 },
      speed: { prefillTokensPerSecond: 500, decodeTokensPerSecond: 20 },
    })
    expect(
      (chunks.at(-1)!.metadata['speed'] as { timeToFirstTokenMs: number }).timeToFirstTokenMs,
    ).toBeGreaterThanOrEqual(0)
  })

  it('interrupts generation and rejects with an AbortError on abort', async () => {
    const engine = new FakeWebLLMEngine(['a long answer that takes a while to generate'], { chunkSize: 2, delayMs: 5 })
    const controller = new AbortController()
    const seen: string[] = []
    const read = (async () => {
      for await (const delta of ChatClient.create(new WebLLMChatModel(engine, { model: QWEN }))
        .prompt('q')
        .signal(controller.signal)
        .stream()
        .content()) {
        seen.push(delta)
        if (seen.length === 2) controller.abort()
      }
    })()
    await expect(read).rejects.toMatchObject({ name: 'AbortError' })
    expect(engine.interrupts).toBeGreaterThanOrEqual(1)
  })

  it('interrupts generation when the reader stops early', async () => {
    const engine = new FakeWebLLMEngine(['a long answer'], { chunkSize: 2, delayMs: 2 })
    for await (const _ of ChatClient.create(new WebLLMChatModel(engine, { model: QWEN }))
      .prompt('q')
      .stream()
      .content())
      break
    await expect.poll(() => engine.interrupts).toBeGreaterThanOrEqual(1)
  })

  it('records a WebLLM round for observers like any other model', async () => {
    const collector = new TraceCollector()
    const engine = new FakeWebLLMEngine([
      '{"tool_calls":[{"name":"weather","arguments":{"city":"Oslo"}}]}',
      '{"answer":"Sunny."}',
    ])
    const client = ChatClient.builder(new WebLLMChatModel(engine, { model: QWEN }))
      .defaultTools(weather())
      .defaultAdvisors(new ObserverAdvisor({ sink: collector }))
      .build()
    await collect(client.prompt('q').stream().content())
    expect(collector.ofType('model-response').map((r) => r.model)).toEqual([QWEN, QWEN])
    expect(collector.ofType('tool-end')[0]!.result).toBe('sunny in Oslo')
  })
})

describe('AnswerStreamer', () => {
  it('keeps an escape split across pieces whole', () => {
    const streamer = new AnswerStreamer()
    const pieces = ['{"an', 'swer": "a\\', 'nb\\u00', 'e9c', '"}']
    expect(pieces.map((piece) => streamer.push(piece)).join('')).toBe('a\nbéc')
  })

  it('streams nothing for a tool-call reply', () => {
    const streamer = new AnswerStreamer()
    expect(streamer.push('{"tool_calls":[{"name":"x","arguments":{}}]}')).toBe('')
    expect(streamer.streaming).toBe(false)
  })
})

describe('WebLLM errors', () => {
  it('are matched by name, from error objects and from the strings a worker sends', () => {
    const shader = Object.assign(new Error('shader-f16 missing'), { name: 'ShaderF16SupportError' })
    expect(webllmError(shader, 'm')).toMatchObject({
      name: 'ChatModelError',
      provider: 'webllm',
      code: 'ShaderF16SupportError',
      message: expect.stringMatching(/q4f32 variant/) as string,
    })
    expect(webllmError('WebGPUNotAvailableError: WebGPU is not supported', 'm')).toMatchObject({
      code: 'WebGPUNotAvailableError',
    })
    expect(webllmError('Error: DeviceLostError: lost', 'm')).toMatchObject({ code: 'DeviceLostError' })
    expect(webllmError(new TypeError('Failed to fetch'), 'Qwen')).toMatchObject({
      code: 'download-failed',
      retryable: true,
      message: expect.stringMatching(/^Cannot download model 'Qwen'/) as string,
    })
  })
})

describe('WebLLMChatModel attachments', () => {
  const PNG = 'data:image/png;base64,iVBORw0KGgo='
  const VISION = 'Phi-3.5-vision-instruct-q4f16_1-MLC'

  it('sends a vision model text and image_url parts, a Blob read into a data URL', async () => {
    const engine = new FakeWebLLMEngine(['a cat'])
    const blob = new Blob([new Uint8Array([1, 2, 3])], { type: 'image/jpeg' })
    const prompt: Prompt = {
      messages: [userMessageOf([{ type: 'text', text: 'What is it?' }, imagePart(blob), imagePart(PNG)])],
      options: {},
    }
    await new WebLLMChatModel(engine, { model: VISION }).call(prompt)
    expect(engine.requests[0]!.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is it?' },
          { type: 'image_url', image_url: { url: 'data:image/jpeg;base64,AQID' } },
          { type: 'image_url', image_url: { url: PNG } },
        ],
      },
    ])
  })

  it('refuses an image for a text-only model before the engine sees anything, naming the model and the part', async () => {
    const engine = new FakeWebLLMEngine(['never'])
    const model = new WebLLMChatModel(engine, { model: QWEN })
    const prompt: Prompt = { messages: [userMessageOf([{ type: 'text', text: 'hi' }, imagePart(PNG)])], options: {} }
    await expect(model.call(prompt)).rejects.toThrow(
      `WebLLM model '${QWEN}' cannot take the image (message 1, part 2): it reads no images. Pick a vision model (e.g. Phi-3.5-vision-instruct-q4f16_1-MLC) or send text only.`,
    )
    await expect(collect(model.stream(prompt))).rejects.toThrow(/reads no images/)
    expect(engine.requests).toHaveLength(0)
  })

  it('refuses a PDF, and reads a plain-text file into the text of the turn', async () => {
    const engine = new FakeWebLLMEngine(['ok'])
    const model = new WebLLMChatModel(engine, { model: QWEN })
    const pdf = filePart('data:application/pdf;base64,JVBERi0=', { name: 'a.pdf' })
    await expect(model.call({ messages: [userMessageOf([pdf])], options: {} })).rejects.toThrow(
      `WebLLM model '${QWEN}' cannot take the file 'a.pdf' (message 1, part 1): application/pdf is not a file type it takes (PLAIN).`,
    )
    const notes = filePart(new File(['buy milk'], 'notes.txt', { type: 'text/plain' }))
    await model.call({ messages: [userMessageOf([{ type: 'text', text: 'Summarise' }, notes])], options: {} })
    expect(engine.requests[0]!.messages).toEqual([{ role: 'user', content: 'Summarise\n\nnotes.txt:\nbuy milk' }])
  })
})

describe('WebLLMChatModel window', () => {
  it('says the window it was given', () => {
    const engine = new FakeWebLLMEngine([])
    expect(new WebLLMChatModel(engine, { model: QWEN, contextWindow: 4096 }).contextWindow).toBe(4096)
    expect(new WebLLMChatModel(engine, { model: QWEN }).contextWindow).toBeUndefined()
  })
})
