import { afterEach, describe, expect, it } from 'vitest'
import { ApprovalQueue, MessageChatMemoryAdvisor, ToolApprovalAdvisor } from '../advisors'
import { ChatClient } from '../client'
import { HIGHEST_PRECEDENCE, type AnyAdvisor, type Message, type Prompt, type ToolCallback } from '../core'
import { IndexedDBChatMemoryRepository, MessageWindowChatMemory, type ChatMemory } from '../memory'
import type { ScriptStep } from '../models'
import { defineTool } from '../tools'
import type { ChatMessageView } from '../client'
import { mount, statusesSince, unmountAll, type Probe } from './testing/chat-probe'
import type { UseChat } from './use-chat'
import { WatchedModel } from './testing/watched-model'

const closers: Array<() => Promise<void>> = []
afterEach(async () => {
  unmountAll()
  await Promise.all(closers.splice(0).map((close) => close()))
})

/** A long answer, a word every 20 ms: still streaming when the test acts on it. */
const long = (label: string): ScriptStep => ({
  text: Array.from({ length: 60 }, (_, index) => `${label}${index}`).join(' '),
  delayMs: 20,
})

const questionOf = (prompt: Prompt) => prompt.messages.findLast((message) => message.role === 'user')?.text ?? ''

/** A model that answers each question by its text: the listed ones as given, any other with "Answer to <question>." in a few chunks. */
const answering = (replies: Record<string, ScriptStep> = {}) =>
  new WatchedModel((prompt) => replies[questionOf(prompt)] ?? { text: `Answer to ${questionOf(prompt)}.`, delayMs: 10 })

const bubbles = (messages: ChatMessageView[]) =>
  messages.map(({ role, text, problem }) => ({ role, text, ...(problem ? { problem } : {}) }))

/** Memory as a test reads it: one line per message. */
const transcript = (messages: readonly Message[]) =>
  messages.map((message) =>
    message.role === 'tool'
      ? `tool: ${message.responses.map((response) => response.responseData).join(', ')}`
      : message.role === 'assistant' && message.toolCalls.length > 0
        ? `assistant: ${message.text} [${message.toolCalls.map((call) => call.id).join(', ')}]`
        : `${message.role}: ${message.text}`,
  )

let databases = 0

/**
 * Chat memory in IndexedDB, as a page keeps it, in a database of its own, behind an async layer
 * of the app's (one that logs or syncs, say): each call takes a few more steps, as it would there.
 */
function indexedDbMemory(): ChatMemory {
  const repository = new IndexedDBChatMemoryRepository({
    databaseName: `use-chat-answers-${databases++}-${Date.now()}`,
  })
  closers.push(() => repository.close())
  const memory = MessageWindowChatMemory.builder().chatMemoryRepository(repository).maxMessages(40).build()
  return {
    get: async (id) => await memory.get(id),
    add: async (id, messages) => await memory.add(id, messages),
    clear: async (id) => await memory.clear(id),
  }
}

const placements = [
  { where: 'outside the loop', order: MessageChatMemoryAdvisor.DEFAULT_ORDER },
  { where: 'inside the loop', order: HIGHEST_PRECEDENCE + 350 },
]

/** A client on the model, with its memory advisor at `order` when given memory. */
function clientOf(
  model: WatchedModel,
  {
    memory,
    order,
    tools = [],
    advisors = [],
  }: { memory?: ChatMemory; order?: number; tools?: ToolCallback[]; advisors?: AnyAdvisor[] } = {},
): ChatClient {
  const memoryAdvisors = memory
    ? [
        MessageChatMemoryAdvisor.builder(memory)
          .order(order ?? MessageChatMemoryAdvisor.DEFAULT_ORDER)
          .build(),
      ]
    : []
  return ChatClient.builder(model)
    .defaultTools(...tools)
    .defaultAdvisors(...memoryAdvisors, ...advisors)
    .build()
}

/** A weather tool that keeps each run's city and signal, and answers once `release` settles (or fails on abort). */
function weatherTool(release: Promise<void> = Promise.resolve()) {
  const runs: Array<{ city: string; signal: AbortSignal | undefined }> = []
  const tool = defineTool({
    name: 'weather',
    description: 'Weather in a city',
    inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } as const,
    execute: async ({ city }, { signal }) => {
      runs.push({ city, signal })
      await Promise.race([
        release,
        new Promise((_, reject) =>
          signal?.addEventListener('abort', () => reject(new DOMException('Stopped', 'AbortError'))),
        ),
      ])
      return `sunny in ${city}`
    },
  })
  return { tool, runs }
}

