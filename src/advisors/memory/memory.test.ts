import { describe, expect, it } from 'vitest'
import { HIGHEST_PRECEDENCE, assistantMessage, imagePart, systemMessage, userMessage, type Message } from '../../core'
import { ChatClient } from '../../client'
import { ChatMemory, MessageWindowChatMemory } from '../../memory'
import { ScriptedChatModel, type ScriptStep } from '../../models'
import { collect } from '../../core/testing/collect'
import { defineTool } from '../../tools'
import { TraceCollector } from '../../trace'
import { ObserverAdvisor } from '../observer/observer'
import { ApprovalQueue } from '../approval-queue'
import { MessageChatMemoryAdvisor } from '.'
import { ToolApprovalAdvisor } from '../tool-approval'

const weather = defineTool({
  name: 'weather',
  description: 'Weather',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } } },
  execute: ({ city }) => `sunny in ${city}`,
})

const roles = (messages: Message[]) =>
  messages.map((m) =>
    m.role === 'assistant'
      ? m.toolCalls.length
        ? 'assistant(tool calls)'
        : `assistant:${m.text}`
      : m.role === 'tool'
        ? 'tool'
        : `${m.role}:${m.text}`,
  )

function setup(script: ScriptStep[], order?: number) {
  const memory = MessageWindowChatMemory.builder().maxMessages(50).build()
  const model = new ScriptedChatModel(script)
  const advisor = MessageChatMemoryAdvisor.builder(memory)
    .conversationId('c1')
    .order(order ?? MessageChatMemoryAdvisor.DEFAULT_ORDER)
    .build()
  const client = ChatClient.builder(model)
    .defaultSystem('Be brief.')
    .defaultTools(weather)
    .defaultAdvisors(advisor)
    .build()
  return { memory, model, client }
}

const toolTurn = (city: string): ScriptStep[] => [
  { text: 'Checking.', toolCalls: [{ id: `t-${city}`, name: 'weather', arguments: { city } }] },
  `Sunny in ${city}.`,
]

describe('MessageChatMemoryAdvisor outside the loop (default)', () => {
  it('stores the user message before and the answer after', async () => {
    const { memory, client } = setup(['Hello!'])
    await client.prompt('Hi').call().content()
    expect(roles(await memory.get('c1'))).toEqual(['user:Hi', 'assistant:Hello!'])
  })

  it('replays a two-turn conversation from memory, system message first', async () => {
    const { model, client } = setup(['Hello!', 'You said hi.'])
    await client.prompt('Hi').call().content()
    await client.prompt('What did I say?').call().content()
    expect(roles(model.prompts[1]!.messages)).toEqual([
      'system:Be brief.',
      'user:Hi',
      'assistant:Hello!',
      'user:What did I say?',
    ])
  })

  it('stores only the user message and the final answer of a tool turn', async () => {
    const { memory, client } = setup(toolTurn('Oslo'))
    await client.prompt('Weather?').call().content()
    expect(roles(await memory.get('c1'))).toEqual(['user:Weather?', 'assistant:Sunny in Oslo.'])
  })

  it('stores a stream once, from its last round only (no preamble of the tool round)', async () => {
    const { memory, client } = setup(toolTurn('Oslo'))
    expect((await collect(client.prompt('Weather?').stream().content())).join('')).toBe('Checking.Sunny in Oslo.')
    expect(roles(await memory.get('c1'))).toEqual(['user:Weather?', 'assistant:Sunny in Oslo.'])
  })

  it('does not prepend memory that is already in the prompt', async () => {
    const { model, client } = setup(['Hello!', 'Again.'])
    await client.prompt('Hi').call().content()
    await client.prompt().messages(userMessage('Hi'), assistantMessage('Hello!')).user('More').call().content()
    expect(roles(model.prompts[1]!.messages)).toEqual(['system:Be brief.', 'user:Hi', 'assistant:Hello!', 'user:More'])
  })

  it('takes the conversation id from the context, then the builder, then default', async () => {
    const memory = MessageWindowChatMemory.builder().build()
    const model = new ScriptedChatModel(['a', 'b', 'c'])
    const plain = ChatClient.builder(model).defaultAdvisors(MessageChatMemoryAdvisor.builder(memory).build()).build()
    await plain.prompt('one').call().content()
    await plain
      .prompt('two')
      .advisorParams({ [ChatMemory.CONVERSATION_ID]: 'other' })
      .call()
      .content()
    const named = ChatClient.builder(model)
      .defaultAdvisors(MessageChatMemoryAdvisor.builder(memory).conversationId('named').build())
      .build()
    await named.prompt('three').call().content()
    expect(
      [await memory.get('default'), await memory.get('other'), await memory.get('named')].map((m) => m.length),
    ).toEqual([2, 2, 2])
  })

  it('stores a tool response that ends the prompt', async () => {
    const memory = MessageWindowChatMemory.builder().build()
    const advisor = MessageChatMemoryAdvisor.builder(memory).build()
    const client = ChatClient.builder(new ScriptedChatModel(['ok']))
      .defaultAdvisors(advisor)
      .build()
    await client
      .prompt()
      .messages(userMessage('q'), assistantMessage('', [{ id: 'x', name: 'weather', arguments: '{}' }]), {
        role: 'tool',
        responses: [{ id: 'x', name: 'weather', responseData: 'sun' }],
      })
      .call()
      .content()
    expect(roles(await memory.get('default'))).toEqual(['tool', 'assistant:ok'])
  })

  it('shows what it loaded and stored to observers', async () => {
    const collector = new TraceCollector()
    const memory = MessageWindowChatMemory.builder().build()
    const client = ChatClient.builder(new ScriptedChatModel(['a', 'b']))
      .defaultAdvisors(
        MessageChatMemoryAdvisor.builder(memory).build(),
        new ObserverAdvisor({ sink: collector, order: HIGHEST_PRECEDENCE + 100 }),
      )
      .build()
    await client.prompt('one').call().content()
    await client.prompt('two').call().content()
    expect(collector.ofType('note').map((n) => n.message)).toContain('memory loaded 2 messages')
  })
})

