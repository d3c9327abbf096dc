// A burst of 300 tool rounds into one chat (issue 44: useChat's tool call views made a 130–190 ms
// task). The chat object moves the answer's bubble on by what each event changed (AnswerBubble),
// against the bubble built again from all its parts on every event (withStreamPart + bubbleOf over
// the list, as useChat did before), in the same run: the events alone, then a whole turn through
// createChat against the same turn read with `.stream().parts()` and nothing done with the events.
import {
  ChatClient,
  createChat,
  defineTool,
  ScriptedChatModel,
  ToolCallingAdvisor,
  ToolCallingManager,
  type ChatMessageView,
} from '../src'
import { AnswerBubble } from '../src/client/chat/answer-bubble'
import { withStreamPart } from '../src/client/chat/chat-parts'
import { bubbleOf } from '../src/client/chat/chat-view'
import type { ScriptStep, StreamPart } from '../src'
import { median, report, round } from './measure'

const ROUNDS = 300

function burst(): StreamPart[] {
  const events: StreamPart[] = []
  for (let round = 1; round <= ROUNDS; round++) {
    const id = `call-${round}`
    events.push({ type: 'round-start', round })
    for (const delta of ['Looking ', 'that up ', `(${round}).`]) events.push({ type: 'text-delta', round, delta })
    events.push({ type: 'tool-call-start', round, id, name: 'lookup' })
    for (const delta of ['{"q":', `"${round}"}`])
      events.push({ type: 'tool-call-delta', round, id, argumentsDelta: delta })
    events.push({ type: 'tool-call', round, id, name: 'lookup', arguments: `{"q":"${round}"}` })
    events.push({ type: 'tool-start', round, id, name: 'lookup' })
    events.push({ type: 'tool-result', round, id, name: 'lookup', result: `result ${round}`, isError: false })
  }
  return events
}

const events = burst()
const earlier = Array.from({ length: 20 }, (_, i) =>
  bubbleOf({ id: `b${i}`, role: i % 2 ? 'assistant' : 'user' }, [{ type: 'text', text: `message ${i}` }]),
)
const start = () => bubbleOf({ id: 'answer', role: 'assistant', pending: true }, [])

/** Runs the burst through `step`; the whole time and the longest event, in ms. */
function timed(step: (event: StreamPart) => void): { totalMs: number; longestEventMs: number } {
  let longest = 0
  const begin = performance.now()
  for (const event of events) {
    const before = performance.now()
    step(event)
    longest = Math.max(longest, performance.now() - before)
  }
  return { totalMs: performance.now() - begin, longestEventMs: longest }
}

function rebuiltEachEvent() {
  let list: ChatMessageView[] = [...earlier, start()]
  return timed((event) => {
    list = list.map((bubble) => {
      if (bubble.id !== 'answer') return bubble
      const parts = withStreamPart(bubble.parts, event)
      return parts === bubble.parts ? bubble : bubbleOf(bubble, parts)
    })
  })
}

function incremental() {
  let list: ChatMessageView[] = [...earlier, start()]
  const bubble = new AnswerBubble(list.at(-1)!)
  const index = list.length - 1
  return timed((event) => {
    if (bubble.apply(event)) list = list.with(index, bubble.bubble)
  })
}

const lookup = defineTool({ name: 'lookup', description: 'd', inputSchema: { type: 'object' }, execute: () => 'ok' })
const script = (delayMs = 0): ScriptStep[] => [
  ...Array.from({ length: ROUNDS }, (_, round) => ({
    text: `Looking that up (${round}).`,
    chunks: ['Looking ', 'that up ', `(${round}).`],
    toolCalls: [{ id: `call-${round}`, name: 'lookup', arguments: { q: `${round}` } }],
    delayMs,
  })),
  'Done.',
]
// Limits raised so that one turn reaches ROUNDS rounds.
const client = (delayMs = 0) =>
  ChatClient.builder(new ScriptedChatModel(script(delayMs)))
    .defaultTools(lookup)
    .toolCallingAdvisor(
      ToolCallingAdvisor.builder()
        .maxIterations(ROUNDS + 1)
        .toolCallingManager(
          ToolCallingManager.builder()
            .limits({ perTool: 2 * ROUNDS, total: 2 * ROUNDS })
            .build(),
        ),
    )
    .build()