const weatherCall = (id: string, text = 'Checking.'): ScriptStep => ({
  text,
  toolCalls: [{ id, name: 'weather', arguments: { city: 'Oslo' } }],
  delayMs: 5,
})

/** An approval queue that remembers every list of pending calls it ever showed. */
function watchedApprovals() {
  const approvals = new ApprovalQueue()
  const shown: string[][] = []
  approvals.subscribe(() => shown.push(approvals.pending().map((approval) => approval.toolCall.id)))
  return { approvals, shown }
}

/** The bubbles that showed a tool call waiting for approval in a render since `mark`. */
const waitingBubbles = (probe: Probe, mark: number) => [
  ...new Set(
    probe.renders
      .slice(mark)
      .flatMap(({ messages }) =>
        messages.filter((bubble) =>
          bubble.parts.some((part) => part.type === 'tool-call' && part.state === 'awaiting-approval'),
        ),
      )
      .map((bubble) => bubble.id),
  ),
]

/** Waits until what the screen shows is settled: no answer pending, the status idle (a no-op once unmounted). */
async function settled(chat: () => UseChat, unmounted: boolean): Promise<void> {
  if (unmounted) return
  await expect.poll(() => chat().status === 'idle' && chat().messages.every((bubble) => !bubble.pending)).toBe(true)
}

const streamed = (chat: () => { messages: ChatMessageView[] }, index: number) => chat().messages[index]?.text ?? ''

const memoryCases = [
  { where: 'without memory', order: undefined },
  ...placements.map(({ where, order }) => ({ where: `with memory ${where}`, order })),
]

/** The hook's options and client for a case: memory in IndexedDB at the case's order, or none. */
function setUp(
  model: WatchedModel,
  order: number | undefined,
  extra: { tools?: ToolCallback[]; advisors?: AnyAdvisor[] } = {},
) {
  const memory = order === undefined ? undefined : indexedDbMemory()
  const client = clientOf(model, { ...(memory ? { memory, order } : {}), ...extra })
  return { memory, client, options: memory ? { memory, conversationId: 'c' } : {} }
}

