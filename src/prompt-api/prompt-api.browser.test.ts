import { describe, expect, it, vi } from 'vitest'
import { ObserverAdvisor } from '../advisors'
import { ChatClient } from '../client'
import type { Prompt } from '../core'
import { collect } from '../core/testing/collect'
import { ChatModelError } from '../models'
import { defineTool } from '../tools'
import { TraceCollector } from '../trace'
import { PromptApiChatModel, type PromptApiProgress } from './index'
import type { LanguageModelMessage } from './language-model'
import { fakeLanguageModel, type FakeBrowserModel } from './testing/fake-language-model'

// PromptApiChatModel in Chromium against a LanguageModel that follows the explainer's IDL (see the
// fake's header for the version): sessions, streams, constraints and errors as the browser has them.

const textOf = (message: LanguageModelMessage | undefined) =>
  typeof message?.content === 'string'
    ? message.content
    : (message?.content ?? []).map((part) => String(part.value)).join('')

const echo: FakeBrowserModel['reply'] = (conversation) => `You said: ${textOf(conversation.at(-1))}`

const ask = (text: string, options: Prompt['options'] = {}, history: Prompt['messages'] = []): Prompt => ({
  messages: [...history, { role: 'user', text }],
  options,
})

describe('PromptApiChatModel', () => {
  it('reports availability, and no-api where the browser has no LanguageModel', async () => {
    expect(
      await PromptApiChatModel.availability({
        languageModel: fakeLanguageModel({ availability: 'downloadable', reply: echo }),
      }),
    ).toBe('downloadable')
    vi.stubGlobal('LanguageModel', undefined)
    try {
      expect(await PromptApiChatModel.availability()).toBe('no-api')
      await expect(PromptApiChatModel.create()).rejects.toMatchObject({ code: 'no-api', provider: 'prompt-api' })
    } finally {
      vi.unstubAllGlobals()
    }
  })

  it("asks this Chromium's own LanguageModel, and says clearly when its model cannot run here", async () => {
    const availability = await PromptApiChatModel.availability()
    expect(['unavailable', 'downloadable', 'downloading', 'available']).toContain(availability)
    // Headless Chromium here has the API but no model it can run.
    if (availability === 'unavailable')
      await expect(PromptApiChatModel.create()).rejects.toMatchObject({ code: 'unavailable' })
  })

  it("downloads the browser's model with progress like WebLLM's loading", async () => {
    const progress: PromptApiProgress[] = []
    const languageModel = fakeLanguageModel({ availability: 'downloadable', reply: echo })
    await PromptApiChatModel.create({ languageModel, onProgress: (report) => progress.push(report) })
    expect(progress.map((report) => report.fraction)).toEqual([0, 0.5, 1])
    expect(progress[1]).toMatchObject({
      text: "Downloading the browser's model: 50%",
      elapsedSeconds: expect.any(Number) as number,
    })
    expect(await languageModel.availability()).toBe('available')
    expect(languageModel.sessions[0]!.destroyed).toBe(true)
  })

  it('refuses clearly: unavailable, downloadable without permission or without a user gesture', async () => {
    await expect(
      PromptApiChatModel.create({ languageModel: fakeLanguageModel({ availability: 'unavailable', reply: echo }) }),
    ).rejects.toMatchObject({ code: 'unavailable' })
    await expect(
      PromptApiChatModel.create({
        languageModel: fakeLanguageModel({ availability: 'downloadable', reply: echo }),
        allowDownload: false,
      }),
    ).rejects.toMatchObject({ code: 'downloadable' })
    const error = await PromptApiChatModel.create({
      languageModel: fakeLanguageModel({ availability: 'downloadable', reply: echo, userActivation: false }),
    }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ChatModelError)
    expect(error).toMatchObject({ code: 'downloadable', message: expect.stringContaining('user gesture') as string })
  })

  it('streams a reply, with the system prompt in initialPrompts and usage from the context counters', async () => {
    const languageModel = fakeLanguageModel({ availability: 'available', reply: echo })
    const model = new PromptApiChatModel({ languageModel })
    const chunks = await collect(model.stream(ask('hello there', {}, [{ role: 'system', text: 'Be brief.' }])))
    expect(chunks.map((chunk) => chunk.results[0]!.output.text).join('')).toBe('You said: hello there')
    expect(chunks.length).toBeGreaterThan(3)
    const session = languageModel.sessions[0]!
    expect(textOf(session.conversation[0])).toBe('Be brief.')
    expect(session.conversation[0]!.role).toBe('system')
    expect(languageModel.prompts[0]!.map((message) => message.role)).toEqual(['user'])
    expect(chunks.at(-1)!.metadata).toMatchObject({
      usage: { promptTokens: 5, completionTokens: 6, totalTokens: 11 },
      contextWindow: 4096,
    })
  })

  it('keeps one session per conversation: a follow-up sends only its new turn', async () => {
    const languageModel = fakeLanguageModel({ availability: 'available', reply: echo })
    const model = new PromptApiChatModel({ languageModel })
    const first = await model.call(ask('one'))
    const history: Prompt['messages'] = [
      { role: 'user', text: 'one' },
      { role: 'assistant', text: first.results[0]!.output.text, toolCalls: [] },
    ]
    await model.call(ask('two', {}, history))
    expect(languageModel.prompts.map((input) => input.map(textOf))).toEqual([['one'], ['two']])
    const live = languageModel.sessions.filter((session) => !session.destroyed && !session.clonedFrom)
    expect(live).toHaveLength(1)
    expect(live[0]!.conversation.map(textOf)).toEqual(['one', 'You said: one', 'two', 'You said: two'])
  })

  it('forks from a clone: a regenerated answer continues from the state before it', async () => {
    const languageModel = fakeLanguageModel({ availability: 'available', reply: echo })
    const model = new PromptApiChatModel({ languageModel })
    const history: Prompt['messages'] = [
      { role: 'user', text: 'one' },
      { role: 'assistant', text: 'You said: one', toolCalls: [] },
    ]
    await model.call(ask('one'))
    await model.call(ask('two', {}, history))
    await model.call(ask('two, again', {}, history))
    expect(languageModel.prompts.map((input) => input.map(textOf))).toEqual([['one'], ['two'], ['two, again']])
    const forked = languageModel.sessions.find((session) =>
      session.conversation.some((m) => textOf(m) === 'two, again'),
    )!
    expect(forked.clonedFrom).toBeDefined()
    expect(forked.conversation.map(textOf)).toEqual(['one', 'You said: one', 'two, again', 'You said: two, again'])
  })

  it('calls tools through responseConstraint JSON, and the tool loop runs them', async () => {
    const constraints: unknown[] = []
    const languageModel = fakeLanguageModel({
      availability: 'available',
      reply: (conversation, options) => {
        constraints.push(options.responseConstraint)
        return textOf(conversation.at(-1)).startsWith('Tool results')
          ? '{"answer":"It is sunny in Oslo."}'
          : '{"tool_calls":[{"name":"weather","arguments":{"city":"Oslo"}}]}'
      },
    })
    const cities: string[] = []
    const weather = defineTool({
      name: 'weather',
      description: 'Weather in a city',
      inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      execute: ({ city }: { city: string }) => (cities.push(city), `sunny in ${city}`),
    })
    const collector = new TraceCollector()
    const client = ChatClient.builder(new PromptApiChatModel({ languageModel }))
      .defaultTools(weather)
      .defaultAdvisors(new ObserverAdvisor({ sink: collector }))
      .build()
    const text = (await collect(client.prompt('Weather in Oslo?').stream().content())).join('')
    expect(text).toBe('It is sunny in Oslo.')
    expect(cities).toEqual(['Oslo'])
    expect(constraints[0]).toMatchObject({ anyOf: [{ required: ['answer'] }, { required: ['tool_calls'] }] })
    // The second round continued the first round's session: only the tool results were sent.
    expect(languageModel.prompts[1]!.map((message) => message.role)).toEqual(['user'])
    expect(textOf(languageModel.prompts[1]![0])).toMatch(/^Tool results:\n- weather \(call_\w+\): sunny in Oslo/)
    expect(collector.ofType('model-response').map((event) => event.usage?.promptTokens)).toEqual([
      expect.any(Number),
      expect.any(Number),
    ])
  })

  it('aborts a stream at once and drops the session it was using', async () => {
    const languageModel = fakeLanguageModel({ availability: 'available', reply: () => 'x'.repeat(4000), chunkSize: 1 })
    const model = new PromptApiChatModel({ languageModel })
    const controller = new AbortController()
    let chunks = 0
    const reading = (async () => {
      for await (const _chunk of model.stream(ask('go'), controller.signal)) if (++chunks === 3) controller.abort()
    })()
    await expect(reading).rejects.toMatchObject({ name: 'AbortError' })
    expect(chunks).toBe(3)
    const used = languageModel.sessions.find((session) => !session.clonedFrom)!
    expect(used.destroyed).toBe(true)
  })

  it("counts a new conversation's tokens on a session of its system prompt, then drops it, learning the window", async () => {
    const languageModel = fakeLanguageModel({ availability: 'available', reply: echo, contextWindow: 3000 })
    const model = new PromptApiChatModel({ languageModel })
    expect(model.contextWindow).toBeUndefined()
    // The fake charges 2 tokens a turn plus one per four characters: 'Be brief.' 2 + 3, 'hello there' 2 + 3.
    expect(await model.countTokens(ask('hello there', {}, [{ role: 'system', text: 'Be brief.' }]))).toBe(10)
    expect(model.contextWindow).toBe(3000)
    expect(languageModel.prompts).toEqual([])
    expect(languageModel.sessions.every((session) => session.destroyed)).toBe(true)
  })

  it("counts a follow-up as its session's context plus the new turn: what the browser then holds before answering", async () => {
    const languageModel = fakeLanguageModel({ availability: 'available', reply: echo })
    const model = new PromptApiChatModel({ languageModel })
    const first = await model.call(ask('one', {}, [{ role: 'system', text: 'Be brief.' }]))
    const followUp = ask('two, and a longer question', {}, [
      { role: 'system', text: 'Be brief.' },
      { role: 'user', text: 'one' },
      { role: 'assistant', text: first.results[0]!.output.text, toolCalls: [] },
    ])
    const counted = await model.countTokens(followUp)
    const sessions = languageModel.sessions.length
    const { metadata } = await model.call(followUp)
    expect(languageModel.sessions).toHaveLength(sessions + 1) // only the clone a turn always keeps
    expect(counted).toBe(Number(metadata['contextUsage']) - metadata.usage!.completionTokens)
    expect(languageModel.prompts.map((input) => input.map(textOf))).toEqual([['one'], ['two, and a longer question']])
  })

  it('counts the tool strategy (its instructions and constraint), and prompts over the window as such', async () => {
    const model = new PromptApiChatModel({
      languageModel: fakeLanguageModel({ availability: 'available', reply: echo }),
    })
    const tool = defineTool({
      name: 'clock',
      description: 'The time',
      inputSchema: { type: 'object' },
      execute: () => 'noon',
    })
    const bare = await model.countTokens(ask('time?'))
    expect(await model.countTokens(ask('time?', { tools: [tool] }))).toBeGreaterThan(bare + 20)
    const tools = await model.countTokens(ask('time?', { tools: [tool] }))
    const small = new PromptApiChatModel({
      languageModel: fakeLanguageModel({ availability: 'available', reply: echo, contextWindow: 50 }),
    })
    expect(await small.countTokens(ask('x'.repeat(400)))).toBe(102)
    // Its system prompt alone is over the window: the browser's refusal says by how much.
    expect(await small.countTokens(ask('time?', { tools: [tool] }))).toBeGreaterThan(50)
    expect(await small.countTokens(ask('time?', { tools: [tool] }))).toBeLessThan(tools)
  })

  it('counts with the older names (measureInputUsage, inputUsage, inputQuota) where only they exist', async () => {
    const languageModel = fakeLanguageModel({ availability: 'available', reply: echo, usageNames: 'deprecated' })
    const model = new PromptApiChatModel({ languageModel })
    const first = await model.call(ask('one'))
    const followUp = ask('two', {}, [
      { role: 'user', text: 'one' },
      { role: 'assistant', text: first.results[0]!.output.text, toolCalls: [] },
    ])
    expect(model.contextWindow).toBe(4096)
    // The session holds 'one' (2 + 1) and the reply 'You said: one' (4); 'two' adds 2 + 1.
    expect(await model.countTokens(followUp)).toBe(10)
  })

  it('turns a QuotaExceededError into a ChatModelError with the numbers', async () => {
    const languageModel = fakeLanguageModel({ availability: 'available', reply: echo, contextWindow: 50 })
    const model = new PromptApiChatModel({ languageModel })
    await expect(model.call(ask('x'.repeat(400)))).rejects.toMatchObject({
      code: 'quota-exceeded',
      message: expect.stringMatching(/102 tokens needed, 50 available.*context window/) as string,
    })
  })

  it('refuses an image before the browser sees anything', async () => {
    const languageModel = fakeLanguageModel({ availability: 'available', reply: echo })
    const image = { type: 'image' as const, image: 'data:image/png;base64,iVBORw0KGgo=', mediaType: 'image/png' }
    await expect(
      new PromptApiChatModel({ languageModel }).call({
        messages: [{ role: 'user', text: '', parts: [{ type: 'text', text: 'What is it?' }, image] }],
        options: {},
      }),
    ).rejects.toBeInstanceOf(ChatModelError)
    expect(languageModel.prompts).toHaveLength(0)
  })

  it('a reply cut off inside the JSON envelope is a retryable invalid-output error', async () => {
    const languageModel = fakeLanguageModel({ availability: 'available', reply: () => '{"tool_calls":[{"na' })
    const weather = defineTool({
      name: 'weather',
      description: 'w',
      inputSchema: { type: 'object' },
      execute: () => '',
    })
    await expect(new PromptApiChatModel({ languageModel }).call(ask('q', { tools: [weather] }))).rejects.toMatchObject({
      code: 'invalid-output',
      retryable: true,
    })
  })
})
