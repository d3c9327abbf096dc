// Time per session-advised turn (one tool round, model and tool answering at once, compaction after
// every turn keeping 10 turns in view) with 100 and with 10,000 events in the session's log; the
// figure is the ratio 10,000 / 100 in the same run. In Node the log is in an
// InMemorySessionRepository; in Chromium (bench/run.mjs) also in an IndexedDBSessionRepository.
//
// One run on the project's machine (2 cores shared with other work), ms per turn at 100 → 10,000:
//   Node, in memory:       0.36 → 0.27 ms, 0.75×
//   Chromium, in memory:   0.37 → 0.37 ms, 1.00×
//   Chromium, IndexedDB:   7.2  → 5.7 ms,  0.79×  (the view is read from its start, never the whole log)
// Another run (after the long-session benches): Node 0.266 → 0.260 ms (0.98×); Chromium in memory
// 0.345 → 0.365 ms (1.06×), IndexedDB 4.93 → 4.90 ms (0.99×).
import {
  ChatClient,
  DefaultSessionService,
  InMemorySessionRepository,
  IndexedDBSessionRepository,
  SessionMemoryAdvisor,
  TurnCountTrigger,
  TurnWindowCompactionStrategy,
  type Message,
  type SessionEvent,
  type SessionRepository,
} from '../src'
import { median, report, round } from './measure'
import { instantModel, lookup } from './tool-round-model'

const TURNS = 40
const REPEATS = 3

/** `count` events: turns of a question, a tool call, its result and an answer of about 200 characters each. */
function history(count: number): SessionEvent[] {
  return Array.from({ length: count }, (_, i): SessionEvent => {
    const turn = Math.floor(i / 4)
    const call = { id: `h-${turn}`, name: 'lookup', arguments: '{"q":"x"}' }
    const messages: Message[] = [
      { role: 'user', text: `Question ${turn}: ${'what about this? '.repeat(12)}` },
      { role: 'assistant', text: '', toolCalls: [call] },
      { role: 'tool', responses: [{ id: call.id, name: 'lookup', responseData: 'found '.repeat(30) }] },
      { role: 'assistant', text: `Answer ${turn}: ${'here is what I know. '.repeat(10)}`, toolCalls: [] },
    ]
    const message = messages[i % 4]!
    return { id: `e-${i}`, sessionId: 's', timestamp: i, message }
  })
}

let databases = 0

async function turns(logged: number, indexedDB: boolean): Promise<number> {
  const repository: SessionRepository = indexedDB
    ? new IndexedDBSessionRepository({ name: `bench-sessions-${Date.now()}-${databases++}` })
    : new InMemorySessionRepository()
  const service = new DefaultSessionService(repository)
  await service.create({ id: 's' })
  const events = history(logged)
  for (let from = 0; from < events.length; from += 500)
    await service.appendEvents('s', events.slice(from, from + 500), from)
  const trigger = new TurnCountTrigger(10)
  const strategy = new TurnWindowCompactionStrategy(10)
  await service.compact('s', trigger, strategy)
  const advisor = SessionMemoryAdvisor.builder(service)
    .defaultSessionId('s')
    .compactionTrigger(trigger)
    .compactionStrategy(strategy)
    .build()
  const client = ChatClient.builder(instantModel).defaultTools(lookup).defaultAdvisors(advisor).build()
  const times: number[] = []
  for (let turn = 0; turn <= TURNS; turn++) {
    const start = performance.now()
    await client.prompt(`q${turn}`).call().content()
    times.push(performance.now() - start)
  }
  if (repository instanceof IndexedDBSessionRepository) await repository.close()
  return round(median(times.slice(1)), 3)
}

const stores = typeof indexedDB === 'undefined' ? [false] : [false, true]
// The first runs pay for the JIT (and opening IndexedDB): run and left out.
for (const store of stores) await turns(100, store)

const results: Record<string, unknown> = {}
for (const store of stores) {
  const small: number[] = []
  const large: number[] = []
  for (let repeat = 0; repeat < REPEATS; repeat++) {
    small.push(await turns(100, store))
    large.push(await turns(10_000, store))
  }
  const [at100, at10000] = [median(small), median(large)]
  results[store ? 'indexedDB' : 'inMemory'] = {
    msPerTurnAt100: at100,
    msPerTurnAt10000: at10000,
    ratio10000to100: round(at10000 / at100, 2),
  }
}

report('session-turn', {
  what: `median time per session-advised turn (one tool round, instant model and tool, compaction to 10 turns after each) over ${TURNS} turns after the first, at 100 and 10,000 logged events, median of ${REPEATS} repeats`,
  ...results,
})