describe('useChat: a new answer stops the one before', () => {
  it('send() while an answer streams: the first stops where it was, the second streams to its end, and no render between shows idle', async () => {
    const model = answering({ first: long('a') })
    const { probe, chat } = await mount(clientOf(model))
    const first = chat().send('first')
    await expect.poll(() => streamed(chat, 1)).toMatch(/^a0 /)
    const mark = probe.renders.length
    const second = chat().send('second')
    await Promise.all([first, second])
    await expect.poll(() => chat().messages[3]?.pending).toBe(false)
    expect(statusesSince(probe, mark)).toEqual(['streaming', 'idle'])
    const [, stopped] = chat().messages
    expect(stopped).toMatchObject({ pending: false, problem: 'Stopped.' })
    expect((long('a') as { text: string }).text.startsWith(stopped!.text)).toBe(true)
    expect(bubbles(chat().messages).slice(2)).toEqual([
      { role: 'user', text: 'second' },
      { role: 'assistant', text: 'Answer to second.' },
    ])
    expect(model.requests.map(({ question, ended }) => [question, ended])).toEqual([
      ['first', 'aborted'],
      ['second', 'answered'],
    ])
    expect(model.requests[0]!.signal?.aborted).toBe(true)
    expect(chat().error).toBeUndefined()
  })

  it('send() twice in the same tick: the first is stopped before anything arrives, the second streams', async () => {
    const model = answering()
    const { probe, chat } = await mount(clientOf(model))
    const mark = probe.renders.length
    await Promise.all([chat().send('first'), chat().send('second')])
    await expect.poll(() => chat().messages[3]?.pending).toBe(false)
    expect(statusesSince(probe, mark)).toEqual(['streaming', 'idle'])
    expect(bubbles(chat().messages)).toEqual([
      { role: 'user', text: 'first' },
      { role: 'assistant', text: '', problem: 'Stopped.' },
      { role: 'user', text: 'second' },
      { role: 'assistant', text: 'Answer to second.' },
    ])
    // The first answer may not have reached the model; if it did, its request was cancelled.
    for (const request of model.requests.filter(({ question }) => question === 'first')) {
      expect(request.signal?.aborted).toBe(true)
    }
    expect(model.requests.at(-1)).toMatchObject({ question: 'second', ended: 'answered' })
  })

  it('stop() then send() in the same tick: the new answer streams, and no render after them shows idle before it ends', async () => {
    const model = answering({ first: long('a') })
    const { probe, chat } = await mount(clientOf(model))
    const first = chat().send('first')
    await expect.poll(() => streamed(chat, 1)).toMatch(/^a0 /)
    const mark = probe.renders.length
    chat().stop()
    const second = chat().send('second')
    await Promise.all([first, second])
    await expect.poll(() => chat().messages[3]?.pending).toBe(false)
    expect(statusesSince(probe, mark)).toEqual(['streaming', 'idle'])
    expect(chat().messages[1]).toMatchObject({ pending: false, problem: 'Stopped.' })
    expect(chat().messages[3]).toMatchObject({ text: 'Answer to second.' })
    expect(model.requests[0]).toMatchObject({ question: 'first', ended: 'aborted' })
  })

  it('send() then stop() in the same tick: nothing streams and the request, if made, is cancelled', async () => {
    const model = answering({ first: long('a') })
    const { probe, chat } = await mount(clientOf(model))
    const mark = probe.renders.length
    const first = chat().send('first')
    chat().stop()
    await first
    await expect.poll(() => chat().messages[1]?.problem).toBe('Stopped.')
    expect(statusesSince(probe, mark)).toEqual(['idle'])
    expect(bubbles(chat().messages)).toEqual([
      { role: 'user', text: 'first' },
      { role: 'assistant', text: '', problem: 'Stopped.' },
    ])
    for (const request of model.requests) expect(request.signal?.aborted).toBe(true)
  })

  it('a replaced answer never changes once the new one began: no late chunk reaches its bubble', async () => {
    const model = answering({ first: long('a') })
    const { probe, chat } = await mount(clientOf(model))
    const first = chat().send('first')
    await expect.poll(() => streamed(chat, 1)).toMatch(/^a0 a1 /)
    const second = chat().send('second')
    await Promise.all([first, second])
    await expect.poll(() => chat().messages[3]?.pending).toBe(false)
    const afterSecond = probe.renders.filter(({ messages }) => messages.length === 4)
    expect(new Set(afterSecond.map(({ messages }) => messages[1]!.text)).size).toBe(1)
  })

  it.each(placements)(
    'send() while an answer streams, with memory $where: memory holds the stopped question once, then the new turn',
    async ({ order }) => {
      const model = answering({ first: long('a') })
      const { memory, client, options } = setUp(model, order)
      const { chat } = await mount(client, options)
      await expect.poll(() => chat().status).toBe('idle')
      const first = chat().send('first')
      await expect.poll(() => streamed(chat, 1)).toMatch(/^a0 /)
      await Promise.all([first, chat().send('second')])
      await expect.poll(() => chat().messages[3]).toMatchObject({ text: 'Answer to second.', pending: false })
      expect(transcript(await memory!.get('c'))).toEqual([
        'user: first',
        'user: second',
        'assistant: Answer to second.',
      ])
      expect(model.requests[0]).toMatchObject({ question: 'first', ended: 'aborted' })
    },
  )

  it('stop() when nothing runs changes nothing: a failed answer keeps its error', async () => {
    const model = new WatchedModel([{ text: 'Half an answer', error: 'The model is overloaded', failAfterChunks: 1 }])
    const { probe, chat, rerender } = await mount(clientOf(model))
    await chat().send('q')
    await expect.poll(() => chat().status).toBe('error')
    const mark = probe.renders.length
    chat().stop()
    // Rendered again for another reason: whatever stop() changed shows in this render.
    rerender({})
    await expect.poll(() => probe.renders.length).toBeGreaterThan(mark)
    expect(statusesSince(probe, mark)).toEqual(['error'])
    expect(chat().error?.message).toBe('The model is overloaded')
    expect(chat().messages[1]).toMatchObject({ problem: 'The model is overloaded' })
  })
})

