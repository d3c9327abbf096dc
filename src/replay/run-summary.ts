import type { TraceEvent } from '../trace'

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

export function summarizeRun(events: readonly TraceEvent[], runId: string): RunSummary {
  const summary: RunSummary = { runId, status: 'running', rounds: [], validations: [], retries: 0, finalText: '' }
  const roundOf = (number: number) => {
    let round = summary.rounds.find((candidate) => candidate.round === number)
    if (!round) summary.rounds.push((round = { round: number, text: '', toolCalls: [] }))
    return round
  }
  for (const event of events) {
    if (event.runId !== runId) continue
    switch (event.type) {
      case 'run-start':
        if (event.forkOf) summary.forkOf = event.forkOf
        break
      case 'model-response':
        roundOf(event.round).text = event.text
        break
      case 'tool-start':
        roundOf(event.round).toolCalls.push({
          id: event.toolCall.id,
          name: event.toolCall.name,
          arguments: parse(event.toolCall.arguments),
        })
        break
      case 'tool-end': {
        // Calls are listed in the order they were made, whatever order they finish in.
        const calls = roundOf(event.round).toolCalls
        let call = calls.find((candidate) => candidate.id === event.toolCall.id && candidate.result === undefined)
        if (!call)
          calls.push(
            (call = { id: event.toolCall.id, name: event.toolCall.name, arguments: parse(event.toolCall.arguments) }),
          )
        call.result = event.result
        if (event.error !== undefined) call.error = event.error
        break
      }
      case 'validation':
        summary.validations.push({ attempt: event.attempt, valid: event.valid, errors: event.errors })
        break
      case 'retry':
        summary.retries++
        break
      case 'run-end':
        summary.status = event.status
        if (event.finishReason) summary.finishReason = event.finishReason
        break
    }
  }
  summary.rounds.sort((a, b) => a.round - b.round)
  summary.finalText = summary.rounds.at(-1)?.text ?? ''
  return summary
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown
  } catch {
    return text
  }
}
