// Framework time per tool round (the model and the tool answer at once) at round 10 and at round
// 1000 of one conversation, against a hand-written loop doing the same work in the same run; with
// and without an ObserverAdvisor at its default options (in a page: with the performance track)
// writing to a sink that does nothing. Runs in Node and in Chromium (bench/run.mjs).
import {
  ChatClient,
  ObserverAdvisor,
  ToolCallingAdvisor,
  ToolCallingManager,
  type ChatModel,
  type Message,
  type Prompt,
  type ToolCall,
} from '../src'
import { answer, tick, toolCall } from './looping-client'
import { median, report, round } from './measure'

const ROUNDS = 1000
const WINDOW = 50

/** A model that asks for `tick` ROUNDS times, then answers; it records when each round reached it. */
function instantModel(stamps: number[]): ChatModel {
  return {
    provider: 'bench',
    call: async () => {
      stamps.push(performance.now())
      return stamps.length <= ROUNDS ? toolCall(stamps.length) : answer
    },
    // eslint-disable-next-line require-yield
    stream: async function* () {
      throw new Error('not used')
    },
  }
}

/**
 * Mean time per round over rounds [from, from + size), garbage collection included: a page's clock
 * ticks in 5 µs (100 µs unless cross-origin isolated), too coarse to time one round.
 */
function perRound(stamps: number[], from: number, size = WINDOW): number {
  return ((stamps[from + size - 1]! - stamps[from - 1]!) * 1000) / size
}

const noopSink = { emit: () => {} }

async function frameworkRun(observed = false): Promise<number[]> {
  const stamps: number[] = []
  // Limits raised so that one conversation can reach ROUNDS rounds.
  const manager = ToolCallingManager.builder()
    .limits({ perTool: 10 * ROUNDS, total: 10 * ROUNDS })
    .build()
  const client = ChatClient.builder(instantModel(stamps))
    .defaultTools(tick)
    .defaultAdvisors(...(observed ? [new ObserverAdvisor({ sink: noopSink })] : []))
    .toolCallingAdvisor(
      ToolCallingAdvisor.builder()
        .maxIterations(ROUNDS + 1)
        .toolCallingManager(manager),
    )
    .build()
  await client.prompt('count').call().content()
  return stamps
}

/** The same conversation with no framework: call, run the tool, append, repeat. */
async function handWrittenRun(): Promise<number[]> {
  const stamps: number[] = []
  const model = instantModel(stamps)
  const messages: Message[] = [{ role: 'user', text: 'count' }]
  const prompt: Prompt = { messages, options: { tools: [tick] } }
  for (;;) {
    const response = await model.call(prompt)
    const output = response.results[0]!.output
    if (output.toolCalls.length === 0) break
    messages.push(output)
    const responses = await Promise.all(
      output.toolCalls.map(async (call: ToolCall) => ({
        id: call.id,
        name: call.name,
        responseData: await tick.call(call.arguments, { values: {}, advisorContext: {}, toolCall: call }),
      })),
    )
    messages.push({ role: 'tool', responses })
  }
  return stamps
}

// The first conversations of a page or process run while the JIT still compiles the loop (tens of
// µs per round at first): they are run and left out, as an app pays that once, not per round.
const warmUp = 8
for (let i = 0; i < warmUp; i++) {
  await frameworkRun(true)
  await frameworkRun()
  await handWrittenRun()
}

const runs = 9
const framework10: number[] = []
const framework1000: number[] = []
const hand10: number[] = []
const hand1000: number[] = []
const observed10: number[] = []
const observed1000: number[] = []
const observedGrowth: number[] = []
for (let i = 0; i < runs; i++) {
  const o = await frameworkRun(true)
  observed10.push(perRound(o, 11))
  observed1000.push(perRound(o, ROUNDS - WINDOW))
  observedGrowth.push(perRound(o, ROUNDS - 100, 100) / perRound(o, 1, 100))
  const f = await frameworkRun()
  const h = await handWrittenRun()
  framework10.push(perRound(f, 11))
  framework1000.push(perRound(f, ROUNDS - WINDOW))
  hand10.push(perRound(h, 11))
  hand1000.push(perRound(h, ROUNDS - WINDOW))
}

const at10 = median(framework10)
const at1000 = median(framework1000)
const handAt10 = median(hand10)
const handAt1000 = median(hand1000)
const observedAt10 = median(observed10)
const observedAt1000 = median(observed1000)
report('tool-loop', {
  what: 'time per tool round, model and tool answering at once; framework = ChatClient + auto-registered ToolCallingAdvisor; observed = + ObserverAdvisor, default options, no-op sink',
  frameworkMicrosAtRound10: round(at10, 2),
  frameworkMicrosAtRound1000: round(at1000, 2),
  growthRound1000VsRound10: round(at1000 / at10, 2),
  handWrittenMicrosAtRound10: round(handAt10, 2),
  handWrittenMicrosAtRound1000: round(handAt1000, 2),
  ratioToHandWrittenAtRound10: round(at10 / handAt10, 2),
  ratioToHandWrittenAtRound1000: round(at1000 / handAt1000, 2),
  withObserverMicrosAtRound10: round(observedAt10, 2),
  withObserverMicrosAtRound1000: round(observedAt1000, 2),
  withObserverRatioToHandWrittenAtRound10: round(observedAt10 / handAt10, 2),
  withObserverRatioToHandWrittenAtRound1000: round(observedAt1000 / handAt1000, 2),
  withObserverGrowthLast100VsFirst100Rounds: round(median(observedGrowth), 2),
  observerOverheadMicrosAtRound1000: round(observedAt1000 - at1000, 2),
})