describe('useChat: retry() and regenerate() stop what runs first', () => {
  it.each(['retry', 'regenerate'] as const)(
    '%s() while an answer streams asks the same question again, once, in one answer bubble',
    async (action) => {
      const model = new WatchedModel([long('a'), { text: 'Asked again.', delayMs: 10 }])
      const { probe, chat } = await mount(clientOf(model))
      const first = chat().send('q')
      await expect.poll(() => streamed(chat, 1)).toMatch(/^a0 /)
      const mark = probe.renders.length
      await Promise.all([first, chat()[action]()])
      await expect.poll(() => chat().messages[1]).toMatchObject({ text: 'Asked again.', pending: false })
      expect(statusesSince(probe, mark)).toEqual(['streaming', 'idle'])
      expect(bubbles(chat().messages)).toEqual([
        { role: 'user', text: 'q' },
        { role: 'assistant', text: 'Asked again.' },
      ])
      expect(model.requests.map(({ question, ended }) => [question, ended])).toEqual([
        ['q', 'aborted'],
        ['q', 'answered'],
      ])
      expect(model.prompts[1]!.messages).toEqual([{ role: 'user', text: 'q' }])
    },
  )

  describe.each(placements)('with memory $where', ({ order }) => {
    it.each(['retry', 'regenerate'] as const)(
      '%s() while an answer streams leaves each message in memory once',
      async (action) => {
        const model = new WatchedModel(['Earlier answer.', long('a'), 'Again.'])
        const { memory, client, options } = setUp(model, order)
        const { chat } = await mount(client, options)
        await expect.poll(() => chat().status).toBe('idle')
        await chat().send('earlier')
        await expect.poll(() => chat().messages[1]?.pending).toBe(false)
        const second = chat().send('q')
        await expect.poll(() => streamed(chat, 3)).toMatch(/^a0 /)
        await Promise.all([second, chat()[action]()])
        await expect.poll(() => chat().messages[3]).toMatchObject({ text: 'Again.', pending: false })
        expect(transcript(await memory!.get('c'))).toEqual([
          'user: earlier',
          'assistant: Earlier answer.',
          'user: q',
          'assistant: Again.',
        ])
        expect(transcript(model.prompts[2]!.messages)).toEqual([
          'user: earlier',
          'assistant: Earlier answer.',
          'user: q',
        ])
      },
    )

    it('regenerate() then send() in the same tick: memory holds the earlier turn and the new one, once', async () => {
      const model = answering({ q: 'First answer to q.' })
      const { memory, client, options } = setUp(model, order)
      const { chat } = await mount(client, options)
      await expect.poll(() => chat().status).toBe('idle')
      await chat().send('earlier')
      await chat().send('q')
      await expect.poll(() => chat().messages[3]?.pending).toBe(false)
      await Promise.all([chat().regenerate(), chat().send('next')])
      await expect.poll(() => chat().messages.at(-1)).toMatchObject({ text: 'Answer to next.', pending: false })
      expect(transcript(await memory!.get('c'))).toEqual([
        'user: earlier',
        'assistant: Answer to earlier.',
        'user: next',
        'assistant: Answer to next.',
      ])
    })

    it('regenerate() twice in the same tick asks again once, and memory holds each message once', async () => {
      const model = answering({ q: 'First answer to q.' })
      const { memory, client, options } = setUp(model, order)
      const { chat } = await mount(client, options)
      await expect.poll(() => chat().status).toBe('idle')
      await chat().send('earlier')
      await chat().send('q')
      await expect.poll(() => chat().messages[3]?.pending).toBe(false)
      const asked = model.requests.length
      await Promise.all([chat().regenerate(), chat().regenerate()])
      await expect.poll(() => chat().messages[3]).toMatchObject({ text: 'First answer to q.', pending: false })
      expect(chat().messages).toHaveLength(4)
      expect(model.requests.slice(asked).map(({ question, ended }) => [question, ended])).toEqual([['q', 'answered']])
      expect(transcript(await memory!.get('c'))).toEqual([
        'user: earlier',
        'assistant: Answer to earlier.',
        'user: q',
        'assistant: First answer to q.',
      ])
    })
  })

  it('regenerate() while a tool call waits for approval (memory inside the loop, an earlier turn stored): the stale approval is withdrawn, the tool runs once, memory holds each message once', async () => {
    const { approvals, shown } = watchedApprovals()
    const weather = weatherTool()
    const model = new WatchedModel([
      'Earlier answer.',
      weatherCall('w1'),
      weatherCall('w1', 'Checking again.'),
      'Sunny in Oslo.',
    ])
    const approval = ToolApprovalAdvisor.builder().handler(approvals.handler).policy('weather', 'always').build()
    const { memory, client, options } = setUp(model, HIGHEST_PRECEDENCE + 350, {
      tools: [weather.tool],
      advisors: [approval],
    })
    const { probe, chat } = await mount(client, { ...options, approvals })
    await expect.poll(() => chat().status).toBe('idle')
    await chat().send('earlier')
    await expect.poll(() => chat().messages[1]?.pending).toBe(false)
    const asked = chat().send('Weather in Oslo?')
    await expect.poll(() => waitingBubbles(probe, 0)).toHaveLength(1)
    const mark = probe.renders.length
    const again = chat().regenerate()
    expect(approvals.pending()).toEqual([])
    await expect.poll(() => approvals.pending().map((pending) => pending.toolCall.id)).toEqual(['w1'])
    // Answered once the screen shows it waiting (answered sooner, React may never commit that render).
    await expect.poll(() => waitingBubbles(probe, mark)).toHaveLength(1)
    chat().addToolApproval({ id: 'w1', approved: true })
    await Promise.all([asked, again])
    await expect
      .poll(() => chat().messages[3])
      .toMatchObject({ text: 'Checking again.\n\nSunny in Oslo.', pending: false })
    // The model reused the call's id: only the new answer's bubble ever showed it waiting.
    expect(waitingBubbles(probe, mark)).toEqual([chat().messages[3]!.id])
    expect(shown.every((ids) => ids.length <= 1)).toBe(true)
    expect(weather.runs.map(({ city }) => city)).toEqual(['Oslo'])
    expect(model.requests[1]!.signal?.aborted).toBe(true)
    expect(transcript(await memory!.get('c'))).toEqual([
      'user: earlier',
      'assistant: Earlier answer.',
      'user: Weather in Oslo?',
      'assistant: Checking again. [w1]',
      'tool: sunny in Oslo',
      'assistant: Sunny in Oslo.',
    ])
  })
})

