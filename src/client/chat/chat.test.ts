import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { ApprovalQueue, MessageChatMemoryAdvisor, ToolApprovalAdvisor } from '../../advisors'
import { isAbortError, type ChatModel, type ChatResponse, type Prompt } from '../../core'
import { MessageWindowChatMemory } from '../../memory'
import { ScriptedChatModel, type ScriptStep } from '../../models'
import { defineTool } from '../../tools'
import { ChatClient } from '../client'
import { createChat } from './chat'
import type { Chat, ChatState } from './chat-state'

/** A scripted model that remembers whether each of its streams was cut off by an abort. */
class AbortWatchingModel implements ChatModel {
  readonly provider = 'scripted'
  readonly aborted: boolean[] = []
  readonly #scripted: ScriptedChatModel

  constructor(script: ScriptStep[]) {
    this.#scripted = new ScriptedChatModel(script)
  }

  get prompts(): Prompt[] {
    return this.#scripted.prompts
  }

  call(prompt: Prompt, signal?: AbortSignal): Promise<ChatResponse> {
    return this.#scripted.call(prompt, signal)
  }

  async *stream(prompt: Prompt, signal?: AbortSignal): AsyncGenerator<ChatResponse, void, undefined> {
    const index = this.aborted.push(false) - 1
    try {
      yield* this.#scripted.stream(prompt, signal)
    } catch (error) {
      if (isAbortError(error)) this.aborted[index] = true
      throw error
    }
  }
}

/** Every state a listener heard, in order. */
function watch<Tools, Output>(chat: Chat<Tools, Output>) {
  const states: ChatState<Tools, Output>[] = []
  const unsubscribe = chat.subscribe((state) => states.push(state))
  return { states, unsubscribe }
}

/** Resolves once the chat's state passes `test` (checked on every change). */
function until<Tools, Output>(chat: Chat<Tools, Output>, test: (state: ChatState<Tools, Output>) => boolean) {
  return new Promise<void>((resolve) => {
    if (test(chat.getSnapshot())) return resolve()
    const unsubscribe = chat.subscribe((state) => {
      if (!test(state)) return
      unsubscribe()
      resolve()
    })
  })
}

const texts = (state: ChatState) => state.messages.map(({ role, text, problem }) => ({ role, text, problem }))
const slowly = (text: string, delayMs = 5): ScriptStep => ({ text, chunks: text.match(/[^]{1,4}/g)!, delayMs })