describe('MessageChatMemoryAdvisor inside the loop', () => {
  const INSIDE = HIGHEST_PRECEDENCE + 350

  for (const mode of ['call', 'stream'] as const) {
    it(`${mode}: stores the whole transcript, and the loop's own history is off`, async () => {
      const { memory, model, client } = setup([...toolTurn('Oslo'), 'Still sunny.'], INSIDE)
      if (mode === 'call') await client.prompt('Weather?').call().content()
      else await collect(client.prompt('Weather?').stream().content())
      expect(roles(await memory.get('c1'))).toEqual([
        'user:Weather?',
        'assistant(tool calls)',
        'tool',
        'assistant:Sunny in Oslo.',
      ])
      expect(roles(model.prompts[1]!.messages)).toEqual([
        'system:Be brief.',
        'user:Weather?',
        'assistant(tool calls)',
        'tool',
      ])
      if (mode === 'call') await client.prompt('And now?').call().content()
      else await collect(client.prompt('And now?').stream().content())
      expect(roles(model.prompts[2]!.messages).slice(-2)).toEqual(['assistant:Sunny in Oslo.', 'user:And now?'])
    })
  }

  it('drops the unanswered tool calls of an aborted turn, inventing no tool response', async () => {
    const memory = MessageWindowChatMemory.builder().build()
    const hang = defineTool({
      name: 'hang',
      description: '',
      inputSchema: {},
      execute: (_a, ctx) =>
        new Promise((_, reject) => ctx.signal?.addEventListener('abort', () => reject(new Error('stopped')))),
    })
    const controller = new AbortController()
    const client = ChatClient.builder(new ScriptedChatModel([{ toolCalls: [{ id: 'h1', name: 'hang' }] }]))
      .defaultTools(hang)
      .defaultAdvisors(MessageChatMemoryAdvisor.builder(memory).order(INSIDE).build())
      .build()
    const answer = client.prompt('Go').signal(controller.signal).call().content()
    await expect.poll(async () => (await memory.get('default')).length).toBe(2)
    controller.abort()
    await expect(answer).rejects.toMatchObject({ name: 'AbortError' })
    await expect.poll(async () => roles(await memory.get('default'))).toEqual(['user:Go'])
  })

  it('drops tool calls lost to a reload when the next user message comes, with a warning', async () => {
    const memory = MessageWindowChatMemory.builder().build()
    await memory.add('default', [
      userMessage('Go'),
      assistantMessage('', [{ id: 'lost', name: 'weather', arguments: '{}' }]),
    ])
    const model = new ScriptedChatModel(['ok'])
    const collector = new TraceCollector()
    await ChatClient.builder(model)
      .defaultAdvisors(MessageChatMemoryAdvisor.builder(memory).build(), new ObserverAdvisor({ sink: collector }))
      .build()
      .prompt('Hello?')
      .call()
      .content()
    expect(roles(model.prompts[0]!.messages)).toEqual(['user:Go', 'user:Hello?'])
    expect(roles(await memory.get('default'))).toEqual(['user:Go', 'user:Hello?', 'assistant:ok'])
    expect(collector.ofType('note').filter((n) => n.level === 'warning')).toMatchObject([
      { message: 'memory dropped 1 tool call or response without its counterpart', data: { dropped: 1 } },
    ])
  })

  it('resumes a turn that waited for an approval when the page reloaded, storing nothing twice', async () => {
    const memory = MessageWindowChatMemory.builder().build()
    await memory.add('default', [
      userMessage('Weather in Oslo?'),
      assistantMessage('', [{ id: 'w1', name: 'weather', arguments: '{"city":"Oslo"}' }]),
    ])
    const queue = new ApprovalQueue()
    const model = new ScriptedChatModel(['Sunny in Oslo.'])
    const client = ChatClient.builder(model)
      .defaultTools(weather)
      .defaultAdvisors(
        MessageChatMemoryAdvisor.builder(memory).order(INSIDE).build(),
        ToolApprovalAdvisor.builder().policy('weather', 'always').handler(queue.handler).build(),
      )
      .build()
    const answer = client.prompt().call().content()
    await expect.poll(() => queue.pending().length).toBe(1)
    queue.decide('w1', { type: 'approve' })
    expect(await answer).toBe('Sunny in Oslo.')
    expect(roles(await memory.get('default'))).toEqual([
      'user:Weather in Oslo?',
      'assistant(tool calls)',
      'tool',
      'assistant:Sunny in Oslo.',
    ])
    expect(roles(model.prompts[0]!.messages)).toEqual(['user:Weather in Oslo?', 'assistant(tool calls)', 'tool'])
  })

  it('keeps the system message first when memory comes before it', async () => {
    const memory = MessageWindowChatMemory.builder().build()
    await memory.add('default', [userMessage('earlier'), assistantMessage('reply')])
    const model = new ScriptedChatModel(['ok'])
    await ChatClient.builder(model)
      .defaultSystem('rules')
      .defaultAdvisors(MessageChatMemoryAdvisor.builder(memory).build())
      .build()
      .prompt('now')
      .call()
      .content()
    expect(model.prompts[0]!.messages[0]).toEqual(systemMessage('rules'))
  })
})

