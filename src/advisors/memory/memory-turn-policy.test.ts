import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { HIGHEST_PRECEDENCE, type Message, type StreamPart, type ToolCallback } from '../../core'
import { ChatClient } from '../../client'
import { ChatMemory, ConversationBusyError, InMemoryChatMemoryRepository, MessageWindowChatMemory } from '../../memory'
import { ScriptedChatModel } from '../../models'
import { defineTool } from '../../tools'
import { MessageChatMemoryAdvisor } from '.'
import { heldTool } from '../testing/held-tool'

// A conversation is never locked for good: whichever way a reader leaves a stream, the next turn
// goes on, and memory keeps no tool call without its response.

const INSIDE = HIGHEST_PRECEDENCE + 350
type Placement = 'outside' | 'inside'
const PLACEMENTS: Placement[] = ['outside', 'inside']

const unhandled: unknown[] = []
const onUnhandled = (reason: unknown) => unhandled.push(reason)
beforeAll(() => process.on('unhandledRejection', onUnhandled))
afterAll(() => {
  process.off('unhandledRejection', onUnhandled)
  expect(unhandled).toEqual([])
})

function memoryOf() {
  return MessageWindowChatMemory.builder().chatMemoryRepository(new InMemoryChatMemoryRepository()).build()
}

function clientOf(model: ScriptedChatModel, memory: ChatMemory, placement: Placement, ...tools: ToolCallback[]) {
  const advisor = MessageChatMemoryAdvisor.builder(memory)
    .order(placement === 'inside' ? INSIDE : MessageChatMemoryAdvisor.DEFAULT_ORDER)
    .build()
  return ChatClient.builder(model)
    .defaultAdvisors(advisor)
    .defaultTools(...tools)
    .build()
}

/** Every tool call has its response right after it: what providers accept. */
function expectNoOrphans(messages: readonly Message[]) {
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!
    if (message.role === 'tool') expect(messages[i - 1]?.role).toBe('assistant')
    if (message.role !== 'assistant' || message.toolCalls.length === 0) continue
    const next = messages[i + 1]
    expect(next?.role).toBe('tool')
    if (next?.role === 'tool') expect(next.responses.map((r) => r.id)).toEqual(message.toolCalls.map((c) => c.id))
  }
}

/** Settles with the promise, or rejects when it takes longer than `ms` (a turn that waits for good). */
function within<T>(promise: Promise<T>, ms = 3000): Promise<T> {
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`still waiting after ${ms} ms`)), ms)),
  ])
}

const words = (count: number) => Array.from({ length: count }, (_, i) => `w${i} `)

