import { assistantMessage, userMessage, type Message } from '../core'
import {
  cutAt,
  estimateEvents,
  positiveInteger,
  snapToTurnStart,
  unchanged,
  type CompactionRequest,
  type CompactionResult,
  type CompactionStrategy,
} from './compaction'
import { isSynthetic, type SessionEvent } from './session'
import { isReal } from './session-view'
import { rawCut } from './sliding-window-compaction-strategy'
import { textOfMessage } from './token-count-estimator'

/** What writes the summary: a ChatClient (the in-browser model itself, or a remote one) without session memory. */
export interface SummaryClient {
  prompt(): SummaryRequestSpec
}

export interface SummaryRequestSpec {
  system(text: string): SummaryRequestSpec
  user(text: string): SummaryRequestSpec
  signal(signal: AbortSignal): SummaryRequestSpec
  call(): { content(): Promise<string | null> }
}

/** Why a summary was not used; the compaction then keeps a plain window. */
export interface SummarizationFailure {
  request: CompactionRequest
  reason: 'failed' | 'aborted' | 'blank' | 'longer'
  error?: unknown
}

export const DEFAULT_SUMMARY_SYSTEM_PROMPT = `You summarize a conversation. Your summary replaces the conversation's older messages in the context window, so it must keep everything needed to go on coherently.
- Keep the key facts, decisions, user preferences and outcomes.
- Note open questions and pending actions.
- Write in the third person ("The user asked…", "The assistant explained…").
- Be concise and complete; leave out filler and repetition.
- When a prior summary is given, fold it in rather than repeating it.`

export const DEFAULT_SUMMARY_SHADOW_PROMPT = 'Summarize the conversation we had so far.'

/**
 * Keeps the newest `maxEventsToKeep` root events (default 10) and replaces the older ones (and an
 * earlier summary) with a summary the `chatClient` writes, given `overlapSize` kept events (default 2)
 * for continuity. A summary that fails, is aborted, comes back blank or is not shorter than what it
 * replaces is not used: the same turns leave the view as a plain window, the earlier summary stays.
 */
export class RecursiveSummarizationCompactionStrategy implements CompactionStrategy {
  static readonly DEFAULT_MAX_EVENTS_TO_KEEP = 10
  static readonly DEFAULT_OVERLAP_SIZE = 2
  readonly name = 'recursive-summarization'

  constructor(
    readonly chatClient: SummaryClient,
    readonly maxEventsToKeep = RecursiveSummarizationCompactionStrategy.DEFAULT_MAX_EVENTS_TO_KEEP,
    readonly overlapSize = RecursiveSummarizationCompactionStrategy.DEFAULT_OVERLAP_SIZE,
    readonly systemPrompt = DEFAULT_SUMMARY_SYSTEM_PROMPT,
    readonly onSummarizationFailure?: (failure: SummarizationFailure) => void,
  ) {
    positiveInteger(maxEventsToKeep, 'RecursiveSummarizationCompactionStrategy maxEventsToKeep')
    if (!Number.isSafeInteger(overlapSize) || overlapSize < 0 || overlapSize >= maxEventsToKeep)
      throw new RangeError(
        `RecursiveSummarizationCompactionStrategy overlapSize must be a whole number from 0 to maxEventsToKeep - 1 (${maxEventsToKeep - 1}), got ${overlapSize}`,
      )
  }

  static builder(chatClient: SummaryClient): RecursiveSummarizationCompactionStrategyBuilder {
    return new RecursiveSummarizationCompactionStrategyBuilder(chatClient)
  }

  async compact(request: CompactionRequest): Promise<CompactionResult> {
    const real = request.events.filter(isReal)
    const cut = snapToTurnStart(real, rawCut(request, this.maxEventsToKeep))
    if (cut === 0) return unchanged(request.events)
    const covered = real.slice(0, cut)
    const prior = request.events.filter(isSynthetic)
    const overlap = real.slice(cut, cut + this.overlapSize)
    const failed = (reason: SummarizationFailure['reason'], error?: unknown) => {
      this.onSummarizationFailure?.({ request, reason, ...(error === undefined ? {} : { error }) })
      return cutAt(request, cut)
    }
    let text: string | null
    try {
      let spec = this.chatClient
        .prompt()
        .system(this.systemPrompt)
        .user(summaryPrompt(prior, covered, overlap))
      if (request.signal) spec = spec.signal(request.signal)
      text = await spec.call().content()
    } catch (error) {
      return failed(request.signal?.aborted ? 'aborted' : 'failed', error)
    }
    if (!text?.trim()) return failed('blank')
    const summary: Message[] = [userMessage(DEFAULT_SUMMARY_SHADOW_PROMPT), assistantMessage(text.trim())]
    const replaced = await estimateEvents(request.tokenCountEstimator, [...prior, ...covered])
    // The view must shrink: a summary as long as what it replaces is refused.
    if ((await request.tokenCountEstimator.estimate(summary)) >= replaced) return failed('longer')
    return cutAt(request, cut, summary, true)
  }
}

export class RecursiveSummarizationCompactionStrategyBuilder {
  #maxEventsToKeep = RecursiveSummarizationCompactionStrategy.DEFAULT_MAX_EVENTS_TO_KEEP
  #overlapSize = RecursiveSummarizationCompactionStrategy.DEFAULT_OVERLAP_SIZE
  #systemPrompt = DEFAULT_SUMMARY_SYSTEM_PROMPT
  #onFailure: ((failure: SummarizationFailure) => void) | undefined

  constructor(private readonly chatClient: SummaryClient) {}

  maxEventsToKeep(n: number): this {
    this.#maxEventsToKeep = n
    return this
  }

  overlapSize(n: number): this {
    this.#overlapSize = n
    return this
  }

  systemPrompt(text: string): this {
    this.#systemPrompt = text
    return this
  }

  /** Told when a summary is not used (the compaction keeps a plain window instead). */
  onSummarizationFailure(callback: (failure: SummarizationFailure) => void): this {
    this.#onFailure = callback
    return this
  }

  build(): RecursiveSummarizationCompactionStrategy {
    return new RecursiveSummarizationCompactionStrategy(
      this.chatClient,
      this.#maxEventsToKeep,
      this.#overlapSize,
      this.#systemPrompt,
      this.#onFailure,
    )
  }
}

function summaryPrompt(
  prior: readonly SessionEvent[],
  covered: readonly SessionEvent[],
  overlap: readonly SessionEvent[],
): string {
  const parts: string[] = []
  const priorText = prior
    .filter((event) => event.message.role === 'assistant')
    .map((event) => textOfMessage(event.message))
  if (priorText.length > 0) parts.push('=== PRIOR SUMMARY ===', ...priorText, '')
  parts.push('=== CONVERSATION TO SUMMARIZE ===', ...covered.map(line), '')
  if (overlap.length > 0) parts.push('=== WHAT FOLLOWS (context only, do not summarize) ===', ...overlap.map(line))
  return parts.join('\n')
}

function line(event: SessionEvent): string {
  const role = { system: 'System', user: 'User', assistant: 'Assistant', tool: 'Tool' }[event.message.role]
  return `${role}: ${textOfMessage(event.message)}`
}
