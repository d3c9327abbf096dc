import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { HIGHEST_PRECEDENCE, type Message, type ToolCallback } from '../../core'
import { ChatClient } from '../../client'
import {
  ChatMemory,
  ConversationBusyError,
  InMemoryChatMemoryRepository,
  MessageWindowChatMemory,
  type WhenBusy,
} from '../../memory'
import { ScriptedChatModel } from '../../models'
import { defineTool } from '../../tools'
import { MessageChatMemoryAdvisor } from '.'
import { heldTool } from '../testing/held-tool'

// Turns that arrive together on one conversation: a turn from elsewhere waits (or, by choice, is
// refused or stops the running one); a turn a tool of the running turn started fails at once.

const INSIDE = HIGHEST_PRECEDENCE + 350
type Placement = 'outside' | 'inside'
const PLACEMENTS: Placement[] = ['outside', 'inside']
const ID = ChatMemory.DEFAULT_CONVERSATION_ID

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

function clientOf(
  model: ScriptedChatModel,
  memory: ChatMemory,
  placement: Placement,
  tools: ToolCallback[],
  whenBusy?: WhenBusy,
) {
  const builder = MessageChatMemoryAdvisor.builder(memory).order(
    placement === 'inside' ? INSIDE : MessageChatMemoryAdvisor.DEFAULT_ORDER,
  )
  if (whenBusy) builder.whenBusy(whenBusy)
  return ChatClient.builder(model)
    .defaultAdvisors(builder.build())
    .defaultTools(...tools)
    .build()
}

/** Settles with the promise, or rejects when it takes longer than `ms` (a turn that waits for good). */
function within<T>(promise: Promise<T>, ms = 3000): Promise<T> {
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`still waiting after ${ms} ms`)), ms)),
  ])
}

/** What memory holds, one word per message: a user's text, else its role. */
async function stored(memory: ChatMemory): Promise<string[]> {
  return (await memory.get(ID)).map((message: Message) => (message.role === 'user' ? message.text : message.role))
}

describe('a send right after a stop', () => {
  for (const placement of PLACEMENTS) {
    it(`goes on once the stopped turn settled, in the same tick (memory ${placement} the loop)`, async () => {
      const memory = memoryOf()
      const model = new ScriptedChatModel([{ toolCalls: [{ id: 'c1', name: 'slow' }] }, 'second answer'])
      const { tool, running } = heldTool()
      const client = clientOf(model, memory, placement, [tool])
      const stop = new AbortController()
      const first = client.prompt('first').signal(stop.signal).call().content()
      await running
      stop.abort()
      const second = client.prompt('second').call().content()
      await expect(first).rejects.toMatchObject({ name: 'AbortError' })
      expect(await within(second)).toBe('second answer')
      expect((await stored(memory)).slice(-3)).toEqual(['first', 'second', 'assistant'])
    })
  }
})

describe("with whenBusy('wait') (the default)", () => {
  for (const placement of PLACEMENTS) {
    it(`runs a turn from elsewhere sent while a tool runs after the running one, not interleaved (memory ${placement} the loop)`, async () => {
      const memory = memoryOf()
      const model = new ScriptedChatModel([
        { toolCalls: [{ id: 'c1', name: 'slow' }] },
        'first answer',
        'second answer',
      ])
      const { tool, running, release } = heldTool()
      const client = clientOf(model, memory, placement, [tool])
      const first = client.prompt('first').call().content()
      await running
      const second = client.prompt('second').signal(new AbortController().signal).call().content()
      release()
      expect(await within(Promise.all([first, second]))).toEqual(['first answer', 'second answer'])
      const turnOne = placement === 'inside' ? ['first', 'assistant', 'tool', 'assistant'] : ['first', 'assistant']
      expect(await stored(memory)).toEqual([...turnOne, 'second', 'assistant'])
      expect(model.prompts[2]!.messages.at(-1)).toMatchObject({ role: 'user', text: 'second' })
    })
  }
})

