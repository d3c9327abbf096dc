import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { HIGHEST_PRECEDENCE, type Advisor, type Prompt, type ToolCallback } from '../../core'
import { ChatClient } from '../../client'
import { collect } from '../../core/testing/collect'
import {
  ConversationBusyError,
  InMemoryChatMemoryRepository,
  MessageWindowChatMemory,
  type WhenBusy,
} from '../../memory'
import { ScriptedChatModel, type ScriptStep } from '../../models'
import { DefaultSessionService, InMemorySessionRepository } from '../../session'
import { defineTool } from '../../tools'
import { MessageChatMemoryAdvisor, SessionMemoryAdvisor } from '.'
import { heldTool } from '../testing/held-tool'

// Turns that arrive together on one conversation, for both memory advisors, called and streamed,
// outside and inside the tool loop: a turn from elsewhere waits (or, by choice, is refused or
// stops the running one), a turn a tool of the running turn started never waits for itself, and
// no error says a tool asked when none did.

const KINDS = ['message memory', 'session'] as const
type Kind = (typeof KINDS)[number]
const PLACEMENTS = ['outside', 'inside'] as const
type Placement = (typeof PLACEMENTS)[number]
const MODES = ['call', 'stream'] as const
type Mode = (typeof MODES)[number]
const CASES = KINDS.flatMap((kind) =>
  PLACEMENTS.flatMap((placement) => MODES.map((mode) => ({ kind, placement, mode }))),
)
const INSIDE = HIGHEST_PRECEDENCE + 350

const unhandled: unknown[] = []
const onUnhandled = (reason: unknown) => unhandled.push(reason)
beforeAll(() => process.on('unhandledRejection', onUnhandled))
afterAll(() => {
  process.off('unhandledRejection', onUnhandled)
  expect(unhandled).toEqual([])
})
afterEach(() => {
  vi.useRealTimers()
})

/** 'first' calls the slow tool ('twice' twice), 'outer question' the asking tool; any other question is answered at once. */
function script(prompt: Prompt): ScriptStep {
  const last = prompt.messages.at(-1)!
  const question = prompt.messages.findLast((message) => message.role === 'user')
  const rounds = prompt.messages.slice(prompt.messages.lastIndexOf(question!)).filter((m) => m.role === 'tool')
  if (question?.text === 'twice' && rounds.length === 1) return { toolCalls: [{ id: 'c2', name: 'slow' }] }
  if (last.role === 'tool') return `${last.responses[0]!.name} answered ${last.responses[0]!.responseData}`
  const text = last.role === 'user' ? last.text : ''
  if (text === 'first' || text === 'twice') return { toolCalls: [{ id: 'c1', name: 'slow' }] }
  if (text === 'outer question') return { toolCalls: [{ id: 'c1', name: 'ask' }] }
  return `${text} answer`
}

function clientOf(kind: Kind, placement: Placement, tools: ToolCallback[], whenBusy?: WhenBusy) {
  const model = new ScriptedChatModel(script)
  let advisor: Advisor
  if (kind === 'session') {
    const builder = SessionMemoryAdvisor.builder(new DefaultSessionService(new InMemorySessionRepository()))
    builder.order(placement === 'inside' ? INSIDE : SessionMemoryAdvisor.DEFAULT_ORDER)
    if (whenBusy) builder.whenBusy(whenBusy)
    advisor = builder.build()
  } else {
    const memory = MessageWindowChatMemory.builder().chatMemoryRepository(new InMemoryChatMemoryRepository()).build()
    const builder = MessageChatMemoryAdvisor.builder(memory)
    builder.order(placement === 'inside' ? INSIDE : MessageChatMemoryAdvisor.DEFAULT_ORDER)
    if (whenBusy) builder.whenBusy(whenBusy)
    advisor = builder.build()
  }
  const client = ChatClient.builder(model)
    .defaultAdvisors(advisor)
    .defaultTools(...tools)
    .build()
  return { client, model }
}

/** The answer to `text`, called or streamed; with `signal` when given. */
async function ask(client: ChatClient, text: string, mode: Mode, signal?: AbortSignal): Promise<string | null> {
  const spec = client.prompt(text)
  if (signal) spec.signal(signal)
  return mode === 'call' ? spec.call().content() : (await collect(spec.stream().content())).join('')
}

/** A tool that asks the same assistant, passing its context.signal or nothing; keeps what the inner call threw. */
function askingTool(assistant: { client?: ChatClient }, mode: Mode, passSignal: boolean) {
  const seen: { error?: unknown } = {}
  let asked!: () => void
  const asking = new Promise<void>((resolve) => (asked = resolve))
  const tool = defineTool({
    name: 'ask',
    description: 'Asks the same assistant',
    inputSchema: { type: 'object' },
    execute: async (_args, context) => {
      await Promise.resolve()
      const inner = ask(assistant.client!, 'inner question', mode, passSignal ? context.signal : undefined)
      asked()
      try {
        return await inner
      } catch (error) {
        seen.error = error
        throw error
      }
    },
  })
  return { tool, seen, asking }
}

/** The texts of a prompt's user and assistant messages. */
const texts = (prompt: Prompt) =>
  prompt.messages.flatMap((message) => (message.role === 'user' || message.role === 'assistant' ? [message.text] : []))

