// Time per memory-advised turn (one tool round, model and tool answering at once) with the
// conversation in IndexedDB, at 100 and at 10,000 stored messages, with a window of 20 and an
// unbounded one, memory outside and inside the tool loop; the figure is the ratio 10,000 / 100 in
// the same run. Chromium only (bench/run.mjs: IndexedDB).
import {
  ChatClient,
  HIGHEST_PRECEDENCE,
  IndexedDBChatMemoryRepository,
  MessageChatMemoryAdvisor,
  MessageWindowChatMemory,
  defineTool,
  type ChatModel,
  type ChatResponse,
  type Message,
} from '../src'
import { median, report, round } from './measure'

const TURNS = 40
const UNBOUNDED = 1_000_000

const lookup = defineTool({
  name: 'lookup',
  description: 'Looks up',
  inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
  execute: ({ q }) => `found ${String(q)}`,
})

/** Asks for `lookup` when the prompt ends with the user's message, answers after the tool's. */
const instantModel: ChatModel = {
  provider: 'bench',
  call: async (prompt) => {
    const last = prompt.messages.at(-1)!
    const output: Message =
      last.role === 'user'
        ? { role: 'assistant', text: '', toolCalls: [{ id: `c-${last.text}`, name: 'lookup', arguments: '{"q":"x"}' }] }
        : { role: 'assistant', text: `Answer ${prompt.messages.length}`, toolCalls: [] }
    return { results: [{ output, metadata: {} }], metadata: {} } satisfies ChatResponse
  },
  // eslint-disable-next-line require-yield
  stream: async function* () {
    throw new Error('not used')
  },
}

/** A stored conversation of `count` messages: turns of a question and an answer of about 200 characters each. */
function history(count: number): Message[] {
  return Array.from({ length: count }, (_, i): Message =>
    i % 2 === 0
      ? { role: 'user', text: `Question ${i}: ${'what about this? '.repeat(12)}` }
      : { role: 'assistant', text: `Answer ${i}: ${'here is what I know. '.repeat(10)}`, toolCalls: [] },
  )
}

interface Figures {
  firstTurnMs: number
  medianTurnMs: number
}

let databases = 0

async function turns(stored: number, maxMessages: number, inside: boolean): Promise<Figures> {
  const repository = new IndexedDBChatMemoryRepository({ databaseName: `bench-memory-${Date.now()}-${databases++}` })
  await repository.saveAll('c', history(stored))
  const memory = MessageWindowChatMemory.builder().chatMemoryRepository(repository).maxMessages(maxMessages).build()
  const client = ChatClient.builder(instantModel)
    .defaultTools(lookup)
    .defaultAdvisors(
      MessageChatMemoryAdvisor.builder(memory)
        .conversationId('c')
        .order(inside ? HIGHEST_PRECEDENCE + 350 : MessageChatMemoryAdvisor.DEFAULT_ORDER)
        .build(),
    )
    .build()
  const times: number[] = []
  for (let turn = 0; turn <= TURNS; turn++) {
    const start = performance.now()
    await client.prompt(`q${turn}`).call().content()
    times.push(performance.now() - start)
  }
  await repository.close()
  return { firstTurnMs: round(times[0]!, 2), medianTurnMs: round(median(times.slice(1)), 2) }
}

// The first databases of a page pay for opening IndexedDB and for the JIT: run and left out.
await turns(100, 20, false)
await turns(100, UNBOUNDED, true)

const results: Record<string, unknown> = {}
for (const inside of [false, true]) {
  for (const [window, maxMessages] of [
    ['window20', 20],
    ['unbounded', UNBOUNDED],
  ] as const) {
    const small = await turns(100, maxMessages, inside)
    const large = await turns(10_000, maxMessages, inside)
    results[`${inside ? 'inside' : 'outside'}Loop_${window}`] = {
      at100: small,
      at10000: large,
      ratio10000to100: round(large.medianTurnMs / small.medianTurnMs, 2),
    }
  }
}

report('memory-turn', {
  what: `median time per memory-advised turn (one tool round, instant model and tool) over ${TURNS} turns after the first, IndexedDB, at 100 and 10,000 stored messages; the first turn apart (with window 20 it deletes what is outside the window)`,
  ...results,
})