describe('the chat object without a UI framework', () => {
  it('getSnapshot gives the state; a subscriber hears each change, and the snapshot stays the same object between them', async () => {
    const chat = createChat(ChatClient.create(new ScriptedChatModel([slowly('One two three four')])))
    const { states } = watch(chat)
    const idle = chat.getSnapshot()
    expect(idle).toMatchObject({
      status: 'idle',
      messages: [],
      object: undefined,
      error: undefined,
      pendingTurn: false,
    })
    expect(chat.getSnapshot()).toBe(idle)
    await chat.send('Count')
    expect(chat.getSnapshot()).toBe(states.at(-1))
    expect(texts(chat.getSnapshot())).toEqual([
      { role: 'user', text: 'Count', problem: undefined },
      { role: 'assistant', text: 'One two three four', problem: undefined },
    ])
    expect([...new Set(states.map((state) => state.status))]).toEqual(['streaming', 'idle'])
    const answers = states.map((state) => state.messages[1]?.text ?? '').filter((text, i, all) => text !== all[i - 1])
    expect(answers.length).toBeGreaterThan(2)
    for (const text of answers) expect('One two three four'.startsWith(text)).toBe(true)
  })

  it('an unsubscribed listener hears nothing more', async () => {
    const chat = createChat(ChatClient.create(new ScriptedChatModel(['Hi.', 'Again.'])))
    const first = watch(chat)
    const second = watch(chat)
    await chat.send('a')
    first.unsubscribe()
    const heard = first.states.length
    await chat.send('b')
    expect(first.states).toHaveLength(heard)
    expect(second.states.at(-1)!.messages.at(-1)!.text).toBe('Again.')
  })

  it('stop() ends the answer where it is: the request is aborted, the bubble keeps its text and says it stopped', async () => {
    const model = new AbortWatchingModel([slowly('a b c d e f g h i j k l m n o p', 20)])
    const chat = createChat(ChatClient.create(model))
    watch(chat)
    const sent = chat.send('Go')
    await until(chat, (state) => (state.messages[1]?.text.length ?? 0) > 0)
    chat.stop()
    await sent
    const { status, messages } = chat.getSnapshot()
    expect(status).toBe('idle')
    expect(messages[1]).toMatchObject({ pending: false, problem: 'Stopped.' })
    expect('a b c d e f g h i j k l m n o p'.startsWith(messages[1]!.text)).toBe(true)
    expect(messages[1]!.text.length).toBeLessThan(31)
    expect(model.aborted).toEqual([true])
  })

  it('retry() asks the failed question again and its answer replaces the failed one', async () => {
    let calls = 0
    const model = new ScriptedChatModel(() => {
      if (calls++ === 0) throw new Error('The model is down')
      return 'Up again.'
    })
    const chat = createChat(ChatClient.create(model))
    await chat.send('Status?')
    expect(chat.getSnapshot()).toMatchObject({ status: 'error', error: { message: 'The model is down' } })
    await chat.retry()
    expect(chat.getSnapshot()).toMatchObject({ status: 'idle', error: undefined })
    expect(texts(chat.getSnapshot())).toEqual([
      { role: 'user', text: 'Status?', problem: undefined },
      { role: 'assistant', text: 'Up again.', problem: undefined },
    ])
  })

  it('regenerate() replaces a good answer, and memory holds the turn once', async () => {
    const memory = MessageWindowChatMemory.builder().build()
    const model = new ScriptedChatModel(['First take.', 'Second take.'])
    const client = ChatClient.builder(model).defaultAdvisors(MessageChatMemoryAdvisor.builder(memory).build()).build()
    const chat = createChat(client, { memory, conversationId: 'c' })
    await chat.send('Tell me')
    await chat.regenerate()
    expect(chat.getSnapshot().messages.map((bubble) => bubble.text)).toEqual(['Tell me', 'Second take.'])
    expect((await memory.get('c')).map((message) => ('text' in message ? message.text : message.role))).toEqual([
      'Tell me',
      'Second take.',
    ])
  })

  it('addToolApproval() answers the call that waits: awaiting-approval, then running-tools, then the answer', async () => {
    const approvals = new ApprovalQueue()
    const ran: string[] = []
    const weather = defineTool({
      name: 'weather',
      description: 'Weather in a city',
      inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } as const,
      execute: ({ city }) => (ran.push(city), `sunny in ${city}`),
    })
    const model = new ScriptedChatModel([
      { text: 'Checking.', toolCalls: [{ id: 'w1', name: 'weather', arguments: { city: 'Oslo' } }] },
      'Sunny.',
    ])
    const approval = ToolApprovalAdvisor.builder().handler(approvals.handler).policy('weather', 'always').build()
    const client = ChatClient.builder(model).defaultTools(weather).defaultAdvisors(approval).build()
    const chat = createChat<typeof weather>(client, { approvals })
    const { states } = watch(chat)
    const sent = chat.send('Weather in Oslo?')
    await until(chat, (state) => state.status === 'awaiting-approval')
    expect(chat.getSnapshot().messages[1]!.parts[1]).toMatchObject({ id: 'w1', state: 'awaiting-approval' })
    chat.addToolApproval({ id: 'w1', approved: true })
    await sent
    expect(ran).toEqual(['Oslo'])
    expect([...new Set(states.map((state) => state.status))]).toEqual([
      'streaming',
      'awaiting-approval',
      'running-tools',
      'idle',
    ])
    expect(chat.getSnapshot().messages[1]!.parts[1]).toMatchObject({ state: 'done', approval: 'approved' })
    expect(() => chat.addToolApproval({ id: 'w1', approved: true })).toThrow(
      "No approval is waiting for tool call 'w1'",
    )
  })

  it('a bubble, a part and the tool call views that did not change keep their identity from one state to the next', async () => {
    const lookup = defineTool({
      name: 'lookup',
      description: 'd',
      inputSchema: { type: 'object' },
      execute: () => 'ok',
    })
    const model = new ScriptedChatModel([
      'Earlier answer.',
      { text: 'Looking.', toolCalls: [{ id: 'l1', name: 'lookup' }] },
      slowly('Found it and more text after'),
    ])
    const chat = createChat(ChatClient.builder(model).defaultTools(lookup).build())
    await chat.send('earlier')
    const { states } = watch(chat)
    await chat.send('now')
    const earlier = states[0]!.messages.slice(0, 2)
    for (const state of states) expect(state.messages.slice(0, 2)).toEqual(earlier)
    for (const state of states) state.messages.slice(0, 2).forEach((bubble, i) => expect(bubble).toBe(earlier[i]))
    // While the last round's text streams, the round before it (its text, its call) and the call views stay as they were.
    const lastRound = states.filter((state) => state.messages[3]!.parts.length === 3 && state.status === 'streaming')
    expect(lastRound.length).toBeGreaterThan(2)
    for (const state of lastRound) {
      const [text, call] = state.messages[3]!.parts
      expect(text).toBe(lastRound[0]!.messages[3]!.parts[0])
      expect(call).toBe(lastRound[0]!.messages[3]!.parts[1])
      expect(state.messages[3]!.toolCalls).toBe(lastRound[0]!.messages[3]!.toolCalls)
    }
    expect(chat.getSnapshot().messages[3]).toMatchObject({
      text: 'Looking.\n\nFound it and more text after',
      toolCalls: [{ id: 'l1', name: 'lookup', status: 'done', result: 'ok' }],
    })
  })

  it('with output: object fills in as the answer streams, then is the validated value', async () => {
    const trip = z.object({ city: z.string(), days: z.array(z.string()) })
    const answer = JSON.stringify({ city: 'Lisbon', days: ['Alfama', 'Belém'] })
    const chat = createChat(ChatClient.create(new ScriptedChatModel([slowly(answer, 1)])), { output: trip })
    const { states } = watch(chat)
    await chat.send('Plan Lisbon')
    const objects = states.map((state) => state.object).filter((object, i, all) => object !== all[i - 1])
    expect(objects).toContainEqual({ city: 'Lisbon', days: ['Alfama'] })
    expect(chat.getSnapshot().object).toEqual(JSON.parse(answer))
  })

  it('restores the conversation from memory when first subscribed, and a send made while it loads waits for it', async () => {
    const memory = MessageWindowChatMemory.builder().build()
    await memory.add('c', [
      { role: 'user', text: 'earlier' },
      { role: 'assistant', text: 'Earlier answer.', toolCalls: [] },
    ])
    const model = new ScriptedChatModel(['Next answer.'])
    const client = ChatClient.builder(model).defaultAdvisors(MessageChatMemoryAdvisor.builder(memory).build()).build()
    const chat = createChat(client, { memory, conversationId: 'c' })
    expect(chat.getSnapshot().status).toBe('loading')
    watch(chat)
    await chat.send('next')
    expect(chat.getSnapshot().messages.map((bubble) => bubble.text)).toEqual([
      'earlier',
      'Earlier answer.',
      'next',
      'Next answer.',
    ])
    expect(model.prompts[0]!.messages.map((message) => ('text' in message ? message.text : message.role))).toEqual([
      'earlier',
      'Earlier answer.',
      'next',
    ])
  })

  it('when the last subscriber leaves, the answer stops and commands do nothing until one subscribes again', async () => {
    const model = new AbortWatchingModel([slowly('a b c d e f g h i j k l m n o p', 20), 'Back.'])
    const chat = createChat(ChatClient.create(model))
    const { unsubscribe } = watch(chat)
    const sent = chat.send('Go')
    await until(chat, (state) => (state.messages[1]?.text.length ?? 0) > 0)
    unsubscribe()
    await sent
    expect(model.aborted).toEqual([true])
    await chat.send('Ignored')
    expect(model.prompts).toHaveLength(1)
    watch(chat)
    await chat.send('Again')
    expect(chat.getSnapshot().messages.at(-1)!.text).toBe('Back.')
  })
})

