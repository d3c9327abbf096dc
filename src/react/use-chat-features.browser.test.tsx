import { afterEach, describe, expect, it, vi } from 'vitest'
import { ApprovalQueue, MessageChatMemoryAdvisor, ToolApprovalAdvisor } from '../advisors'
import { ChatClient } from '../client'
import { HIGHEST_PRECEDENCE, type Message } from '../core'
import { IndexedDBChatMemoryRepository, MessageWindowChatMemory, type ChatMemory } from '../memory'
import type { ScriptStep } from '../models'
import { defineTool } from '../tools'
import type { ChatFinish, ChatMessageView, ToolCallPartView } from '../client'
import { mount, statusesSince, unmountAll } from './testing/chat-probe'
import type { UseChat } from './use-chat'
import { WatchedModel } from './testing/watched-model'

// The hook's states (waiting for approval, denied, never run), its callbacks, setMessages, and a
// chat that looks the same after a reload, with the real renderer and memory in IndexedDB.

const closers: Array<() => Promise<void>> = []
afterEach(async () => {
  unmountAll()
  await Promise.all(closers.splice(0).map((close) => close()))
})

let databases = 0
function indexedDbMemory(): { memory: ChatMemory; databaseName: string } {
  const databaseName = `use-chat-features-${databases++}-${Date.now()}`
  const repository = new IndexedDBChatMemoryRepository({ databaseName })
  closers.push(() => repository.close())
  return {
    memory: MessageWindowChatMemory.builder().chatMemoryRepository(repository).maxMessages(40).build(),
    databaseName,
  }
}

/** The same database opened again, as a reloaded page opens it. */
function reopened(databaseName: string): ChatMemory {
  const repository = new IndexedDBChatMemoryRepository({ databaseName })
  closers.push(() => repository.close())
  return MessageWindowChatMemory.builder().chatMemoryRepository(repository).maxMessages(40).build()
}

const weather = defineTool({
  name: 'weather',
  description: 'Weather in a city',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } as const,
  execute: ({ city }) => `sunny in ${city}`,
})

const weatherCall = (id: string, text = 'I will check the weather.'): ScriptStep => ({
  text,
  toolCalls: [{ id, name: 'weather', arguments: { city: 'Oslo' } }],
  delayMs: 5,
})

const INSIDE = HIGHEST_PRECEDENCE + 350

function client(
  model: WatchedModel,
  { memory, order, approvals }: { memory?: ChatMemory; order?: number; approvals?: ApprovalQueue } = {},
) {
  const advisors = [
    ...(memory
      ? [
          MessageChatMemoryAdvisor.builder(memory)
            .order(order ?? MessageChatMemoryAdvisor.DEFAULT_ORDER)
            .build(),
        ]
      : []),
    ...(approvals
      ? [ToolApprovalAdvisor.builder().handler(approvals.handler).policy('weather', 'always').build()]
      : []),
  ]
  return ChatClient.builder(model)
    .defaultTools(weather)
    .defaultAdvisors(...advisors)
    .build()
}

/** Waits until the screen shows the answer ended (the hook's promise settles before React commits). */
const settled = (chat: () => UseChat) =>
  expect.poll(() => chat().status !== 'streaming' && chat().messages.every((bubble) => !bubble.pending)).toBe(true)

const callOf = (bubble: ChatMessageView | undefined) =>
  bubble?.parts.find((part): part is ToolCallPartView => part.type === 'tool-call')

/** What a bubble shows, for comparing a chat before and after a reload. */
const shown = (messages: ChatMessageView[]) =>
  messages.map((bubble) => ({
    role: bubble.role,
    parts: bubble.parts.map((part) =>
      part.type === 'tool-call'
        ? { call: part.name, input: part.input, result: part.result, approval: part.approval }
        : part.type === 'text'
          ? { text: part.text }
          : { type: part.type },
    ),
  }))