/** What a test can do to an answer in flight, each a way to abandon it. */
const abandoning: Record<string, (chat: UseChat, unmount: () => void) => unknown> = {
  'stop()': (chat) => chat.stop(),
  'send()': (chat) => chat.send('next'),
  'retry()': (chat) => chat.retry(),
  'regenerate()': (chat) => chat.regenerate(),
  'clear()': (chat) => chat.clear(),
  unmounting: (_chat, unmount) => unmount(),
}

describe('useChat: an abandoned answer leaves nothing running', () => {
  it.each(Object.entries(abandoning))(
    '%s while a tool call waits for approval withdraws the approval, and its tool never runs',
    async (name, act) => {
      const { approvals, shown } = watchedApprovals()
      const weather = weatherTool()
      const model = new WatchedModel([weatherCall('w1'), 'Plain answer.'])
      const approval = ToolApprovalAdvisor.builder().handler(approvals.handler).policy('weather', 'always').build()
      const { probe, chat, unmount } = await mount(clientOf(model, { tools: [weather.tool], advisors: [approval] }), {
        approvals,
      })
      const asked = chat().send('Weather?')
      await expect.poll(() => waitingBubbles(probe, 0)).toHaveLength(1)
      const [mark, shownMark] = [probe.renders.length, shown.length]
      const acted = act(chat(), unmount)
      expect(approvals.pending()).toEqual([])
      await Promise.all([asked, acted])
      await settled(chat, name === 'unmounting')
      expect(model.requests[0]!.signal?.aborted).toBe(true)
      expect(waitingBubbles(probe, mark)).toEqual([])
      expect(shown.slice(shownMark).flat()).not.toContain('w1')
      expect(weather.runs).toEqual([])
      expect(model.prompts.some((prompt) => prompt.messages.some((message) => message.role === 'tool'))).toBe(false)
    },
  )

  it.each(Object.entries(abandoning))(
    '%s while a tool runs aborts the tool, and the model never hears its result',
    async (name, act) => {
      const weather = weatherTool(new Promise(() => {}))
      const model = new WatchedModel([weatherCall('w1'), 'Plain answer.'])
      const { probe, chat, unmount } = await mount(clientOf(model, { tools: [weather.tool] }))
      const asked = chat().send('Weather?')
      await expect.poll(() => chat().status).toBe('running-tools')
      const mark = probe.renders.length
      await Promise.all([asked, act(chat(), unmount)])
      await settled(chat, name === 'unmounting')
      await expect.poll(() => weather.runs[0]?.signal?.aborted).toBe(true)
      expect(weather.runs).toHaveLength(1)
      expect(model.prompts.some((prompt) => prompt.messages.some((message) => message.role === 'tool'))).toBe(false)
      const running = probe.renders
        .slice(mark)
        .some(
          ({ status, messages }) =>
            status === 'running-tools' ||
            messages.some((bubble) =>
              bubble.parts.some((part) => part.type === 'tool-call' && part.state === 'running'),
            ),
        )
      expect(running).toBe(false)
      if (name === 'stop()' || name === 'send()') {
        expect(chat().messages[1]!.parts.find((part) => part.type === 'tool-call')).toMatchObject({
          id: 'w1',
          state: 'error',
          result: 'Stopped.',
        })
      }
    },
  )

  it.each(memoryCases)('unmounting while an answer streams cancels the model request ($where)', async ({ order }) => {
    const model = answering({ first: long('a') })
    const { client, options } = setUp(model, order)
    const { chat, unmount } = await mount(client, options)
    await expect.poll(() => chat().status).toBe('idle')
    const sent = chat().send('first')
    await expect.poll(() => streamed(chat, 1)).toMatch(/^a0 /)
    unmount()
    await sent
    await expect.poll(() => model.requests[0]!.ended).toBeDefined()
    expect(model.requests[0]!.ended).toBe('aborted')
    expect(model.requests[0]!.signal?.aborted).toBe(true)
  })

  it.each(placements)(
    'after unmounting mid-answer, the next mount on the same memory answers: the conversation was given back (memory $where)',
    async ({ order }) => {
      const model = answering({ first: long('a') })
      const { memory, client, options } = setUp(model, order)
      const before = await mount(client, options)
      await expect.poll(() => before.chat().status).toBe('idle')
      const sent = before.chat().send('first')
      await expect.poll(() => streamed(before.chat, 1)).toMatch(/^a0 /)
      before.unmount()
      await sent
      const after = await mount(client, options)
      await expect.poll(() => after.chat().messages.map(({ text }) => text)).toEqual(['first'])
      await after.chat().send('second')
      await expect.poll(() => after.chat().messages.at(-1)).toMatchObject({ text: 'Answer to second.', pending: false })
      expect(transcript(await memory!.get('c'))).toEqual([
        'user: first',
        'user: second',
        'assistant: Answer to second.',
      ])
    },
  )

  it('unmounting while a tool runs, with memory inside the loop: the tool is aborted and memory keeps no call without its response', async () => {
    const weather = weatherTool(new Promise(() => {}))
    const model = new WatchedModel([weatherCall('w1')])
    const { memory, client, options } = setUp(model, HIGHEST_PRECEDENCE + 350, { tools: [weather.tool] })
    const { chat, unmount } = await mount(client, options)
    await expect.poll(() => chat().status).toBe('idle')
    const asked = chat().send('Weather?')
    await expect.poll(() => chat().status).toBe('running-tools')
    unmount()
    await asked
    await expect.poll(() => weather.runs[0]?.signal?.aborted).toBe(true)
    // The repair after the stopped turn drops the call that has no response, and keeps the text said with it.
    await expect
      .poll(async () => transcript(await memory!.get('c')))
      .toEqual(['user: Weather?', 'assistant: Checking.'])
  })

  it('switching to another conversation stops the answer of the one before, and none of it shows in the new one', async () => {
    const model = answering({ first: long('a') })
    const { probe, chat, rerender } = await mount(clientOf(model), { conversationId: 'one' })
    const sent = chat().send('first')
    await expect.poll(() => streamed(chat, 1)).toMatch(/^a0 /)
    rerender({ conversationId: 'two' })
    await expect.poll(() => chat().messages).toEqual([])
    const mark = probe.renders.length
    await sent
    await expect.poll(() => model.requests[0]!.ended).toBe('aborted')
    expect(probe.renders.slice(mark).map(({ status, messages }) => [status, messages.length])).toEqual(
      probe.renders.slice(mark).map(() => ['idle', 0]),
    )
    expect(chat()).toMatchObject({ status: 'idle', messages: [] })
  })
})