describe('a conversation after a stream its reader left', () => {
  for (const placement of PLACEMENTS) {
    it(`goes on to the next turn when the reader dropped the iterator without return() (memory ${placement} the loop)`, async () => {
      const memory = memoryOf()
      const model = new ScriptedChatModel([{ chunks: words(50), delayMs: 5 }, 'second answer'])
      const client = clientOf(model, memory, placement)
      const dropped = client.prompt('first').stream().content()[Symbol.asyncIterator]()
      await dropped.next()
      expect(await within(client.prompt('second').call().content())).toBe('second answer')
      const stored = await memory.get(ChatMemory.DEFAULT_CONVERSATION_ID)
      expect(stored.map((message) => message.role)).toEqual(['user', 'user', 'assistant'])
    })

    it(`gives the conversation back at once when the dropped stream's signal aborts (memory ${placement} the loop)`, async () => {
      const memory = memoryOf()
      const model = new ScriptedChatModel([{ chunks: words(50), delayMs: 5 }, 'second answer'])
      const client = clientOf(model, memory, placement)
      const controller = new AbortController()
      const dropped = client.prompt('first').signal(controller.signal).stream().content()[Symbol.asyncIterator]()
      await dropped.next()
      controller.abort()
      expect(await within(client.prompt('second').call().content(), 400)).toBe('second answer')
    })

    for (const exit of ['break', 'throw', 'return()', 'abort', 'model error'] as const) {
      it(`gives the conversation back after a reader's ${exit} while a tool runs, with no orphan call (memory ${placement} the loop)`, async () => {
        const memory = memoryOf()
        const { tool, running } = heldTool()
        const model = new ScriptedChatModel([
          exit === 'model error'
            ? { text: 'a b', error: 'broke', failAfterChunks: 1 }
            : { text: 'Let me look. ', toolCalls: [{ id: 'c1', name: 'slow' }] },
          'second answer',
        ])
        const client = clientOf(model, memory, placement, tool)
        const controller = new AbortController()
        const reading = (async () => {
          for await (const part of client.prompt('first').signal(controller.signal).stream().parts()) {
            if (part.type !== 'tool-start') continue
            if (exit === 'break') break
            if (exit === 'throw') throw new Error('the reader failed')
          }
        })()
        if (exit === 'return()' || exit === 'abort') {
          await running
          controller.abort()
        }
        await reading.catch(() => {})
        expect(await within(client.prompt('second').call().content(), 1000)).toBe('second answer')
        expectNoOrphans(await memory.get(ChatMemory.DEFAULT_CONVERSATION_ID))
      })
    }

    it(`goes on when a reader drops .parts() while a tool runs and then aborts (memory ${placement} the loop)`, async () => {
      const memory = memoryOf()
      const { tool, running } = heldTool()
      const model = new ScriptedChatModel([{ toolCalls: [{ id: 'c1', name: 'slow' }] }, 'second answer'])
      const client = clientOf(model, memory, placement, tool)
      const controller = new AbortController()
      const parts = client.prompt('first').signal(controller.signal).stream().parts()[Symbol.asyncIterator]()
      void parts.next()
      await running
      controller.abort()
      expect(await within(client.prompt('second').call().content(), 1000)).toBe('second answer')
      expectNoOrphans(await memory.get(ChatMemory.DEFAULT_CONVERSATION_ID))
    })
  }
})

/** Whether `promise` settled by now, after every microtask and timer due has run. */
async function settledYet(promise: Promise<unknown>): Promise<boolean> {
  let settled = false
  void promise.then(
    () => (settled = true),
    () => (settled = true),
  )
  await vi.advanceTimersByTimeAsync(0)
  return settled
}

describe('a turn waiting behind a stream', () => {
  afterEach(() => vi.useRealTimers())

  for (const placement of PLACEMENTS) {
    it(`starts as soon as the stream's reader calls return(), with no abort and no time passing (memory ${placement} the loop)`, async () => {
      vi.useFakeTimers()
      const memory = memoryOf()
      const model = new ScriptedChatModel([{ chunks: words(50) }, 'second answer'])
      const client = clientOf(model, memory, placement)
      const first = client.prompt('first').stream().content()[Symbol.asyncIterator]()
      await first.next()
      const second = client.prompt('second').call().content()
      expect(await settledYet(second)).toBe(false)
      await first.return!()
      expect(await settledYet(second)).toBe(true)
      expect(await second).toBe('second answer')
    })

    it(`starts as soon as the reader of .parts() calls return() while a tool runs (memory ${placement} the loop)`, async () => {
      vi.useFakeTimers()
      const memory = memoryOf()
      const { tool, running } = heldTool()
      const model = new ScriptedChatModel([{ toolCalls: [{ id: 'c1', name: 'slow' }] }, 'second answer'])
      const client = clientOf(model, memory, placement, tool)
      const parts = client.prompt('first').signal(new AbortController().signal).stream().parts()
      const reader = parts[Symbol.asyncIterator]()
      for (let part = await reader.next(); !part.done && part.value.type !== 'tool-start'; part = await reader.next());
      await running
      const second = client.prompt('second').signal(new AbortController().signal).call().content()
      expect(await settledYet(second)).toBe(false)
      await reader.return!()
      expect(await settledYet(second)).toBe(true)
      expect(await second).toBe('second answer')
      expectNoOrphans(await memory.get(ChatMemory.DEFAULT_CONVERSATION_ID))
    })

    it(`leaves a slow reader's stream alone once the turn that waited for it gave up (memory ${placement} the loop)`, async () => {
      vi.useFakeTimers()
      const memory = memoryOf()
      const model = new ScriptedChatModel([{ chunks: words(5) }])
      const client = clientOf(model, memory, placement)
      const first = client.prompt('first').stream().content()[Symbol.asyncIterator]()
      const read = [(await first.next()).value]
      const waiter = new AbortController()
      const second = client.prompt('second').signal(waiter.signal).call().content()
      waiter.abort()
      await expect(second).rejects.toThrow()
      // The reader takes its time: no turn waits any more, so nothing stops its stream.
      await vi.advanceTimersByTimeAsync(2_000)
      for (let chunk = await first.next(); !chunk.done; chunk = await first.next()) read.push(chunk.value)
      expect(read.join('')).toBe(words(5).join(''))
    })

    it(`starts half a second after it began waiting when the stream's reader dropped the iterator (memory ${placement} the loop)`, async () => {
      vi.useFakeTimers()
      const memory = memoryOf()
      const model = new ScriptedChatModel([{ chunks: words(50) }, 'second answer'])
      const client = clientOf(model, memory, placement)
      const dropped = client.prompt('first').stream().content()[Symbol.asyncIterator]()
      await dropped.next()
      const second = client.prompt('second').call().content()
      await vi.advanceTimersByTimeAsync(499)
      expect(await settledYet(second)).toBe(false)
      await vi.advanceTimersByTimeAsync(1)
      expect(await settledYet(second)).toBe(true)
      expect(await second).toBe('second answer')
    })
  }
})