describe('useChat: the states of a tool call and of the chat', () => {
  it('status is awaiting-approval while a call waits for the user, then running-tools, then idle', async () => {
    const approvals = new ApprovalQueue()
    const model = new WatchedModel([weatherCall('w1'), 'Sunny in Oslo.'])
    const { probe, chat } = await mount(client(model, { approvals }), { approvals })
    const mark = probe.renders.length
    const sent = chat().send('Weather?')
    await expect.poll(() => chat().status).toBe('awaiting-approval')
    expect(callOf(chat().messages[1])).toMatchObject({
      state: 'awaiting-approval',
      approval: 'requested',
      input: { city: 'Oslo' },
    })
    chat().addToolApproval({ id: 'w1', approved: true })
    await sent
    await settled(chat)
    // What follows the decision may commit in one render (the tool answers at once): running-tools, streaming.
    const statuses = statusesSince(probe, mark)
    expect(statuses.slice(0, 2)).toEqual(['streaming', 'awaiting-approval'])
    expect(statuses.at(-1)).toBe('idle')
    expect(statuses.slice(2, -1).every((status) => status === 'running-tools' || status === 'streaming')).toBe(true)
    expect(callOf(chat().messages[1])).toMatchObject({ state: 'done', approval: 'approved', result: 'sunny in Oslo' })
  })

  it("a denied call has state denied (not done), the user's words as its reason and no result, and the flat view says denied", async () => {
    const approvals = new ApprovalQueue()
    const model = new WatchedModel([weatherCall('w1'), 'Fine, I will not.'])
    const { chat } = await mount(client(model, { approvals }), { approvals })
    const sent = chat().send('Weather?')
    await expect.poll(() => chat().status).toBe('awaiting-approval')
    chat().addToolApproval({ id: 'w1', approved: false, reason: 'not now' })
    await sent
    await settled(chat)
    const call = callOf(chat().messages[1])!
    expect(call).toMatchObject({ state: 'denied', approval: 'rejected', reason: 'not now' })
    expect(call.result).toBeUndefined()
    expect(JSON.stringify(model.prompts.at(-1)!.messages.at(-1))).toMatch(/The user declined this call/)
    expect(chat().messages[1]!.toolCalls[0]).toMatchObject({ status: 'denied' })
  })
})

describe('useChat: callbacks', () => {
  it('onToolCall hears each whole call once with its input; onFinish each answer once, done', async () => {
    const onToolCall = vi.fn()
    const finishes: ChatFinish[] = []
    const model = new WatchedModel([weatherCall('w1'), 'Sunny in Oslo.'])
    const { chat } = await mount(client(model), { onToolCall, onFinish: (finish) => finishes.push(finish) })
    await chat().send('Weather?')
    await settled(chat)
    expect(onToolCall).toHaveBeenCalledTimes(1)
    expect(onToolCall.mock.calls[0]![0]).toMatchObject({ id: 'w1', name: 'weather', input: { city: 'Oslo' } })
    expect(finishes).toHaveLength(1)
    expect(finishes[0]).toMatchObject({
      reason: 'done',
      message: { role: 'assistant', text: 'I will check the weather.\n\nSunny in Oslo.' },
    })
    expect(finishes[0]!.messages).toHaveLength(2)
  })

  it('onFinish says stopped for stop() and for an answer a send replaced; onError and onFinish error for a failure', async () => {
    const reasons: string[] = []
    const onError = vi.fn()
    const model = new WatchedModel([
      { text: Array.from({ length: 50 }, (_, i) => `w${i}`).join(' '), delayMs: 20 },
      { text: Array.from({ length: 50 }, (_, i) => `v${i}`).join(' '), delayMs: 20 },
      { error: 'the provider is down' },
    ])
    const { chat } = await mount(client(model), { onError, onFinish: ({ reason }) => reasons.push(reason) })
    const first = chat().send('one')
    await expect.poll(() => chat().messages[1]?.text).toMatch(/^w0/)
    chat().stop()
    await first
    await settled(chat)
    const second = chat().send('two')
    await expect.poll(() => chat().messages[3]?.text).toMatch(/^v0/)
    await Promise.all([second, chat().send('three')])
    await expect.poll(() => chat().status).toBe('error')
    expect(reasons).toEqual(['stopped', 'stopped', 'error'])
    expect(onError).toHaveBeenCalledTimes(1)
    expect(String(onError.mock.calls[0]![0])).toMatch(/the provider is down/)
    expect(chat().status).toBe('error')
  })

  it('a callback that throws is reported, and the answer goes on', async () => {
    const reported = vi.spyOn(globalThis, 'reportError').mockImplementation(() => {})
    const model = new WatchedModel([weatherCall('w1'), 'Sunny in Oslo.'])
    const { chat } = await mount(client(model), {
      onToolCall: () => {
        throw new Error('app bug')
      },
    })
    await chat().send('Weather?')
    await settled(chat)
    expect(chat().messages[1]).toMatchObject({ text: 'I will check the weather.\n\nSunny in Oslo.', pending: false })
    expect(reported).toHaveBeenCalledWith(expect.objectContaining({ message: 'app bug' }))
    reported.mockRestore()
  })
})