describe('useChat: clear()', () => {
  it.each(memoryCases)(
    'clear() while an answer streams: the answer stops, nothing of it shows again, memory is empty ($where)',
    async ({ order }) => {
      const model = answering({ first: long('a') })
      const { memory, client, options } = setUp(model, order)
      const { probe, chat } = await mount(client, options)
      await expect.poll(() => chat().status).toBe('idle')
      const sent = chat().send('first')
      await expect.poll(() => streamed(chat, 1)).toMatch(/^a0 /)
      const mark = probe.renders.length
      await Promise.all([sent, chat().clear()])
      await expect.poll(() => chat().messages).toEqual([])
      await expect.poll(() => model.requests[0]!.ended).toBe('aborted')
      expect(probe.renders.slice(mark).map(({ status, messages }) => [status, messages.length])).toEqual(
        probe.renders.slice(mark).map(() => ['idle', 0]),
      )
      if (memory) expect(await memory.get('c')).toEqual([])
    },
  )

  it.each(placements)(
    'clear() then send() in the same tick: memory holds only the new turn (memory $where)',
    async ({ order }) => {
      const model = answering()
      const { memory, client, options } = setUp(model, order)
      const { chat } = await mount(client, options)
      await expect.poll(() => chat().status).toBe('idle')
      await chat().send('earlier')
      await expect.poll(() => chat().messages[1]?.pending).toBe(false)
      await Promise.all([chat().clear(), chat().send('next')])
      await expect.poll(() => chat().messages[1]).toMatchObject({ text: 'Answer to next.', pending: false })
      expect(bubbles(chat().messages)).toEqual([
        { role: 'user', text: 'next' },
        { role: 'assistant', text: 'Answer to next.' },
      ])
      expect(transcript(await memory!.get('c'))).toEqual(['user: next', 'assistant: Answer to next.'])
      expect(transcript(model.prompts.at(-1)!.messages)).toEqual(['user: next'])
    },
  )
})