describe('a call on a conversation from inside one of its tools that passes nothing on', () => {
  // It cannot be told from a turn from elsewhere: it waits, and fails once the running turn still
  // runs its tools 10 s later (it would wait for itself for ever).
  afterEach(() => {
    vi.useRealTimers()
  })

  for (const placement of PLACEMENTS) {
    for (const conversation of ['the default one', 'a named one'] as const) {
      it(`fails naming the conversation while the turn still runs the tool, and the turn goes on (${conversation}, memory ${placement} the loop)`, async () => {
        vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] })
        const memory = memoryOf()
        const params = conversation === 'a named one' ? { [ChatMemory.CONVERSATION_ID]: 'notes' } : {}
        let inner: unknown
        const model = new ScriptedChatModel([
          { toolCalls: [{ id: 'c1', name: 'ask' }] },
          'outer answer',
          'inner answer',
        ])
        const assistant: { client?: ChatClient } = {}
        const ask = defineTool({
          name: 'ask',
          description: 'Asks the same assistant',
          inputSchema: { type: 'object' },
          execute: async () => {
            try {
              return await assistant.client!.prompt('inner question').advisorParams(params).call().content()
            } catch (error) {
              inner = error
              throw error
            }
          },
        })
        const client = (assistant.client = clientOf(model, memory, placement, ask))
        const outer = client.prompt('outer question').advisorParams(params).call().content()
        await vi.advanceTimersByTimeAsync(10_000)
        expect(await outer).toBe('outer answer')
        expect(inner).toBeInstanceOf(ConversationBusyError)
        const id = conversation === 'a named one' ? 'notes' : ChatMemory.DEFAULT_CONVERSATION_ID
        expect((inner as Error).message).toContain(`Conversation '${id}' is busy`)
        const toolMessage = model.prompts[1]!.messages.find((message) => message.role === 'tool')
        expect(toolMessage).toMatchObject({
          responses: [{ responseData: expect.stringMatching(/^Error: .*busy/) as unknown }],
        })
        expectNoOrphans(await memory.get(id))
      })
    }
  }

  it('fails also after the tool awaited something first', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] })
    const memory = memoryOf()
    const model = new ScriptedChatModel([{ toolCalls: [{ id: 'c1', name: 'ask' }] }, 'outer answer'])
    const assistant: { client?: ChatClient } = {}
    const ask = defineTool({
      name: 'ask',
      description: 'Asks the same assistant later',
      inputSchema: { type: 'object' },
      execute: async () => {
        await new Promise((resolve) => setTimeout(resolve, 10))
        return assistant.client!.prompt('inner question').call().content()
      },
    })
    const client = (assistant.client = clientOf(model, memory, 'outside', ask))
    const outer = client.prompt('outer question').call().content()
    await vi.advanceTimersByTimeAsync(10_010)
    expect(await outer).toBe('outer answer')
  })
})

