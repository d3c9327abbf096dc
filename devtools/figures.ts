import type { Usage, RoundView, RunView, RunViewStatus as Status } from 'advisor-chain/trace'

// Figures derived from a grouped run, computed when shown (each is a pass over one round's spans).

export interface RoundFigures {
  start: number
  /** The end of the round's last span (model call, tools, validation); undefined while it runs. */
  end: number | undefined
  status: Status
  durationMs: number | undefined
  modelMs: number | undefined
  /** Wall-clock time at least one tool was running (parallel calls overlap). */
  toolMs: number
  timeToFirstTokenMs: number | undefined
  tokensPerSecond: number | undefined
  usage: Usage | undefined
}

export function roundFigures(round: RoundView): RoundFigures {
  const model = round.model
  const response = model?.response
  let end = Math.max(round.end ?? -Infinity, model?.end ?? -Infinity)
  let open = round.status === 'running' || (model !== undefined && model.end === undefined)
  for (const tool of round.tools) {
    if (tool.end === undefined) open = true
    else end = Math.max(end, tool.end)
  }
  for (const validation of round.validations) end = Math.max(end, validation.t)
  const finished = !open && Number.isFinite(end)
  const status: Status = open ? 'running' : round.status === 'running' ? 'ok' : round.status
  const modelMs = model?.end === undefined ? undefined : model.end - model.start
  const timeToFirstTokenMs =
    response?.timeToFirstTokenMs ?? (model?.firstToken === undefined ? undefined : model.firstToken - model.start)
  let tokensPerSecond = response?.tokensPerSecond
  if (tokensPerSecond === undefined && response?.usage && modelMs !== undefined) {
    const generating = (modelMs - (timeToFirstTokenMs ?? 0)) / 1000
    if (generating > 0) tokensPerSecond = response.usage.completionTokens / generating
  }
  return {
    start: round.start,
    end: finished ? end : undefined,
    status,
    durationMs: finished ? end - round.start : undefined,
    modelMs,
    toolMs: busyTime(round.tools),
    timeToFirstTokenMs,
    tokensPerSecond,
    usage: response?.usage,
  }
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
