import { afterEach, describe, expect, it } from 'vitest'
import { HIGHEST_PRECEDENCE } from '../core'
import { ApprovalQueue, MessageChatMemoryAdvisor, ToolApprovalAdvisor } from '../advisors'
import { ChatClient } from '../client'
import { type ChatMemory, IndexedDBChatMemoryRepository, MessageWindowChatMemory } from '../memory'
import { ScriptedChatModel, type ScriptStep } from '../models'
import { defineTool } from '../tools'
import type { ChatMessageView, ChatPartView } from '../client'
import { mount, unmountAll } from './testing/chat-probe'

afterEach(unmountAll)

/** A promise the test settles by hand: a tool that waits on it holds the loop in the tools phase. */
function gate() {
  let open!: () => void
  const opened = new Promise<void>((resolve) => (open = resolve))
  return { open, opened }
}

function capitalTool(waitFor: Promise<void> = Promise.resolve()) {
  return defineTool({
    name: 'get_capital',
    description: 'The capital of a country',
    inputSchema: { type: 'object', properties: { country: { type: 'string' } }, required: ['country'] } as const,
    execute: async ({ country }) => {
      await waitFor
      return ({ UK: 'London', France: 'Paris' } as Record<string, string>)[country] ?? 'unknown'
    },
  })
}

const bubbles = (messages: ChatMessageView[]) =>
  messages.map(({ role, text, toolCalls, problem }) => ({ role, text, toolCalls, ...(problem ? { problem } : {}) }))

const toolRound: ScriptStep[] = [
  {
    text: 'Let me look that up.',
    toolCalls: [{ id: 'c1', name: 'get_capital', arguments: { country: 'UK' } }],
    delayMs: 10,
  },
  { text: 'The capital is London.', delayMs: 10 },
]