describe('a call on a conversation from inside one of its tools that passes its context.signal', () => {
  it('leaves no inner turn waiting to write after a tool that timed out', async () => {
    const memory = memoryOf()
    const model = new ScriptedChatModel([{ toolCalls: [{ id: 'c1', name: 'ask' }] }, 'outer answer', 'inner answer'])
    const assistant: { client?: ChatClient } = {}
    const ask = defineTool({
      name: 'ask',
      description: 'Asks the same assistant',
      inputSchema: { type: 'object' },
      timeoutMs: 50,
      execute: (_args, context) => assistant.client!.prompt('inner question').signal(context.signal!).call().content(),
    })
    const client = (assistant.client = clientOf(model, memory, 'outside', ask))
    await client.prompt('outer question').call().content()
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(model.prompts).toHaveLength(2)
    const stored = await memory.get(ChatMemory.DEFAULT_CONVERSATION_ID)
    expect(stored.map((message) => (message.role === 'user' ? message.text : message.role))).toEqual([
      'outer question',
      'assistant',
    ])
  })
})

describe('turns from elsewhere', () => {
  it('wait for a turn that streams and is read, then go on', async () => {
    const memory = memoryOf()
    const model = new ScriptedChatModel([{ chunks: words(20), delayMs: 5 }, 'second answer'])
    const client = clientOf(model, memory, 'outside')
    const first = (async () => {
      let text = ''
      for await (const delta of client.prompt('first').stream().content()) text += delta
      return text
    })()
    await new Promise((resolve) => setTimeout(resolve, 20))
    const second = client.prompt('second').call().content()
    expect(await first).toBe(words(20).join(''))
    expect(await second).toBe('second answer')
    const stored = await memory.get(ChatMemory.DEFAULT_CONVERSATION_ID)
    expect(stored.map((message) => message.role)).toEqual(['user', 'assistant', 'user', 'assistant'])
  })

  it('reject at once when their own signal aborts while they wait', async () => {
    const memory = memoryOf()
    const model = new ScriptedChatModel([{ chunks: words(40), delayMs: 5 }])
    const client = clientOf(model, memory, 'outside')
    const first = (async () => {
      for await (const _ of client.prompt('first').stream().content());
    })()
    await new Promise((resolve) => setTimeout(resolve, 10))
    const controller = new AbortController()
    const second = client.prompt('second').signal(controller.signal).call().content()
    controller.abort()
    await expect(within(second, 100)).rejects.toMatchObject({ name: 'AbortError' })
    await first
  })
})

describe('reads asked at once', () => {
  it('settle in order on .stream().content() and .stream().parts()', async () => {
    const client = ChatClient.create(new ScriptedChatModel([{ chunks: ['a', 'b', 'c', 'd'] }, { chunks: ['a', 'b'] }]))
    const content = client.prompt('q').stream().content()[Symbol.asyncIterator]()
    const reads = await within(Promise.all([content.next(), content.next(), content.next(), content.next()]))
    expect(reads.map((read) => read.value as string)).toEqual(['a', 'b', 'c', 'd'])
    expect(await content.next()).toEqual({ done: true, value: undefined })
    const parts = client.prompt('q').stream().parts()[Symbol.asyncIterator]()
    const events = await within(Promise.all([parts.next(), parts.next(), parts.next()]))
    expect(events.map((event) => (event.value as StreamPart | undefined)?.type)).toEqual([
      'round-start',
      'text-delta',
      'text-delta',
    ])
  })

  it('all reject when the stream is stopped while they wait', async () => {
    const client = ChatClient.create(new ScriptedChatModel([{ chunks: words(10), delayMs: 50 }]))
    const content = client.prompt('q').stream().content()[Symbol.asyncIterator]()
    const reads = [content.next(), content.next(), content.next()]
    await content.return!()
    const settled = await within(Promise.allSettled(reads))
    expect(settled.map((result) => result.status)).toEqual(['rejected', 'rejected', 'rejected'])
  })
})