describe.each(CASES)('$kind $placement the loop, $mode', ({ kind, placement, mode }) => {
  it('a send right after a stop, in the same tick, goes on once the stopped turn settled', async () => {
    const { tool, running } = heldTool()
    const { client, model } = clientOf(kind, placement, [tool])
    const stop = new AbortController()
    const first = ask(client, 'first', mode, stop.signal)
    await running
    stop.abort()
    const second = ask(client, 'second', mode)
    await expect(first).rejects.toMatchObject({ name: 'AbortError' })
    expect(await second).toBe('second answer')
    expect(texts(model.prompts.at(-1)!).at(-1)).toBe('second')
  })

  it('a second turn given the signal the first was given (one controller for a chat) waits too, then runs', async () => {
    const { tool, running, release } = heldTool()
    const { client, model } = clientOf(kind, placement, [tool])
    const shared = new AbortController().signal
    const first = ask(client, 'first', mode, shared)
    await running
    const second = ask(client, 'second', mode, shared)
    for (let tick = 0; tick < 20; tick++) await Promise.resolve()
    expect(model.prompts).toHaveLength(1)
    release()
    expect(await Promise.all([first, second])).toEqual(['slow answered done', 'second answer'])
  })

  it('a second turn sent without a signal while a tool runs waits, then runs after the first', async () => {
    const { tool, running, release } = heldTool()
    const { client, model } = clientOf(kind, placement, [tool])
    const first = ask(client, 'first', mode)
    await running
    const second = ask(client, 'second', mode)
    // Let the second turn go as far as it can: it must wait, not fail.
    for (let tick = 0; tick < 20; tick++) await Promise.resolve()
    expect(model.prompts).toHaveLength(1)
    release()
    expect(await Promise.all([first, second])).toEqual(['slow answered done', 'second answer'])
    expect(model.prompts).toHaveLength(3)
    const sent = texts(model.prompts[2]!)
    expect(sent.slice(0, 1)).toEqual(['first'])
    expect(sent.slice(-2)).toEqual(['slow answered done', 'second'])
  })

  it('a tool that asks its own conversation with its context.signal is refused at once, saying a tool asked (the caller gave no signal)', async () => {
    const assistant: { client?: ChatClient } = {}
    const { tool, seen } = askingTool(assistant, mode, true)
    const { client } = clientOf(kind, placement, [tool])
    assistant.client = client
    const answer = await ask(client, 'outer question', mode)
    expect(answer).toMatch(/^ask answered Error: /)
    expect(seen.error).toBeInstanceOf(ConversationBusyError)
    expect(seen.error).toMatchObject({ reason: 'reentered' })
    expect((seen.error as Error).message).toContain('a tool of its running turn')
  })

  it('a tool that asks its own conversation passing nothing does not hang: it is refused while the turn still runs tools, without claiming a tool asked', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] })
    const assistant: { client?: ChatClient } = {}
    const { tool, seen, asking } = askingTool(assistant, mode, false)
    const { client } = clientOf(kind, placement, [tool])
    assistant.client = client
    const outer = ask(client, 'outer question', mode)
    await asking
    await vi.advanceTimersByTimeAsync(10_000)
    expect(await outer).toMatch(/^ask answered Error: /)
    expect(seen.error).toBeInstanceOf(ConversationBusyError)
    expect(seen.error).toMatchObject({ reason: 'maybe-reentered' })
    const message = (seen.error as Error).message
    expect(message).toMatch(/^Conversation '.+' is busy: its turn \(run .+\) was running tools when this turn asked/)
    expect(message).not.toContain('a tool of its running turn asked')
    expect(message).toContain('.signal(context.signal)')
  })
})

describe.each(CASES)('$kind $placement the loop, $mode, past 10 s', ({ kind, placement, mode }) => {
  it('a turn without a signal waits as long as the running turn keeps ending tools', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] })
    // 'twice' calls the tool twice, one round after the other; each call takes 6 s.
    const tool = defineTool({
      name: 'slow',
      description: 'Takes 6 s',
      inputSchema: { type: 'object' },
      execute: () => new Promise<string>((resolve) => setTimeout(() => resolve('done'), 6_000)),
    })
    const { client, model } = clientOf(kind, placement, [tool])
    const first = ask(client, 'twice', mode)
    await vi.advanceTimersByTimeAsync(1_000)
    const second = ask(client, 'second', mode)
    await vi.advanceTimersByTimeAsync(12_000)
    expect(await first).toBe('slow answered done')
    expect(await second).toBe('second answer')
    expect(model.prompts).toHaveLength(4)
  })
})

describe.each(CASES)("$kind $placement the loop, $mode, with whenBusy('reject')", ({ kind, placement, mode }) => {
  it('refuses a second turn, saying another turn runs and nothing of tools', async () => {
    const { tool, running, release } = heldTool()
    const { client } = clientOf(kind, placement, [tool], 'reject')
    const first = ask(client, 'first', mode)
    await running
    const refused = await ask(client, 'second', mode).catch((error: unknown) => error)
    expect(refused).toBeInstanceOf(ConversationBusyError)
    expect(refused).toMatchObject({ reason: 'running' })
    expect((refused as Error).message).toMatch(/^Conversation '.+' is busy: another turn \(run .+\) is running on it/)
    expect((refused as Error).message).not.toContain('tool')
    release()
    expect(await first).toBe('slow answered done')
  })
})

describe.each(CASES)("$kind $placement the loop, $mode, with whenBusy('interrupt')", ({ kind, placement, mode }) => {
  it('stops the running turn and goes on once its stop settled', async () => {
    const { tool, running, release } = heldTool()
    const { client, model } = clientOf(kind, placement, [tool], 'interrupt')
    const first = ask(client, 'first', mode)
    await running
    const second = ask(client, 'second', mode, new AbortController().signal)
    // Inside the loop a tool already running is let finish.
    release()
    await expect(first).rejects.toMatchObject({
      name: 'AbortError',
      message: expect.stringContaining('interrupted') as unknown,
    })
    expect(await second).toBe('second answer')
    expect(texts(model.prompts.at(-1)!).at(-1)).toBe('second')
  })
})