describe('useChat in Chromium', () => {
  it('streams the answer into state: partial texts render before the whole one', async () => {
    const full = 'One two three four five six'
    const model = new ScriptedChatModel([{ text: full, delayMs: 15 }])
    const { probe, chat, container } = await mount(ChatClient.create(model))
    await chat().send('Count to six')
    await expect.poll(() => chat().status).toBe('idle')
    expect(bubbles(chat().messages)).toEqual([
      { role: 'user', text: 'Count to six', toolCalls: [] },
      { role: 'assistant', text: full, toolCalls: [] },
    ])
    expect(chat().messages[1]!.pending).toBe(false)
    expect(container.textContent).toBe(full)
    const partial = probe.answers.filter((text) => text !== '' && text !== full)
    expect(partial.length).toBeGreaterThan(0)
    for (const text of probe.answers) expect(full.startsWith(text)).toBe(true)
    expect(probe.answers.at(-1)).toBe(full)
  })

  it('goes idle → streaming → running tools → streaming → idle through a tool round', async () => {
    const tools = gate()
    const model = new ScriptedChatModel(toolRound)
    const client = ChatClient.builder(model).defaultTools(capitalTool(tools.opened)).build()
    const { probe, chat, container } = await mount(client)
    const sent = chat().send('Capital of the UK?')
    await expect.poll(() => chat().status).toBe('running-tools')
    const answer = chat().messages[1]!
    expect(answer).toMatchObject({ text: 'Let me look that up.', pending: true })
    expect(answer.toolCalls).toEqual([
      { id: 'c1', name: 'get_capital', arguments: '{"country":"UK"}', status: 'running' },
    ])
    expect(container.querySelector('[data-testid="answer"]')!.getAttribute('data-status')).toBe('running-tools')
    tools.open()
    await sent
    await expect.poll(() => chat().status).toBe('idle')
    expect(probe.statuses).toEqual(['idle', 'streaming', 'running-tools', 'streaming', 'idle'])
    expect(bubbles(chat().messages)).toEqual([
      { role: 'user', text: 'Capital of the UK?', toolCalls: [] },
      {
        role: 'assistant',
        text: 'Let me look that up.\n\nThe capital is London.',
        toolCalls: [{ id: 'c1', name: 'get_capital', arguments: '{"country":"UK"}', status: 'done', result: 'London' }],
      },
    ])
  })

  it('stop() aborts the stream mid-answer and keeps the text that arrived', async () => {
    const words = Array.from({ length: 50 }, (_, i) => `word${i}`)
    const full = words.join(' ')
    const model = new ScriptedChatModel([{ text: full, delayMs: 40 }])
    const { chat } = await mount(ChatClient.create(model))
    const sent = chat().send('Talk')
    await expect.poll(() => chat().messages[1]?.text ?? '').toMatch(/^word0 /)
    chat().stop()
    await sent
    await expect.poll(() => chat().status).toBe('idle')
    const answer = chat().messages[1]!
    expect(answer).toMatchObject({ role: 'assistant', pending: false, problem: 'Stopped.' })
    expect(answer.text).toMatch(/^word0 /)
    expect(answer.text.length).toBeLessThan(full.length)
    expect(full.startsWith(answer.text)).toBe(true)
    expect(chat().error).toBeUndefined()
  })

  it('an error sets status error; retry() sends the same question again and the answer replaces the failed one', async () => {
    const model = new ScriptedChatModel([
      { text: 'Half an answer', error: 'The model is overloaded', failAfterChunks: 1 },
      'A whole answer.',
      'Still here.',
    ])
    const { chat } = await mount(ChatClient.create(model))
    await chat().send('q')
    await expect.poll(() => chat().status).toBe('error')
    expect(chat().error?.message).toBe('The model is overloaded')
    expect(bubbles(chat().messages)).toEqual([
      { role: 'user', text: 'q', toolCalls: [] },
      { role: 'assistant', text: 'Half ', toolCalls: [], problem: 'The model is overloaded' },
    ])

    await chat().retry()
    await expect.poll(() => chat().status).toBe('idle')
    expect(chat().error).toBeUndefined()
    expect(bubbles(chat().messages)).toEqual([
      { role: 'user', text: 'q', toolCalls: [] },
      { role: 'assistant', text: 'A whole answer.', toolCalls: [] },
    ])
    expect(model.prompts[1]!.messages).toEqual([{ role: 'user', text: 'q' }])

    // The history sent next holds the retried answer, not the failed half.
    await chat().send('and?')
    expect(model.prompts[2]!.messages).toEqual([
      { role: 'user', text: 'q' },
      { role: 'assistant', text: 'A whole answer.', toolCalls: [] },
      { role: 'user', text: 'and?' },
    ])
  })

  describe('with chat memory in IndexedDB', () => {
    let next = 0
    const freshDatabase = () => `use-chat-${Date.now()}-${next++}`

    /** What a page builds on load: a repository, a window memory over it, a client recording the whole transcript. */
    function page(databaseName: string, script: ScriptStep[]) {
      const repository = new IndexedDBChatMemoryRepository({ databaseName })
      const memory = MessageWindowChatMemory.builder().chatMemoryRepository(repository).maxMessages(40).build()
      const model = new ScriptedChatModel(script)
      const client = ChatClient.builder(model)
        .defaultTools(capitalTool())
        .defaultAdvisors(
          MessageChatMemoryAdvisor.builder(memory)
            .order(HIGHEST_PRECEDENCE + 500)
            .build(),
        )
        .build()
      return { repository, memory, model, client, options: { memory, conversationId: 'trip' } }
    }

    it('restores the conversation, tool calls included, on a fresh mount (a reload)', async () => {
      const databaseName = freshDatabase()
      const before = page(databaseName, toolRound)
      const first = await mount(before.client, before.options)
      await first.chat().send('Capital of the UK?')
      await expect.poll(() => first.chat().status).toBe('idle')
      const shown = bubbles(first.chat().messages)
      expect(shown[1]!.toolCalls).toMatchObject([{ status: 'done', result: 'London' }])
      first.unmount()
      await before.repository.close()

      const after = page(databaseName, ['Paris.'])
      const second = await mount(after.client, after.options)
      await expect.poll(() => second.chat().status).toBe('idle')
      expect(second.probe.statuses).toEqual(['loading', 'idle'])
      expect(bubbles(second.chat().messages)).toEqual(shown)
      expect(second.chat().pendingTurn).toBe(false)

      // Only the new question is sent by the hook; memory puts the restored turn in front of it.
      await second.chat().send('And France?')
      expect(after.model.prompts[0]!.messages.map((message) => message.role)).toEqual([
        'user',
        'assistant',
        'tool',
        'assistant',
        'user',
      ])
      expect(after.model.prompts[0]!.messages.at(-1)).toMatchObject({ role: 'user', text: 'And France?' })
      await after.repository.close()
    })

    it("finds the memory on the client's memory advisor when none is given, and restores once", async () => {
      const databaseName = freshDatabase()
      const before = page(databaseName, ['Hello, Ann.'])
      const first = await mount(before.client, { conversationId: 'trip' })
      await first.chat().send('I am Ann')
      await expect.poll(() => first.chat().status).toBe('idle')
      first.unmount()
      await before.repository.close()

      const after = page(databaseName, ['Hi again.'])
      const second = await mount(after.client, { conversationId: 'trip' })
      await expect.poll(() => second.chat().status).toBe('idle')
      expect(second.probe.statuses).toEqual(['loading', 'idle'])
      expect(bubbles(second.chat().messages).map((bubble) => bubble.text)).toEqual(['I am Ann', 'Hello, Ann.'])
      await after.repository.close()
    })

    it('a message sent while the conversation is still loading waits for it, and nothing shown is lost', async () => {
      const databaseName = freshDatabase()
      const before = page(databaseName, ['Hello, Ann.'])
      const first = await mount(before.client, before.options)
      await first.chat().send('I am Ann')
      await expect.poll(() => first.chat().status).toBe('idle')
      first.unmount()
      await before.repository.close()

      const after = page(databaseName, ['Noted.'])
      let release!: () => void
      const slow = new Promise<void>((resolve) => (release = resolve))
      const memory: ChatMemory = {
        get: async (id) => (await slow, after.memory.get(id)),
        add: (id, messages) => after.memory.add(id, messages),
        clear: (id) => after.memory.clear(id),
      }
      const second = await mount(after.client, { memory, conversationId: 'trip' })
      const sent = second.chat().send('Remember this')
      release()
      await sent
      await expect.poll(() => second.chat().status).toBe('idle')
      expect(second.chat().messages.map((message) => message.text)).toEqual([
        'I am Ann',
        'Hello, Ann.',
        'Remember this',
        'Noted.',
      ])
      await after.repository.close()
    })

    it('clear() forgets the conversation, so the next mount starts empty', async () => {
      const databaseName = freshDatabase()
      const before = page(databaseName, ['Hello.'])
      const first = await mount(before.client, before.options)
      await first.chat().send('Hi')
      await expect.poll(() => first.chat().status).toBe('idle')
      expect(await before.memory.get('trip')).toHaveLength(2)
      await first.chat().clear()
      await expect.poll(() => first.chat().messages).toEqual([])
      first.unmount()
      await before.repository.close()

      const after = page(databaseName, [])
      const second = await mount(after.client, after.options)
      await expect.poll(() => second.chat().status).toBe('idle')
      expect(second.chat().messages).toEqual([])
      await after.repository.close()
    })
  })
})

