import type { Usage, RoundView, RunView, RunViewStatus as Status } from 'advisor-chain/trace'
import { formatCount } from './number-format'

// Figures derived from a grouped run, computed when shown (each is a pass over one round's spans).

export interface RoundFigures {
  start: number
  /** The end of the round's last span (model call, tools, validation); undefined while it runs. */
  end: number | undefined
  status: Status
  durationMs: number | undefined
  modelMs: number | undefined
  /** Wall-clock time at least one tool was running (parallel calls overlap), setup not counted. */
  toolMs: number
  /** Wall-clock time tool calls waited for the user's approval. */
  approvalMs: number
  /** Wall-clock time spent preparing tool calls (loading validators), apart from the tools' own time. */
  setupMs: number
  timeToFirstTokenMs: number | undefined
  tokensPerSecond: number | undefined
  usage: Usage | undefined
}

export function roundFigures(round: RoundView): RoundFigures {
  const model = round.model
  const response = model?.response
  let end = Math.max(round.end ?? -Infinity, model?.end ?? -Infinity)
  // Once the run has ended nothing in it is running: a span without an end was cut off.
  let open = !round.closed && (round.status === 'running' || (model !== undefined && model.end === undefined))
  for (const span of [...round.tools, ...round.waits]) {
    if (span.end === undefined) open ||= !round.closed
    else end = Math.max(end, span.end)
  }
  for (const validation of round.validations) end = Math.max(end, validation.t)
  const finished = !open && Number.isFinite(end)
  const status: Status = open ? 'running' : round.status === 'running' ? 'ok' : round.status
  const modelMs = model?.end === undefined ? undefined : model.end - model.start
  const timeToFirstTokenMs = model?.firstToken === undefined ? undefined : model.firstToken - model.start
  return {
    start: round.start,
    end: finished ? end : undefined,
    status,
    durationMs: finished ? end - round.start : undefined,
    modelMs,
    toolMs: busyTime(round.tools),
    approvalMs: busyTime(round.waits),
    setupMs: busyTime(round.tools.flatMap((tool) => (tool.setup ? [tool.setup] : []))),
    timeToFirstTokenMs,
    tokensPerSecond: tokensPerSecond(round, modelMs, timeToFirstTokenMs),
    usage: response?.usage,
  }
}

/**
 * Output tokens over the time they streamed, from the first token to the end of the call. Only
 * where all of it is known and text streamed: tool calls arrive whole, in no measurable time, so a
 * round that only calls tools has no speed (dividing by that instant gave 100,000s of tokens/s).
 */
function tokensPerSecond(
  round: RoundView,
  modelMs: number | undefined,
  timeToFirstTokenMs: number | undefined,
): number | undefined {
  const response = round.model?.response
  const output = response?.usage?.completionTokens
  if (!output || !response.text || modelMs === undefined || timeToFirstTokenMs === undefined) return undefined
  const streaming = (modelMs - timeToFirstTokenMs) / 1000
  return streaming > 0 ? output / streaming : undefined
}

/** The length of the union of the finished intervals. */
function busyTime(spans: ReadonlyArray<{ start: number; end?: number }>): number {
  const finished = spans.filter((span) => span.end !== undefined).sort((a, b) => a.start - b.start)
  let total = 0
  let from = -Infinity
  let to = -Infinity
  for (const span of finished) {
    if (span.start > to) {
      if (to > from) total += to - from
      from = span.start
      to = span.end!
    } else to = Math.max(to, span.end!)
  }
  if (to > from) total += to - from
  return total
}

export interface RunFigures {
  status: Status
  /** A failed tool, validation, model call or round, even when the run itself ended ok. */
  hasProblem: boolean
  durationMs: number | undefined
  rounds: number
  usage: Usage | undefined
  toolCalls: number
  toolErrors: number
}

export function runFigures(run: RunView): RunFigures {
  return {
    status: run.status,
    hasProblem: run.hasProblem,
    durationMs: run.end === undefined ? undefined : run.end - run.start,
    rounds: run.rounds.length,
    usage: run.usage,
    toolCalls: run.toolCalls,
    toolErrors: run.toolErrors,
  }
}

/** A run's tokens in → out, or why there are none. */
export function usageText(run: RunView): string {
  const usage = run.usage
  if (usage) return `${formatCount(usage.promptTokens)} → ${formatCount(usage.completionTokens)}`
  return run.status === 'running' ? 'none reported yet' : 'not reported by this model'
}

/** How a run reads at a glance: its status, `problem` when it ended ok despite a failure, `incomplete` for an imported run that never ended. */
export type RunState = Status | 'problem' | 'incomplete'

export function runState(run: RunView): RunState {
  if (run.status === 'running') return run.live ? 'running' : 'incomplete'
  return run.status === 'ok' && run.hasProblem ? 'problem' : run.status
}

export const RUN_STATE_WORDS: Record<RunState, string> = {
  running: 'running',
  ok: 'ok',
  problem: 'problems',
  error: 'failed',
  aborted: 'aborted',
  incomplete: 'incomplete',
}