describe('MessageChatMemoryAdvisor: a question asked again after a failed turn', () => {
  const image = (bytes: string, type = 'image/png') => imagePart(new Blob([bytes], { type }))
  const storedImages = (messages: Message[]) =>
    messages.flatMap((message) =>
      message.role === 'user'
        ? (message.parts ?? []).filter((part) => part.type === 'image').map((part) => part.image)
        : [],
    )

  it.each([
    ['another image of another size', image('AAAA'), image('BBBBBBBB')],
    ['another type', image('AAAA'), image('AAAA', 'image/jpeg')],
    [
      'a File of another name',
      imagePart(new File(['AAAA'], 'a.png', { type: 'image/png' })),
      imagePart(new File(['AAAA'], 'b.png', { type: 'image/png' })),
    ],
  ])('with %s is stored with its own image, not the one of the failed turn', async (_case, first, second) => {
    const { memory, client } = setup([{ error: 'provider down' }, 'A cat.'])
    await expect(client.prompt().user('What is this?', [first]).call().content()).rejects.toThrow(/provider down/)
    await client.prompt().user('What is this?', [second]).call().content()
    const images = storedImages(await memory.get('c1'))
    expect(images.at(-1)).toBe((second as { image: Blob }).image)
  })

  it('with the same image is stored once', async () => {
    const { memory, client } = setup([{ error: 'provider down' }, 'A cat.'])
    const picked = image('AAAA')
    await expect(client.prompt().user('What is this?', [picked]).call().content()).rejects.toThrow(/provider down/)
    await client.prompt().user('What is this?', [picked]).call().content()
    expect(roles(await memory.get('c1'))).toEqual(['user:What is this?', 'assistant:A cat.'])
  })
})