/** A memory whose first read waits until the test releases it: the conversation is still loading. */
function loadingSlowly(memory: ChatMemory) {
  let release!: () => void
  const loaded = new Promise<void>((resolve) => (release = resolve))
  const slow: ChatMemory = { ...memory, get: async (id) => (await loaded, memory.get(id)) }
  return { memory: slow, release }
}

describe('useChat: actions wait for the conversation to load', () => {
  it('unmounting while a send waits for the conversation to load: the send never reaches the model', async () => {
    const model = answering()
    const { memory, release } = loadingSlowly(indexedDbMemory())
    const { chat, unmount } = await mount(clientOf(model, { memory }), { memory, conversationId: 'c' })
    expect(chat().status).toBe('loading')
    const sent = chat().send('hello')
    unmount()
    release()
    await sent
    expect(model.requests).toEqual([])
    expect(await memory.get('c')).toEqual([])
  })

  it('switching conversation while a send waits for the one before to load: the send is dropped, and nothing of it shows', async () => {
    const model = answering()
    const { memory, release } = loadingSlowly(indexedDbMemory())
    const { probe, chat, rerender } = await mount(clientOf(model, { memory }), { memory, conversationId: 'one' })
    const sent = chat().send('hello')
    rerender({ memory, conversationId: 'two' })
    release()
    await sent
    await expect.poll(() => chat().status).toBe('idle')
    expect(model.requests).toEqual([])
    expect(probe.renders.flatMap(({ messages }) => messages)).toEqual([])
  })

  it('a send kept from a render of the conversation before does nothing once the hook moved to another', async () => {
    const model = answering()
    const { chat, rerender } = await mount(clientOf(model), { conversationId: 'one' })
    const inOne = chat()
    rerender({ conversationId: 'two' })
    await expect.poll(() => chat()).not.toBe(inOne)
    await inOne.send('hello')
    expect(model.requests).toEqual([])
    expect(chat()).toMatchObject({ status: 'idle', messages: [] })
  })
})