/** A bubble's parts as a test reads them: kinds in order, tool calls with their state. */
const shapeOf = (parts: ChatPartView[]) =>
  parts.map((part) => (part.type === 'tool-call' ? `tool:${part.id}:${part.state}` : part.type))

const weatherTool = (waitFor: Promise<void> = Promise.resolve()) =>
  defineTool({
    name: 'weather',
    description: 'Weather in a city',
    inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } as const,
    execute: async ({ city }) => (await waitFor, `sunny in ${city}`),
  })

describe('useChat parts in Chromium', () => {
  it('interleaves text and tool cards in the order they happened, a card showing its arguments as they stream', async () => {
    const model = new ScriptedChatModel([
      { text: 'First Oslo.', toolCalls: [{ id: 'w1', name: 'weather', arguments: { city: 'Oslo' } }], delayMs: 100 },
      { text: 'Now Rome.', toolCalls: [{ id: 'w2', name: 'weather', arguments: { city: 'Rome' } }], delayMs: 5 },
      { text: 'Both sunny.', delayMs: 5 },
    ])
    const client = ChatClient.builder(model).defaultTools(weatherTool()).build()
    const { chat } = await mount(client)
    const sent = chat().send('Weather in Oslo, then Rome?')
    // The card is there before its arguments are complete.
    await expect
      .poll(() => chat().messages[1]?.parts.find((part) => part.type === 'tool-call'), { interval: 10, timeout: 3000 })
      .toMatchObject({ id: 'w1', state: 'streaming-arguments', arguments: '{"city":' })
    await sent
    await expect.poll(() => chat().status).toBe('idle')
    const answer = chat().messages[1]!
    expect(shapeOf(answer.parts)).toEqual(['text', 'tool:w1:done', 'text', 'tool:w2:done', 'text'])
    expect(answer.parts[1]).toEqual({
      type: 'tool-call',
      id: 'w1',
      name: 'weather',
      arguments: '{"city":"Oslo"}',
      input: { city: 'Oslo' },
      state: 'done',
      result: 'sunny in Oslo',
    })
    expect(answer.text).toBe('First Oslo.\n\nNow Rome.\n\nBoth sunny.')
    expect(answer.toolCalls.map((call) => call.status)).toEqual(['done', 'done'])
  })

  it('answers an approval from the message: the card waits, then runs when approved', async () => {
    const approvals = new ApprovalQueue()
    const model = new ScriptedChatModel([
      { text: 'Checking.', toolCalls: [{ id: 'w1', name: 'weather', arguments: { city: 'Oslo' } }] },
      'Sunny in Oslo.',
    ])
    const client = ChatClient.builder(model)
      .defaultTools(weatherTool())
      .defaultAdvisors(ToolApprovalAdvisor.builder().handler(approvals.handler).policy('weather', 'always').build())
      .build()
    const { chat } = await mount(client, { approvals })
    const sent = chat().send('Weather?')
    await expect.poll(() => shapeOf(chat().messages[1]?.parts ?? [])).toEqual(['text', 'tool:w1:awaiting-approval'])
    expect(chat().messages[1]!.parts[1]).toMatchObject({ approval: 'requested' })
    chat().addToolApproval({ id: 'w1', approved: true })
    await sent
    await expect.poll(() => chat().status).toBe('idle')
    expect(shapeOf(chat().messages[1]!.parts)).toEqual(['text', 'tool:w1:done', 'text'])
    expect(chat().messages[1]!.parts[1]).toMatchObject({ approval: 'approved', result: 'sunny in Oslo' })
    expect(() => chat().addToolApproval({ id: 'w1', approved: true })).toThrow(
      "No approval is waiting for tool call 'w1'",
    )
  })

  it('a declined call does not run; the model hears the reason', async () => {
    const approvals = new ApprovalQueue()
    const ran: string[] = []
    const tool = defineTool({
      name: 'weather',
      description: 'Weather',
      inputSchema: { type: 'object' },
      execute: () => (ran.push('weather'), 'sunny'),
    })
    const model = new ScriptedChatModel([{ toolCalls: [{ id: 'w1', name: 'weather' }] }, 'Fine, no weather.'])
    const client = ChatClient.builder(model)
      .defaultTools(tool)
      .defaultAdvisors(ToolApprovalAdvisor.builder().handler(approvals.handler).policy('weather', 'always').build())
      .build()
    const { chat } = await mount(client, { approvals })
    const sent = chat().send('Weather?')
    await expect.poll(() => shapeOf(chat().messages[1]?.parts ?? [])).toEqual(['tool:w1:awaiting-approval'])
    chat().addToolApproval({ id: 'w1', approved: false, reason: 'not now' })
    await sent
    expect(ran).toEqual([])
    await expect.poll(() => chat().messages[1]!.parts[0]).toMatchObject({ approval: 'rejected', state: 'denied' })
    const toolMessage = model.prompts[1]!.messages.find((message) => message.role === 'tool')
    expect(toolMessage).toMatchObject({ responses: [{ responseData: expect.stringContaining('"not now"') as string }] })
  })

  it('sends image and file attachments with the message, as Blobs, and shows them in the user bubble', async () => {
    const model = new ScriptedChatModel(['A red square and your notes.'])
    const { chat } = await mount(ChatClient.create(model))
    const png = new File([new Uint8Array([137, 80, 78, 71])], 'square.png', { type: 'image/png' })
    const notes = new File(['milk'], 'notes.txt', { type: 'text/plain' })
    await chat().sendMessage({ text: 'What are these?', attachments: [png, notes] })
    // The answer may be whole before React renders the state it set.
    await expect.poll(() => chat().messages[1]?.pending).toBe(false)
    expect(chat().status).toBe('idle')
    expect(chat().messages[0]!.parts).toEqual([
      { type: 'text', text: 'What are these?' },
      { type: 'image', image: png, name: 'square.png' },
      { type: 'file', data: notes, name: 'notes.txt' },
    ])
    const sentMessage = model.prompts[0]!.messages.at(-1)!
    expect(sentMessage).toMatchObject({ role: 'user', text: 'What are these?' })
    expect(sentMessage.role === 'user' && sentMessage.parts?.[1]).toEqual({
      type: 'image',
      image: png,
      name: 'square.png',
    })
  })

  it('regenerate() asks the last question again and replaces a good answer, without storing the turn twice', async () => {
    const repository = new IndexedDBChatMemoryRepository({ databaseName: `regenerate-${Date.now()}` })
    const memory = MessageWindowChatMemory.builder().chatMemoryRepository(repository).build()
    const model = new ScriptedChatModel(['First try.', 'Second try.'])
    const client = ChatClient.builder(model).defaultAdvisors(MessageChatMemoryAdvisor.builder(memory).build()).build()
    const { chat } = await mount(client, { memory, conversationId: 'c' })
    await expect.poll(() => chat().status).toBe('idle')
    await chat().send('Say something')
    await expect.poll(() => chat().status).toBe('idle')
    await chat().regenerate()
    await expect.poll(() => chat().status).toBe('idle')
    expect(bubbles(chat().messages)).toEqual([
      { role: 'user', text: 'Say something', toolCalls: [] },
      { role: 'assistant', text: 'Second try.', toolCalls: [] },
    ])
    expect(model.prompts[1]!.messages).toEqual([{ role: 'user', text: 'Say something' }])
    expect(await memory.get('c')).toEqual([
      { role: 'user', text: 'Say something' },
      { role: 'assistant', text: 'Second try.', toolCalls: [] },
    ])
    await repository.close()
  })
})
