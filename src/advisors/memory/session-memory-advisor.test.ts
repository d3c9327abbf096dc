import { describe, expect, it } from 'vitest'
import {
  HIGHEST_PRECEDENCE,
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
  DefaultSessionService,
  EventFilter,
  InMemorySessionRepository,
  SessionError,
  TurnCountTrigger,
  TurnWindowCompactionStrategy,
  isReal,
  sessionEvent,
} from '../../session'
import { defineTool } from '../../tools'
import { SessionMemoryAdvisor } from './session-memory-advisor'

const lookup = defineTool({
  name: 'lookup',
  description: 'Looks a word up',
  inputSchema: { type: 'object', properties: { word: { type: 'string' } }, required: ['word'] },
  execute: ({ word }: { word: string }) => `${word}: a word. `.repeat(10),
})

/** Answers a question naming "look" with a tool call first; counts what it was sent. */
function reply(prompt: Prompt): ScriptStep {
  const last = prompt.messages.at(-1)!
  if (last.role === 'tool') return `found ${last.responses[0]!.responseData.slice(0, 10)}`
  const text = last.role === 'user' ? last.text : ''
  if (text.includes('look')) return { toolCalls: [{ name: 'lookup', arguments: { word: text } }] }
  return `answer to ${text}`
}

const texts = (messages: readonly Message[]) =>
  messages.map((message) => `${message.role}:${'text' in message ? message.text : message.responses[0]!.name}`)

function setup(
  options: { order?: number; window?: number; script?: (prompt: Prompt, turn: number) => ScriptStep } = {},
) {
  const service = new DefaultSessionService(new InMemorySessionRepository())
  const model = new ScriptedChatModel(options.script ?? reply, {
    ...(options.window ? { contextWindow: options.window } : {}),
  })
  const notes: ChainEvent[] = []
  const advisor = SessionMemoryAdvisor.builder(service)
    .defaultSessionId('s')
    .defaultUserId('ann')
    .order(options.order ?? SessionMemoryAdvisor.DEFAULT_ORDER)
    .compactionTrigger(new TurnCountTrigger(3))
    .compactionStrategy(new TurnWindowCompactionStrategy(2))
    .build()
  const listener = {
    name: 'notes',
    order: 0,
    onChainEvent: (event: ChainEvent) => notes.push(event),
    adviseCall: (request: ChatClientRequest, chain: CallAdvisorChain) => chain.nextCall(request),
    adviseStream: (request: ChatClientRequest, chain: StreamAdvisorChain) => chain.nextStream(request),
  }
  const client = ChatClient.builder(model)
    .defaultSystem('Be brief.')
    .defaultTools(lookup)
    .defaultAdvisors(advisor, listener)
    .build()
  return { service, model, client, notes }
}

