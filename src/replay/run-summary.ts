import { TraceReader, type RunView, type TraceEvent } from '../trace'

/** A run as a test wants to assert on it: rounds, tool calls with parsed arguments, validation attempts. */
export interface RunSummary {
  runId: string
  status: 'ok' | 'error' | 'aborted' | 'running'
  rounds: Array<{
    round: number
    text: string
    toolCalls: Array<{ id: string; name: string; arguments: unknown; result?: string; error?: string }>
  }>
  validations: Array<{ attempt: number; valid: boolean; errors: string[] }>
  retries: number
  /** The answer of the last round. */
  finalText: string
  finishReason?: string
  /** The run this one re-runs from one of its rounds (see `forkRun`). */
  forkOf?: { runId: string; round: number }
}

/** The run `runId` of `events`, read by the trace reader and reduced to what tests assert on. */
export function summarizeRun(events: readonly TraceEvent[], runId: string): RunSummary {
  const reader = new TraceReader()
  for (const event of events) if (event.runId === runId) reader.add(event, false)
  const run = reader.run(runId)
  return run ? summaryOf(run) : { runId, status: 'running', rounds: [], validations: [], retries: 0, finalText: '' }
}

function summaryOf(run: RunView): RunSummary {
  const rounds = run.rounds.map((round) => ({
    round: round.round,
    text: round.model?.response?.text ?? '',
    toolCalls: round.tools.map((span) => ({
      id: span.id,
      name: span.name,
      arguments: parse(span.arguments),
      ...(span.result === undefined ? {} : { result: span.result }),
      ...(span.error === undefined ? {} : { error: span.error }),
    })),
  }))
  return {
    runId: run.id,
    status: run.status,
    rounds,
    validations: run.rounds.flatMap((round) =>
      round.validations.map(({ attempt, valid, errors }) => ({ attempt, valid, errors })),
    ),
    retries: run.retries.length + run.rounds.reduce((sum, round) => sum + round.retries.length, 0),
    finalText: rounds.at(-1)?.text ?? '',
    ...(run.finishReason === undefined ? {} : { finishReason: run.finishReason }),
    ...(run.forkOf ? { forkOf: run.forkOf } : {}),
  }
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown
  } catch {
    return text
  }
}