describe('useChat: setMessages', () => {
  it('without memory: the bubbles shown are what the next question is sent after', async () => {
    const model = new WatchedModel(['First answer.', 'Second answer.'])
    const { chat } = await mount(client(model))
    await chat().send('first')
    await chat().setMessages((messages) => [
      ...messages.slice(0, 1),
      { ...messages[1]!, text: 'An edited answer.', parts: [{ type: 'text', text: 'An edited answer.' }] },
    ])
    await chat().send('second')
    expect(
      model.prompts[1]!.messages.map((message) => `${message.role}: ${message.role === 'tool' ? '' : message.text}`),
    ).toEqual(['user: first', 'assistant: An edited answer.', 'user: second'])
  })

  it('with memory: the conversation in memory becomes the bubbles, tool calls and results included', async () => {
    const { memory } = indexedDbMemory()
    const model = new WatchedModel([weatherCall('w1'), 'Sunny in Oslo.', 'More.'])
    const { chat } = await mount(client(model, { memory }), { memory, conversationId: 'c' })
    await chat().send('Weather?')
    await settled(chat)
    const before = chat().messages
    await chat().setMessages([])
    expect(await memory.get('c')).toEqual([])
    await chat().setMessages(before)
    const stored: Message[] = await memory.get('c')
    expect(stored.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant'])
    expect(shown(chat().messages)).toEqual(shown(before))
  })
})

describe('useChat after a reload', () => {
  it.each([
    { where: 'inside the loop', order: INSIDE },
    { where: 'outside the loop', order: MessageChatMemoryAdvisor.DEFAULT_ORDER },
  ])(
    'during a pending approval, memory $where: the text streamed before the call and its approval mark come back',
    async ({ order }) => {
      const approvals = new ApprovalQueue()
      const { memory, databaseName } = indexedDbMemory()
      const model = new WatchedModel([weatherCall('w1', 'I found the city; I will check it.'), 'Sunny in Oslo.'])
      const page = await mount(client(model, { memory, order, approvals }), { memory, conversationId: 'c', approvals })
      void page.chat().send('Weather in Oslo?')
      await expect.poll(() => page.chat().status).toBe('awaiting-approval')
      const before = shown(page.chat().messages)
      page.unmount() // the page closes while the user decides

      const again = reopened(databaseName)
      const reloaded = await mount(client(new WatchedModel(['Sunny in Oslo.']), { memory: again, order, approvals }), {
        memory: again,
        conversationId: 'c',
        approvals,
      })
      await expect.poll(() => reloaded.chat().status).toBe('idle')
      if (order === INSIDE) {
        // Memory inside the loop kept the round: the same text and card, asked but not yet run.
        expect(shown(reloaded.chat().messages)).toEqual(before)
        expect(callOf(reloaded.chat().messages[1])).toMatchObject({ state: 'pending', approval: 'requested' })
        expect(reloaded.chat().pendingTurn).toBe(true)
      } else {
        // Outside the loop a turn is stored when it ends: the question the user asked is kept.
        expect(shown(reloaded.chat().messages).map(({ role }) => role)).toEqual(['user'])
      }
    },
  )

  it.each([
    { where: 'inside the loop', order: INSIDE },
    { where: 'outside the loop (the default)', order: MessageChatMemoryAdvisor.DEFAULT_ORDER },
  ])('after a finished tool turn, memory $where: the same cards, texts and approval marks', async ({ order }) => {
    const approvals = new ApprovalQueue()
    const { memory, databaseName } = indexedDbMemory()
    const model = new WatchedModel([weatherCall('w1'), 'Sunny in Oslo.', weatherCall('w2', 'Again.'), 'No.'])
    const page = await mount(client(model, { memory, order, approvals }), { memory, conversationId: 'c', approvals })
    const first = page.chat().send('Weather in Oslo?')
    await expect.poll(() => page.chat().status).toBe('awaiting-approval')
    page.chat().addToolApproval({ id: 'w1', approved: true })
    await first
    await settled(page.chat)
    const second = page.chat().send('And again?')
    await expect.poll(() => page.chat().status).toBe('awaiting-approval')
    page.chat().addToolApproval({ id: 'w2', approved: false })
    await second
    await settled(page.chat)
    const before = shown(page.chat().messages)
    page.unmount()

    const again = reopened(databaseName)
    const reloaded = await mount(client(new WatchedModel([]), { memory: again, order }), {
      memory: again,
      conversationId: 'c',
    })
    await expect.poll(() => reloaded.chat().status).toBe('idle')
    expect(shown(reloaded.chat().messages)).toEqual(before)
    expect(
      reloaded
        .chat()
        .messages.flatMap((bubble) => bubble.parts.filter((part) => part.type === 'tool-call'))
        .map((part) => part.state),
    ).toEqual(['done', 'denied'])
    expect(reloaded.chat().pendingTurn).toBe(false)
  })

  it('memory outside the loop keeps the rounds with the answer for the screen, and never sends them to the model again', async () => {
    const { memory } = indexedDbMemory()
    const model = new WatchedModel([weatherCall('w1'), 'Sunny in Oslo.', 'You asked about Oslo.'])
    const { chat } = await mount(client(model, { memory }), { memory, conversationId: 'c' })
    await chat().send('Weather in Oslo?')
    await settled(chat)
    await chat().send('What did I ask?')
    await settled(chat)
    const sent = model.prompts[2]!.messages
    expect(sent.map((message) => message.role)).toEqual(['user', 'assistant', 'user'])
    expect(sent.every((message) => !message.metadata || !('rounds' in message.metadata))).toBe(true)
    const stored = await memory.get('c')
    expect(stored.map((message) => message.role)).toEqual(['user', 'assistant', 'user', 'assistant'])
    expect((stored[1]!.metadata?.['rounds'] as Message[]).map((message) => message.role)).toEqual(['assistant', 'tool'])
  })
})