describe('SessionMemoryAdvisor', () => {
  it('refuses a trigger without a strategy, and a strategy without a trigger', () => {
    const service = new DefaultSessionService(new InMemorySessionRepository())
    const message = 'compactionTrigger and compactionStrategy must be set together'
    expect(() => SessionMemoryAdvisor.builder(service).compactionTrigger(new TurnCountTrigger(2)).build()).toThrow(
      message,
    )
    expect(() =>
      SessionMemoryAdvisor.builder(service).compactionStrategy(new TurnWindowCompactionStrategy()).build(),
    ).toThrow(message)
  })

  it('shares its context keys with chat memory', () => {
    expect(SessionMemoryAdvisor.SESSION_ID_CONTEXT_KEY).toBe('chat_memory_conversation_id')
    expect(SessionMemoryAdvisor.USER_ID_CONTEXT_KEY).toBe('chat_memory_user_id')
  })

  it('creates the session for its user and gives the next turn the last one, system first', async () => {
    const { service, model, client } = setup()
    await client.prompt('hello').call().content()
    await client.prompt('again').call().content()
    expect(await service.findById('s')).toMatchObject({ id: 's', userId: 'ann' })
    expect(texts(model.prompts[1]!.messages)).toEqual([
      'system:Be brief.',
      'user:hello',
      'assistant:answer to hello',
      'user:again',
    ])
  })

  it('stores the question before the call and the answer after', async () => {
    let seenDuringCall: string[] = []
    const service = new DefaultSessionService(new InMemorySessionRepository())
    const model = new ScriptedChatModel(async () => {
      seenDuringCall = texts((await service.getEvents('s')).map((event) => event.message))
      return 'hi'
    })
    const advisor = SessionMemoryAdvisor.builder(service).defaultSessionId('s').build()
    await ChatClient.builder(model).defaultAdvisors(advisor).build().prompt('hello').call().content()
    expect(seenDuringCall).toEqual(['user:hello'])
    expect(texts((await service.getEvents('s')).map((event) => event.message))).toEqual(['user:hello', 'assistant:hi'])
  })

  it("refuses a request of another user than the session's, storing nothing", async () => {
    const { service, client } = setup()
    await client.prompt('hello').call().content()
    const failure = await client
      .prompt('mine now')
      .advisorParams({ [SessionMemoryAdvisor.USER_ID_CONTEXT_KEY]: 'bob' })
      .call()
      .content()
      .catch((error: unknown) => error)
    expect(failure).toBeInstanceOf(SessionError)
    expect((failure as SessionError).code).toBe('owner')
    expect(await service.getEvents('s', EventFilter.all())).toHaveLength(2)
  })

  it.each([
    ['outside the tool loop', SessionMemoryAdvisor.DEFAULT_ORDER],
    ['inside the tool loop', HIGHEST_PRECEDENCE + 400],
  ])('%s, stores the whole turn, tool call and result, and sends it with the next turn', async (_where, order) => {
    const { service, model, client } = setup({ order })
    await client.prompt('look up cat').call().content()
    await client.prompt('thanks').call().content()
    const log = texts((await service.getEvents('s', EventFilter.all())).map((event) => event.message))
    expect(log).toEqual([
      'user:look up cat',
      'assistant:',
      'tool:lookup',
      'assistant:found look up ca',
      'user:thanks',
      'assistant:answer to thanks',
    ])
    expect(texts(model.prompts.at(-1)!.messages)).toEqual(['system:Be brief.', ...log.slice(0, 5)])
  })

  it('streams: the view goes in front, the answer is stored when the stream ends', async () => {
    const { service, model, client } = setup()
    for await (const _ of client.prompt('hello').stream().content());
    for await (const _ of client.prompt('look at this').stream().content());
    expect(texts(model.prompts.at(-1)!.messages).slice(0, 3)).toEqual([
      'system:Be brief.',
      'user:hello',
      'assistant:answer to hello',
    ])
    expect(await service.getEvents('s')).toHaveLength(6)
  })

  it('compacts after the turn when its trigger fires, keeping whole turns', async () => {
    const { service, model, client, notes } = setup()
    for (const question of ['one', 'look two', 'three', 'four']) await client.prompt(question).call().content()
    const view = await service.getEvents('s')
    expect(texts(view.filter(isReal).map((event) => event.message))).toEqual([
      'user:three',
      'assistant:answer to three',
      'user:four',
      'assistant:answer to four',
    ])
    await client.prompt('five').call().content()
    expect(texts(model.prompts.at(-1)!.messages)[1]).toBe('user:three')
    expect(notes.some((event) => event.type === 'compaction' && event.covered === 6)).toBe(true)
    expect(await service.getEvents('s', EventFilter.all())).toHaveLength(6 + 4 + 1 + 2)
  })

  it('leaves a tool call stored without its result out of what it sends', async () => {
    const { service, model, client } = setup()
    await client.prompt('hello').call().content()
    await service.appendEvent(
      sessionEvent('s', { role: 'assistant', text: '', toolCalls: [{ id: 'lost', name: 'lookup', arguments: '{}' }] }),
    )
    await client.prompt('again').call().content()
    expect(texts(model.prompts.at(-1)!.messages)).toEqual([
      'system:Be brief.',
      'user:hello',
      'assistant:answer to hello',
      'user:again',
    ])
  })
})
