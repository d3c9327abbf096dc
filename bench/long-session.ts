// What the long-session benches share (long-session-scripted in Node, long-session-llamacpp in
// Chromium): the conversation of issue 42's measurement — ~100-character questions, one tool round a
// turn whose result is ~640 characters — the number of turns (`npm run bench -- long-session --turns N`,
// default 300), a model wrapper that meters every request the model gets, and the tally of a run.
import {
  SessionError,
  defineTool,
  isContextOverflow,
  type CallAdvisor,
  type ChainEvent,
  type ChainEventListener,
  type ChatModel,
  type ChatResponse,
  type Prompt,
  type StreamAdvisor,
} from '../src'
import { median, round } from './measure'

export const DEFAULT_TURNS = 300

/** The turns to run: `--turns N` (bench/run.mjs passes it as BENCH_TURNS in Node, `benchTurns` in the page). */
export function turnCount(): number {
  const fromNode = typeof process === 'undefined' ? undefined : process.env['BENCH_TURNS']
  const given = fromNode ?? (globalThis as { benchTurns?: string }).benchTurns
  if (given === undefined || given === '') return DEFAULT_TURNS
  const turns = Number(given)
  if (!Number.isSafeInteger(turns) || turns < 1)
    throw new Error(`--turns must be a whole number above 0, got '${given}'`)
  return turns
}

export const TOPICS = ['trains', 'weather', 'prices', 'museums', 'hotels'] as const

/** About 100 characters, different every turn. */
export function question(turn: number): string {
  const topic = TOPICS[turn % TOPICS.length]!
  return `Turn ${turn}: what do you know about the ${topic} in town this week, and is anything worth a visit?`
    .padEnd(100, '.')
    .slice(0, 100)
}

/** About 640 characters a call, as in the measurement the issue reports. */
export const lookup = defineTool({
  name: 'lookup',
  description: 'Looks a topic up',
  inputSchema: {
    type: 'object',
    properties: { topic: { enum: [...TOPICS] } },
    required: ['topic'],
    additionalProperties: false,
  },
  execute: ({ topic }: { topic: string }) =>
    `Found for ${topic}: `.padEnd(640, ` the ${topic} listing says open daily, tickets at the door, busy at noon;`),
})

/**
 * Passes every request to `model` and meters it: requests, the ones refused as longer than the
 * window (the engine's or provider's own context error), and the largest prompt (and prompt plus
 * answer) the model reported in its usage.
 */
export class MeteredModel implements ChatModel {
  readonly provider: string
  requests = 0
  refusals = 0
  refusalMessages: string[] = []
  peakPromptTokens = 0
  peakTotalTokens = 0

  constructor(readonly model: ChatModel) {
    this.provider = model.provider
    // The session advisor counts with the model's tokenizer when it has one.
    if (model.countTokens) this.countTokens = (prompt, signal) => model.countTokens!(prompt, signal)
  }

  countTokens?: (prompt: Prompt, signal?: AbortSignal) => Promise<number>

  get contextWindow(): number | undefined {
    return this.model.contextWindow
  }

  async call(prompt: Prompt, signal?: AbortSignal): Promise<ChatResponse> {
    this.requests++
    try {
      return this.#seen(await this.model.call(prompt, signal))
    } catch (error) {
      throw this.#failed(error)
    }
  }

  async *stream(prompt: Prompt, signal?: AbortSignal): AsyncGenerator<ChatResponse, void, undefined> {
    this.requests++
    try {
      for await (const chunk of this.model.stream(prompt, signal)) yield this.#seen(chunk)
    } catch (error) {
      throw this.#failed(error)
    }
  }

  #seen(response: ChatResponse): ChatResponse {
    const usage = response.metadata.usage
    if (usage) {
      this.peakPromptTokens = Math.max(this.peakPromptTokens, usage.promptTokens)
      this.peakTotalTokens = Math.max(this.peakTotalTokens, usage.promptTokens + usage.completionTokens)
    }
    return response
  }

  #failed(error: unknown): unknown {
    if (isContextOverflow(error)) {
      this.refusals++
      if (this.refusalMessages.length < 3) this.refusalMessages.push(String((error as Error).message).slice(0, 200))
    }
    return error
  }
}

/** Counts the compactions the session advisor reports (its `compaction` events), by what set them off. */
export class CompactionCounter implements CallAdvisor, StreamAdvisor, ChainEventListener {
  readonly name = 'Compaction counter'
  readonly order = 0
  readonly byTrigger: Record<string, number> = {}
  total = 0

  adviseCall: CallAdvisor['adviseCall'] = (request, chain) => chain.nextCall(request)
  adviseStream: StreamAdvisor['adviseStream'] = (request, chain) => chain.nextStream(request)

  onChainEvent(event: ChainEvent): void {
    if (event.type !== 'compaction') return
    this.total++
    this.byTrigger[event.trigger] = (this.byTrigger[event.trigger] ?? 0) + 1
  }
}

export interface ConversationTally {
  turns: number
  completed: number
  failed: number
  /** Turns that failed because the prompt did not fit (the model's refusal, or the session's `context-window`). */
  contextErrors: number
  /** The first turn that failed, from 0 (null when none did). */
  firstFailedTurn: number | null
  firstFailures: string[]
  msPerTurnMedian: number
  msPerTurnMean: number
  seconds: number
}

/** Runs `turns` turns of `ask`, counting the ones that fail and why, and timing each. */
export async function converse(turns: number, ask: (turn: number) => Promise<unknown>): Promise<ConversationTally> {
  const times: number[] = []
  const firstFailures: string[] = []
  let failed = 0
  let contextErrors = 0
  let firstFailedTurn: number | null = null
  const started = performance.now()
  for (let turn = 0; turn < turns; turn++) {
    const start = performance.now()
    try {
      await ask(turn)
    } catch (error) {
      failed++
      firstFailedTurn ??= turn
      if (isContextOverflow(error) || (error instanceof SessionError && error.code === 'context-window'))
        contextErrors++
      if (firstFailures.length < 3)
        firstFailures.push(
          `turn ${turn}: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`.slice(0, 900),
        )
    }
    times.push(performance.now() - start)
  }
  const total = performance.now() - started
  return {
    turns,
    completed: turns - failed,
    failed,
    contextErrors,
    firstFailedTurn,
    firstFailures,
    msPerTurnMedian: round(median(times), 2),
    msPerTurnMean: round(total / turns, 2),
    seconds: round(total / 1000, 1),
  }
}