describe('useChat in StrictMode', () => {
  it('restores the conversation once and answers a send made while it loads', async () => {
    const stored = indexedDbMemory()
    await stored.add('c', [
      { role: 'user', text: 'earlier' },
      { role: 'assistant', text: 'Earlier answer.', toolCalls: [] },
    ])
    const { memory, release } = loadingSlowly(stored)
    const model = answering()
    const { chat } = await mount(clientOf(model, { memory }), { memory, conversationId: 'c' }, { strict: true })
    expect(chat().status).toBe('loading')
    const sent = chat().send('next')
    release()
    await sent
    await expect.poll(() => chat().messages.at(-1)).toMatchObject({ text: 'Answer to next.', pending: false })
    expect(bubbles(chat().messages)).toEqual([
      { role: 'user', text: 'earlier' },
      { role: 'assistant', text: 'Earlier answer.' },
      { role: 'user', text: 'next' },
      { role: 'assistant', text: 'Answer to next.' },
    ])
  })

  it('unmounting stops the answer', async () => {
    const model = answering({ first: long('a') })
    const { chat, unmount } = await mount(clientOf(model), {}, { strict: true })
    const sent = chat().send('first')
    await expect.poll(() => streamed(chat, 1)).toMatch(/^a0 /)
    unmount()
    await sent
    await expect.poll(() => model.requests[0]!.ended).toBe('aborted')
  })
})

describe('useChat: resume()', () => {
  /** A conversation that ended waiting for the approval of a call (the page closed then), with memory inside the loop. */
  async function interruptedTurn(script: ScriptStep[]) {
    const { approvals, shown } = watchedApprovals()
    const weather = weatherTool()
    const model = new WatchedModel(script)
    const approval = ToolApprovalAdvisor.builder().handler(approvals.handler).policy('weather', 'always').build()
    const { memory, client, options } = setUp(model, HIGHEST_PRECEDENCE + 350, {
      tools: [weather.tool],
      advisors: [approval],
    })
    await memory!.add('c', [
      { role: 'user', text: 'Weather in Oslo?' },
      {
        role: 'assistant',
        text: 'Checking.',
        toolCalls: [{ id: 'w1', name: 'weather', arguments: '{"city":"Oslo"}' }],
      },
    ])
    const mounted = await mount(client, { ...options, approvals })
    await expect.poll(() => mounted.chat().pendingTurn).toBe(true)
    return { ...mounted, approvals, shown, weather, model, memory: memory! }
  }

  it('resume() twice in the same tick resumes the turn once: one approval, one tool run, each message once in memory', async () => {
    const { chat, approvals, shown, weather, model, memory } = await interruptedTurn(['Sunny in Oslo.'])
    const resumed = Promise.all([chat().resume(), chat().resume()])
    await expect.poll(() => approvals.pending().map((pending) => pending.toolCall.id)).toEqual(['w1'])
    chat().addToolApproval({ id: 'w1', approved: true })
    await resumed
    await expect.poll(() => chat().messages[1]?.pending).toBe(false)
    expect(shown.every((ids) => ids.length <= 1)).toBe(true)
    expect(weather.runs).toHaveLength(1)
    expect(model.requests).toHaveLength(1)
    expect(transcript(await memory.get('c'))).toEqual([
      'user: Weather in Oslo?',
      'assistant: Checking. [w1]',
      'tool: sunny in Oslo',
      'assistant: Sunny in Oslo.',
    ])
  })

  it('resume() shows the interrupted turn as it was, then what follows: the replayed round says nothing twice', async () => {
    const { chat, approvals } = await interruptedTurn(['Sunny in Oslo.'])
    const resumed = chat().resume()
    await expect.poll(() => approvals.pending()).toHaveLength(1)
    chat().addToolApproval({ id: 'w1', approved: true })
    await resumed
    await expect.poll(() => chat().messages[1]?.pending).toBe(false)
    expect(chat().messages.map(({ text }) => text)).toEqual(['Weather in Oslo?', 'Checking.\n\nSunny in Oslo.'])
  })

  it('send() while a resumed turn waits for approval: the approval is withdrawn, the tool never runs, memory holds each message once', async () => {
    const { chat, approvals, weather, memory } = await interruptedTurn([{ text: 'Answer to next.', delayMs: 10 }])
    const resumed = chat().resume()
    await expect.poll(() => approvals.pending()).toHaveLength(1)
    const sent = chat().send('next')
    expect(approvals.pending()).toEqual([])
    await Promise.all([resumed, sent])
    await expect.poll(() => chat().messages.at(-1)).toMatchObject({ text: 'Answer to next.', pending: false })
    expect(chat().messages[1]!.parts.find((part) => part.type === 'tool-call')).toMatchObject({
      state: 'error',
      result: 'Stopped.',
    })
    expect(weather.runs).toEqual([])
    expect(transcript(await memory.get('c'))).toEqual([
      'user: Weather in Oslo?',
      'assistant: Checking.',
      'user: next',
      'assistant: Answer to next.',
    ])
  })
})
