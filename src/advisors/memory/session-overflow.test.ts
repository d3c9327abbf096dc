// A conversation longer than the model's window: compacted before it overflows, recovered once when
// the model refuses a prompt anyway, and never poisoned by a turn that failed.
import { describe, expect, it } from 'vitest'
import {
  type CallAdvisorChain,
  type ChainEvent,
  type ChatClientRequest,
  type Message,
  type Prompt,
  type StreamAdvisorChain,
} from '../../core'
import { ChatClient } from '../../client'
import { ScriptedChatModel, type ScriptStep } from '../../models'
import {
  CharacterTokenCountEstimator,
  ContextWindowTrigger,
  DefaultSessionService,
  EventFilter,
  InMemorySessionRepository,
  SessionError,
  TokenCountCompactionStrategy,
  isReal,
} from '../../session'
import { defineTool } from '../../tools'
import { SessionMemoryAdvisor } from './session-memory-advisor'

const lookup = defineTool({
  name: 'lookup',
  description: 'Looks a word up',
  inputSchema: { type: 'object', properties: { word: { type: 'string' } }, required: ['word'] },
  execute: ({ word }: { word: string }) => `${word} means something; `.repeat(20),
})

/** The model's own count: a token for every four characters, four a message. */
const tokensOf = (messages: readonly Message[]) =>
  messages.reduce((sum, message) => sum + 4 + Math.ceil(JSON.stringify(message).length / 4), 0)

const ENGINES: Record<string, () => Error> = {
  WebLLM: () =>
    Object.assign(new Error('Prompt tokens exceed context window size'), { code: 'ContextWindowSizeExceededError' }),
  'the Prompt API': () => Object.assign(new Error('larger than the context window'), { code: 'quota-exceeded' }),
  'llama.cpp': () => Object.assign(new Error('exceeds the available context size'), { code: 'context-full' }),
  OpenAI: () => Object.assign(new Error('answered HTTP 400'), { code: 'context_length_exceeded' }),
  Anthropic: () => new Error('Anthropic answered HTTP 400: prompt is too long: 2000 tokens > 1024 maximum'),
}

/** A model that refuses prompts over `limit` tokens as `refusal` does, looks a word up each turn, then answers. */
function windowedModel(limit: number, refusal: () => Error, contextWindow?: number) {
  const refused: number[] = []
  const model = new ScriptedChatModel(
    (prompt: Prompt, turn: number): ScriptStep => {
      if (tokensOf(prompt.messages) > limit) {
        refused.push(turn)
        return { error: refusal() }
      }
      // Usage on every round, as the engines and providers report it.
      const last = prompt.messages.at(-1)!
      if (last.role === 'user')
        return { toolCalls: [{ name: 'lookup', arguments: { word: `w${turn}` } }], usage: usageOf(prompt) }
      return { text: `The answer, turn ${turn}. `.repeat(6), usage: usageOf(prompt) }
    },
    contextWindow === undefined ? {} : { contextWindow },
  )
  return { model, refused }
}

const usageOf = (prompt: Prompt) => {
  const promptTokens = tokensOf(prompt.messages)
  return { promptTokens, completionTokens: 40, totalTokens: promptTokens + 40 }
}

function clientOn(model: ScriptedChatModel, builder = (b: ReturnType<typeof SessionMemoryAdvisor.builder>) => b) {
  const service = new DefaultSessionService(new InMemorySessionRepository())
  const notes: ChainEvent[] = []
  const advisor = builder(SessionMemoryAdvisor.builder(service).defaultSessionId('s')).build()
  const listener = {
    name: 'notes',
    order: 0,
    onChainEvent: (event: ChainEvent) => notes.push(event),
    adviseCall: (request: ChatClientRequest, chain: CallAdvisorChain) => chain.nextCall(request),
    adviseStream: (request: ChatClientRequest, chain: StreamAdvisorChain) => chain.nextStream(request),
  }
  const client = ChatClient.builder(model).defaultTools(lookup).defaultAdvisors(advisor, listener).build()
  return { service, client, notes }
}

const question = (n: number) => `Question ${n}: tell me about word ${n}, please, in some detail. `.repeat(2)