async function partsOnly(): Promise<number> {
  const begin = performance.now()
  // With a signal, as the chat's requests have one.
  const stream = client().prompt('go').signal(new AbortController().signal).stream()
  for await (const _event of stream.parts());
  return performance.now() - begin
}

async function chatTurn(delayMs = 0): Promise<number> {
  const chat = createChat(client(delayMs))
  chat.subscribe(() => {})
  const begin = performance.now()
  await chat.send('go')
  const took = performance.now() - begin
  const { status, messages } = chat.getSnapshot()
  if (status !== 'idle' || messages[1]!.toolCalls.length !== ROUNDS) throw new Error(`The turn ended ${status}`)
  return took
}

const samples = { rebuilt: [] as number[], rebuiltLongest: [] as number[], incremental: [] as number[] }
const longest = { incremental: [] as number[] }
const turns = { parts: [] as number[], chat: [] as number[] }
for (let sample = 0; sample < 9; sample++) {
  const a = rebuiltEachEvent()
  const b = incremental()
  samples.rebuilt.push(a.totalMs)
  samples.rebuiltLongest.push(a.longestEventMs)
  samples.incremental.push(b.totalMs)
  longest.incremental.push(b.longestEventMs)
  turns.parts.push(await partsOnly())
  turns.chat.push(await chatTurn())
}
/**
 * In a browser: the long tasks (over 50 ms) of a turn, as a page sees them (the task that was running
 * when the observer started left out). With an instant model and tool the 300 rounds come as one
 * burst of microtasks: one task, as long as the work done for its events.
 */
async function longTasks(turn: () => Promise<unknown>): Promise<{ count: number; longestMs: number } | null> {
  if (typeof PerformanceObserver === 'undefined' || !PerformanceObserver.supportedEntryTypes.includes('longtask'))
    return null
  const tasks: PerformanceEntry[] = []
  const observer = new PerformanceObserver((list) => tasks.push(...list.getEntries()))
  observer.observe({ type: 'longtask' })
  await new Promise((resolve) => setTimeout(resolve, 0))
  const start = performance.now()
  await turn()
  await new Promise((resolve) => setTimeout(resolve, 100))
  observer.disconnect()
  const durations = tasks.filter((task) => task.startTime >= start).map((task) => task.duration)
  return { count: durations.length, longestMs: round(Math.max(0, ...durations), 1) }
}

/** The same turn read with `.stream().parts()`, its bubble built again on every event (what useChat did before the chat object). */
async function rebuiltTurn(delayMs: number): Promise<void> {
  let list: ChatMessageView[] = [...earlier, start()]
  for await (const event of client(delayMs).prompt('go').stream().parts())
    list = list.map((bubble) => {
      if (bubble.id !== 'answer') return bubble
      const parts = withStreamPart(bubble.parts, event)
      return parts === bubble.parts ? bubble : bubbleOf(bubble, parts)
    })
}

const burstTasks = { chat: await longTasks(() => chatTurn(0)), rebuilt: await longTasks(() => rebuiltTurn(0)) }
const [rebuilt, done] = [median(samples.rebuilt), median(samples.incremental)]
report('chat-burst', {
  rounds: ROUNDS,
  events: events.length,
  rebuiltEachEventMs: round(rebuilt, 2),
  incrementalMs: round(done, 2),
  ratio: round(rebuilt / done, 1),
  longestEventRebuiltMs: round(median(samples.rebuiltLongest), 3),
  longestEventIncrementalMs: round(median(longest.incremental), 3),
  turnPartsOnlyMs: round(median(turns.parts), 1),
  turnThroughChatMs: round(median(turns.chat), 1),
  chatOverPartsRatio: round(median(turns.chat) / median(turns.parts), 2),
  longTasksOfTheBurst: burstTasks,
})