describe('a chat finds memory and approvals on its client', () => {
  const payTool = (paid: number[]) =>
    defineTool({
      name: 'pay',
      description: 'Pays an amount',
      inputSchema: { type: 'object', properties: { amount: { type: 'number' } }, required: ['amount'] } as const,
      needsApproval: true,
      execute: ({ amount }) => (paid.push(amount), `paid ${amount}`),
    })
  const askToPay = { toolCalls: [{ id: 'p1', name: 'pay', arguments: { amount: 5 } }] }

  it('asks about a tool that needsApproval with no ToolApprovalAdvisor and no queue given, and runs it once approved', async () => {
    const paid: number[] = []
    const client = ChatClient.builder(new ScriptedChatModel([askToPay, 'Paid.']))
      .defaultTools(payTool(paid))
      .build()
    const chat = createChat(client)
    watch(chat)
    const sent = chat.send('Pay 5')
    await until(chat, (state) => state.status === 'awaiting-approval')
    expect(paid).toEqual([])
    chat.addToolApproval({ id: 'p1', approved: true })
    await sent
    expect(paid).toEqual([5])
    expect(chat.getSnapshot().messages[1]!.parts[0]).toMatchObject({ state: 'done', approval: 'approved' })
  })

  it("answers the queue of the client's own ToolApprovalAdvisor", async () => {
    const queue = new ApprovalQueue()
    const client = ChatClient.builder(new ScriptedChatModel([askToPay, 'Paid.']))
      .defaultTools(payTool([]))
      .defaultAdvisors(ToolApprovalAdvisor.builder().handler(queue.handler).build())
      .build()
    const chat = createChat(client)
    watch(chat)
    const sent = chat.send('Pay 5')
    await until(chat, (state) => state.status === 'awaiting-approval')
    expect(queue.pending()).toHaveLength(1)
    chat.addToolApproval({ id: 'p1', approved: true })
    await sent
    expect(queue.pending()).toHaveLength(0)
  })

  it("restores the conversation from the memory of the client's memory advisor", async () => {
    const memory = MessageWindowChatMemory.builder().build()
    const client = ChatClient.builder(new ScriptedChatModel(['Hello.', 'Again.']))
      .defaultAdvisors(MessageChatMemoryAdvisor.builder(memory).build())
      .build()
    const first = createChat(client)
    watch(first)
    await first.send('Hi')
    const reloaded = createChat(client)
    watch(reloaded)
    await until(reloaded, (state) => state.status === 'idle')
    expect(reloaded.memory).toBe(memory)
    expect(texts(reloaded.getSnapshot()).map((bubble) => bubble.text)).toEqual(['Hi', 'Hello.'])
  })

  it('shows the tool cards again after a reload with memory at its default place, outside the loop', async () => {
    const memory = MessageWindowChatMemory.builder().build()
    const weather = defineTool({ name: 'w', description: 'd', inputSchema: { type: 'object' }, execute: () => 'sunny' })
    const client = ChatClient.builder(
      new ScriptedChatModel([{ text: 'Looking.', toolCalls: [{ id: 'c1', name: 'w', arguments: {} }] }, 'Sunny.']),
    )
      .defaultTools(weather)
      .defaultAdvisors(MessageChatMemoryAdvisor.builder(memory).build())
      .build()
    const chat = createChat(client)
    watch(chat)
    await chat.send('Weather?')
    const reloaded = createChat(client)
    watch(reloaded)
    await until(reloaded, (state) => state.status === 'idle')
    expect(reloaded.getSnapshot().messages[1]!.parts).toMatchObject([
      { type: 'text', text: 'Looking.' },
      { type: 'tool-call', id: 'c1', state: 'done', result: 'sunny' },
      { type: 'text', text: 'Sunny.' },
    ])
  })

  it("shows a denied call with the user's words, not what the model was told, live and after a reload", async () => {
    const memory = MessageWindowChatMemory.builder().build()
    const model = new ScriptedChatModel([askToPay, 'Not paid.'])
    const client = ChatClient.builder(model)
      .defaultTools(payTool([]))
      .defaultAdvisors(MessageChatMemoryAdvisor.builder(memory).build())
      .build()
    const chat = createChat(client)
    watch(chat)
    const sent = chat.send('Pay 5')
    await until(chat, (state) => state.status === 'awaiting-approval')
    chat.addToolApproval({ id: 'p1', approved: false, reason: 'not today' })
    await sent
    const denied = { state: 'denied', approval: 'rejected', reason: 'not today' }
    const live = chat.getSnapshot().messages[1]!.parts[0]
    expect(live).toMatchObject(denied)
    expect(live).not.toHaveProperty('result')
    expect(JSON.stringify(model.prompts[1]!.messages.at(-1))).toContain('Do not try it again')
    const reloaded = createChat(client)
    watch(reloaded)
    await until(reloaded, (state) => state.status === 'idle')
    const restored = reloaded.getSnapshot().messages[1]!.parts[0]
    expect(restored).toMatchObject(denied)
    expect(restored).not.toHaveProperty('result')
  })
})

describe('which model answered', () => {
  it('is on each answer, with the escalation when a round left the client’s model', async () => {
    const { EscalationAdvisor } = await import('../../advisors')
    const { ChatModelError } = await import('../../models')
    const local = new ScriptedChatModel(
      [
        'On the device.',
        { error: new ChatModelError('no GPU', { provider: 'webllm', code: 'unavailable', retryable: false }) },
      ],
      { model: 'Qwen-0.5B' },
    )
    const remote = new ScriptedChatModel(['From the server.'], { model: 'gpt-remote' })
    const client = ChatClient.builder(local).defaultAdvisors(EscalationAdvisor.builder(remote).build()).build()
    const chat = createChat(client)
    watch(chat)
    await chat.send('First')
    await chat.send('Second')
    const [, first, , second] = chat.getSnapshot().messages
    expect(first).toMatchObject({ text: 'On the device.', model: 'Qwen-0.5B' })
    expect(first).not.toHaveProperty('escalation')
    expect(second).toMatchObject({
      text: 'From the server.',
      model: 'gpt-remote',
      escalation: { from: 'Qwen-0.5B', to: 'gpt-remote', reason: 'unavailable' },
    })
  })
})