describe('SessionMemoryAdvisor and the model window', () => {
  it.each(Object.keys(ENGINES))(
    'compacts and sends again once when %s refuses the prompt as too long',
    async (engine) => {
      const { model, refused } = windowedModel(900, ENGINES[engine]!)
      const { service, client } = clientOn(model)
      for (let n = 0; n < 12; n++) expect(await client.prompt(question(n)).call().content()).toMatch(/The answer/)
      expect(refused.length).toBeGreaterThan(0)
      const all = await service.getEvents('s', EventFilter.all())
      expect(all.filter((event) => isReal(event) && event.message.role === 'user')).toHaveLength(12)
    },
  )

  it('recovers a streamed turn the same way', async () => {
    const { model, refused } = windowedModel(900, ENGINES['llama.cpp']!)
    const { client } = clientOn(model)
    for (let n = 0; n < 12; n++) {
      let text = ''
      for await (const delta of client.prompt(question(n)).stream().content()) text += delta
      expect(text).toMatch(/The answer/)
    }
    expect(refused.length).toBeGreaterThan(0)
  })

  it('never reaches the window of a model that says it, with a ContextWindowTrigger', async () => {
    const { model, refused } = windowedModel(1024, ENGINES.WebLLM!, 1024)
    const { client, notes } = clientOn(model, (builder) =>
      builder
        .compactionTrigger(ContextWindowTrigger.builder().fraction(0.6).build())
        .compactionStrategy(TokenCountCompactionStrategy.builder().maxTokens(300).build()),
    )
    for (let n = 0; n < 30; n++) await client.prompt(question(n)).call().content()
    expect(refused).toEqual([])
    expect(notes.filter((event) => event.type === 'compaction').length).toBeGreaterThan(3)
  })

  it("compacts on the model's own count (countTokens) when its tokenizer is far from the estimate", async () => {
    // A byte-level vocabulary (like the tiny llama.cpp model's): a token a character, about four
    // times what the estimator guesses for English.
    const bytes = (prompt: Prompt) => prompt.messages.reduce((sum, m) => sum + 4 + JSON.stringify(m).length, 0)
    const refused: number[] = []
    const model = new ScriptedChatModel(
      (prompt: Prompt, turn: number): ScriptStep => {
        if (bytes(prompt) > 4096) {
          refused.push(turn)
          return { error: ENGINES['llama.cpp']!() }
        }
        return prompt.messages.at(-1)!.role === 'user'
          ? { toolCalls: [{ name: 'lookup', arguments: { word: `w${turn}` } }] }
          : { text: `The answer, turn ${turn}. `.repeat(6) }
      },
      { contextWindow: 4096 },
    )
    const counted: Prompt[] = []
    const counting = Object.assign(model, {
      countTokens: (prompt: Prompt) => (counted.push(prompt), Promise.resolve(bytes(prompt))),
    })
    const { client, notes } = clientOn(counting, (builder) =>
      builder
        .compactionTrigger(ContextWindowTrigger.builder().fraction(0.5).build())
        .compactionStrategy(TokenCountCompactionStrategy.builder().maxTokens(300).build()),
    )
    for (let n = 0; n < 12; n++) await client.prompt(question(n)).call().content()
    expect(refused).toEqual([])
    const triggers = notes.flatMap((event) => (event.type === 'compaction' ? [event.trigger] : []))
    // The trigger fired on the count after the turns, before any prompt had to be fitted to the window.
    expect(triggers.length).toBeGreaterThan(1)
    expect(triggers.every((trigger) => trigger === 'context-window')).toBe(true)
    // The trigger's count is of the prompt the next request would send: its tools and the view.
    expect(counted.some((prompt) => prompt.options.tools?.length === 1 && prompt.messages.length > 1)).toBe(true)
  })

  it('estimates, with a warning, when the model fails to count', async () => {
    const model = Object.assign(new ScriptedChatModel(['one', 'two'], { contextWindow: 4096 }), {
      countTokens: () => Promise.reject(new Error('the engine is busy')),
    })
    const { client, notes } = clientOn(model)
    expect(await client.prompt('first').call().content()).toBe('one')
    const warning = notes.find((event) => event.type === 'note' && event.level === 'warning')
    expect(warning?.type === 'note' && warning.message).toMatch(
      /could not count the prompt's tokens, so they are estimated \(the engine is busy\)/,
    )
  })

  it("learns the model's tokenizer from a turn with tool rounds, whose usage sums every round", async () => {
    // A model whose tokenizer is exactly the estimator's: every round reports what it estimates.
    const counter = new CharacterTokenCountEstimator()
    const model = new ScriptedChatModel(
      (prompt: Prompt): ScriptStep => {
        const tools = JSON.stringify((prompt.options.tools ?? []).map((tool) => tool.definition))
        const promptTokens = counter.estimate(prompt.messages) + Math.ceil(tools.length / 4)
        const usage = { promptTokens, completionTokens: 10, totalTokens: promptTokens + 10 }
        const last = prompt.messages.at(-1)!
        if (last.role === 'user') return { toolCalls: [{ name: 'lookup', arguments: { word: 'w' } }], usage }
        return { text: 'The answer.', usage }
      },
      { contextWindow: 100_000 },
    )
    const { service, client } = clientOn(model)
    for (let n = 0; n < 6; n++) await client.prompt(question(n)).call().content()
    expect((service.tokenCountEstimator as CharacterTokenCountEstimator).correction).toBeCloseTo(1, 1)
  })

  it("learns the model's tokenizer from its exact count, when it has one", async () => {
    const counter = new CharacterTokenCountEstimator()
    const model = Object.assign(new ScriptedChatModel(() => 'The answer.', { contextWindow: 100_000 }), {
      // Twice the estimate: a tokenizer of two characters a token.
      countTokens: async (prompt: Prompt) => 2 * counter.estimate(prompt.messages),
    })
    const { service, client } = clientOn(model)
    for (let n = 0; n < 8; n++) await client.prompt(question(n)).call().content()
    expect((service.tokenCountEstimator as CharacterTokenCountEstimator).correction).toBeGreaterThan(1.8)
  })

  it('names both sizes when a turn alone is larger than the window', async () => {
    const { model } = windowedModel(100_000, ENGINES.WebLLM!, 200)
    const { client } = clientOn(model)
    const failure = await client
      .prompt('word '.repeat(400))
      .call()
      .content()
      .catch((error: unknown) => error)
    expect(failure).toBeInstanceOf(SessionError)
    expect((failure as SessionError).code).toBe('context-window')
    expect((failure as SessionError).message).toMatch(
      /about \d+ tokens plus 50 for the answer against a window of 200 tokens/,
    )
  })

  it('keeps a failed turn in the log but out of the next prompts', async () => {
    let calls = 0
    const model = new ScriptedChatModel((prompt: Prompt): ScriptStep => {
      calls++
      const last = prompt.messages.at(-1)!
      if (last.role === 'user' && last.text === 'two') return { error: new Error('engine crashed') }
      return `answer ${calls}`
    })
    const { service, client } = clientOn(model)
    await client.prompt('one').call().content()
    await expect(client.prompt('two').call().content()).rejects.toThrow('engine crashed')
    await client.prompt('three').call().content()
    const sent = model.prompts.at(-1)!.messages.map((message) => ('text' in message ? message.text : ''))
    expect(sent).toEqual(['one', 'answer 1', 'three'])
    const all = (await service.getEvents('s', EventFilter.all())).filter(isReal)
    expect(all.map((event) => ('text' in event.message ? event.message.text : ''))).toContain('two')
  })

  it('reports an answer cut by the end of the window as cut, and stores it so', async () => {
    const model = new ScriptedChatModel([{ text: 'The answer is', finishReason: 'length' }], { contextWindow: 4096 })
    const { service, client, notes } = clientOn(model)
    await client.prompt('tell me').call().content()
    const answer = (await service.getEvents('s')).at(-1)!
    expect(answer.metadata).toEqual({ finishReason: 'length' })
    const warning = notes.find((event) => event.type === 'note' && event.level === 'warning')
    expect(warning?.type === 'note' && warning.message).toMatch(
      /answer was cut by the end of the model's 4096-token window/,
    )
  })

  describe("an answer cut at 'length'", () => {
    /** Four answered turns fill a 400-token window past half, then the fifth answer is cut. */
    async function cutAnswer(last: ScriptStep, maxTokens: number | undefined) {
      const filler = 'The answer is long enough to fill the window. '.repeat(5)
      const model = new ScriptedChatModel([filler, filler, filler, filler, last], { contextWindow: 400 })
      const { service, client, notes } = clientOn(model)
      for (let n = 0; n < 5; n++) {
        const prompt = client.prompt(`question ${n}`)
        await (maxTokens === undefined ? prompt : prompt.options({ maxTokens })).call().content()
      }
      const answer = (await service.getEvents('s', EventFilter.all())).filter(isReal).at(-1)!
      const compactions = notes.filter(
        (event) => event.type === 'compaction' && event.trigger === 'answer cut by the window',
      )
      const warnings = notes.filter((event) => event.type === 'note' && event.level === 'warning')
      const said = notes.flatMap((event) => (event.type === 'note' ? [event.message] : []))
      return { answer, compactions, warnings, said }
    }
    const used = (promptTokens: number, completionTokens: number) => ({
      promptTokens,
      completionTokens,
      totalTokens: promptTokens + completionTokens,
    })

    it.each([
      ['with as many tokens as maxTokens', { text: 'The answer is', finishReason: 'length', usage: used(300, 20) }],
      [
        'with no usage, its prompt leaving room for the whole maxTokens',
        { text: 'The answer is', finishReason: 'length' },
      ],
    ] satisfies [string, ScriptStep][])(
      'is stopped by its own maxTokens %s: stored as cut, no compaction for the window, no warning',
      async (_case, last) => {
        const { answer, compactions, warnings, said } = await cutAnswer(last, 20)
        expect(answer.metadata).toEqual({ finishReason: 'length' })
        expect(compactions).toEqual([])
        expect(warnings).toEqual([])
        expect(said).toContainEqual(expect.stringMatching(/stopped at the request's maxTokens \(20 tokens/))
      },
    )

    it.each([
      ['short of maxTokens', { text: 'The answer is', finishReason: 'length', usage: used(380, 20) }, 100],
      ['with no maxTokens', { text: 'The answer is', finishReason: 'length' }, undefined],
    ] satisfies [string, ScriptStep, number | undefined][])(
      'is cut by the window %s: warned of and the view compacted',
      async (_case, last, maxTokens) => {
        const { answer, compactions, warnings } = await cutAnswer(last, maxTokens)
        expect(answer.metadata).toEqual({ finishReason: 'length' })
        expect(compactions).toHaveLength(1)
        expect(warnings).toHaveLength(1)
        expect(warnings[0]!.type === 'note' && warnings[0]!.message).toMatch(
          /cut by the end of the model's 400-token window/,
        )
      },
    )
  })
})