describe("with whenBusy('reject')", () => {
  it('refuses a second turn, saying another turn runs', async () => {
    const memory = memoryOf()
    const model = new ScriptedChatModel([{ toolCalls: [{ id: 'c1', name: 'slow' }] }, 'first answer'])
    const { tool, running, release } = heldTool()
    const client = clientOf(model, memory, 'outside', [tool], 'reject')
    const first = client.prompt('first').call().content()
    await running
    const refused = await client
      .prompt('second')
      .signal(new AbortController().signal)
      .call()
      .content()
      .catch((error: unknown) => error)
    expect(refused).toBeInstanceOf(ConversationBusyError)
    expect(refused).toMatchObject({ reason: 'running', conversationId: ID })
    expect((refused as Error).message).toMatch(
      /^Conversation 'default' is busy: another turn \(run .+\) is running on it/,
    )
    expect((refused as Error).message).not.toContain('tool')
    release()
    expect(await first).toBe('first answer')
  })
})

describe("with whenBusy('interrupt')", () => {
  it('stops the running turn and goes on once its stop settled', async () => {
    const memory = memoryOf()
    const model = new ScriptedChatModel([{ toolCalls: [{ id: 'c1', name: 'slow' }] }, 'second answer'])
    const { tool, running } = heldTool()
    const client = clientOf(model, memory, 'outside', [tool], 'interrupt')
    const first = client.prompt('first').call().content()
    await running
    const second = client.prompt('second').signal(new AbortController().signal).call().content()
    await expect(first).rejects.toMatchObject({
      name: 'AbortError',
      message: expect.stringContaining('interrupted') as unknown,
    })
    expect(await within(second)).toBe('second answer')
    expect(await stored(memory)).toEqual(['first', 'second', 'assistant'])
  })

  it('inside the loop, lets the running tool finish and ends the loop after it', async () => {
    const memory = memoryOf()
    const model = new ScriptedChatModel([{ toolCalls: [{ id: 'c1', name: 'slow' }] }, 'second answer'])
    const { tool, running, release } = heldTool()
    const client = clientOf(model, memory, 'inside', [tool], 'interrupt')
    const first = client.prompt('first').call().content()
    await running
    const second = client.prompt('second').signal(new AbortController().signal).call().content()
    release()
    await expect(first).rejects.toMatchObject({
      name: 'AbortError',
      message: expect.stringContaining('interrupted') as unknown,
    })
    expect(await within(second)).toBe('second answer')
    expect(model.prompts).toHaveLength(2)
    expect(await stored(memory)).toEqual(['first', 'second', 'assistant'])
  })
})

describe('a tool that asks its own conversation', () => {
  for (const placement of PLACEMENTS) {
    for (const whenBusy of ['wait', 'interrupt'] as const) {
      it(`fails at once, saying a tool of the running turn asked, and the turn goes on (memory ${placement} the loop, ${whenBusy})`, async () => {
        const memory = memoryOf()
        const model = new ScriptedChatModel([{ toolCalls: [{ id: 'c1', name: 'ask' }] }, 'outer answer'])
        const assistant: { client?: ChatClient } = {}
        let inner: unknown
        const ask = defineTool({
          name: 'ask',
          description: 'Asks the same assistant',
          inputSchema: { type: 'object' },
          execute: async (_args, context) => {
            await new Promise((resolve) => setTimeout(resolve, 1))
            try {
              return await assistant.client!.prompt('inner question').signal(context.signal!).call().content()
            } catch (error) {
              inner = error
              throw error
            }
          },
        })
        const client = (assistant.client = clientOf(model, memory, placement, [ask], whenBusy))
        expect(
          await within(client.prompt('outer question').signal(new AbortController().signal).call().content()),
        ).toBe('outer answer')
        expect(inner).toBeInstanceOf(ConversationBusyError)
        expect(inner).toMatchObject({ reason: 'reentered' })
        expect((inner as Error).message).toContain('a tool of its running turn')
      })
    }
  }
})
