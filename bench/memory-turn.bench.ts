// Time per memory-advised turn (one tool round, model and tool answering at once) with the
// conversation in IndexedDB, at 100 and at 10,000 stored messages, with a window of 20 and an
// unbounded one, memory outside and inside the tool loop; the figures are the ratio 10,000 / 100
// in the same run, and the same turns with the conversation in an InMemoryChatMemoryRepository as
// the baseline (what a turn costs with no storage at all). Chromium only (bench/run.mjs: IndexedDB).
//
// Figures of three runs on the project's machine (Chromium 156, 2 cores shared with other work),
// median ms per turn at 100 → 10,000 stored messages, and the ratio 10,000 / 100:
//   outside the loop, window 20:  5.8–8.8 → 6.9–11.3 ms, 1.13–1.48×
//   outside the loop, unbounded:  4.6–9.1 → 7.6–15.9 ms, 1.35–2.23×
//   inside the loop, window 20:  10.4–16.7 → 13.1–17.3 ms, 1.00–1.26×
//   inside the loop, unbounded:  11.6–15.2 → 21.1–29.8 ms, 1.59–2.33×
// The in-memory baseline: 0.04–0.18 ms per turn at 100; at 10,000, 0.05–0.12 ms with window 20 and
// 0.7–7.2 ms unbounded (the model is sent 10,000 messages). A page's first turn on a conversation
// reads its window whole: 43–222 ms at 10,000 with window 20, 0.43–1.04 s unbounded.
// Before the log layout (the figures): 226 ms per turn at 10,000 with window 20, 1.4–2.9 s
// unbounded, ratios of 10–58×.
import {
  ChatClient,
  HIGHEST_PRECEDENCE,
  IndexedDBChatMemoryRepository,
  MessageChatMemoryAdvisor,
  MessageWindowChatMemory,
  type Message,
} from '../src'
// Imported from its module: from '../src' the library build leaves this one name unbound (rolldown).
import { InMemoryChatMemoryRepository } from '../src/memory/in-memory-repository'
import { median, report, round } from './measure'
import { instantModel, lookup } from './tool-round-model'

const TURNS = 40
/** Each measurement is repeated, 100 and 10,000 taking turns; the figure is the median of the repeats. */
const REPEATS = 3
const UNBOUNDED = 1_000_000

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

async function turns(stored: number, maxMessages: number, inside: boolean, inIndexedDB = true): Promise<Figures> {
  const repository = inIndexedDB
    ? new IndexedDBChatMemoryRepository({ databaseName: `bench-memory-${Date.now()}-${databases++}` })
    : new InMemoryChatMemoryRepository()
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
  if (repository instanceof IndexedDBChatMemoryRepository) await repository.close()
  return { firstTurnMs: round(times[0]!, 2), medianTurnMs: round(median(times.slice(1)), 2) }
}

/** The median of each figure over the repeats. */
function medianOf(repeats: Figures[]): Figures {
  return {
    firstTurnMs: round(median(repeats.map((figures) => figures.firstTurnMs)), 2),
    medianTurnMs: round(median(repeats.map((figures) => figures.medianTurnMs)), 2),
  }
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
    const runs: Record<'small' | 'large' | 'smallInMemory' | 'largeInMemory', Figures[]> = {
      small: [],
      large: [],
      smallInMemory: [],
      largeInMemory: [],
    }
    for (let repeat = 0; repeat < REPEATS; repeat++) {
      runs.small.push(await turns(100, maxMessages, inside))
      runs.large.push(await turns(10_000, maxMessages, inside))
      runs.smallInMemory.push(await turns(100, maxMessages, inside, false))
      runs.largeInMemory.push(await turns(10_000, maxMessages, inside, false))
    }
    const [small, large, smallInMemory, largeInMemory] = [
      runs.small,
      runs.large,
      runs.smallInMemory,
      runs.largeInMemory,
    ].map(medianOf) as [Figures, Figures, Figures, Figures]
    results[`${inside ? 'inside' : 'outside'}Loop_${window}`] = {
      at100: small,
      at10000: large,
      ratio10000to100: round(large.medianTurnMs / small.medianTurnMs, 2),
      inMemoryAt100: smallInMemory,
      inMemoryAt10000: largeInMemory,
      ratioToInMemoryAt100: round(small.medianTurnMs / smallInMemory.medianTurnMs, 2),
      ratioToInMemoryAt10000: round(large.medianTurnMs / largeInMemory.medianTurnMs, 2),
    }
  }
}

report('memory-turn', {
  what: `median time per memory-advised turn (one tool round, instant model and tool) over ${TURNS} turns after the first, IndexedDB, at 100 and 10,000 stored messages, median of ${REPEATS} repeats; the first turn apart (it reads the window whole, and with window 20 deletes what is outside it); baseline: the same turns on an InMemoryChatMemoryRepository`,
  ...results,
})
