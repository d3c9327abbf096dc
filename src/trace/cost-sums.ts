import type { TraceEventOf } from './events'
import type { RoundView, RunView } from './reader'

/** What model responses cost together, as their trace events say (ObserverAdvisor's `pricing`). */
export interface CostSum {
  /** US dollars over the responses that had a price; undefined when none had one (never 0 for "unknown"). */
  usd: number | undefined
  /** Some of the sum comes from usage the provider did not report (token counts guessed). */
  estimated: boolean
  /** Responses without a price, left out of `usd`. */
  unpriced: number
  /** What the responses the client's model answered would have cost at the escalation fallback's price. */
  fallbackUsd: number | undefined
  /** How many responses the sum covers. */
  responses: number
}

const NOTHING: CostSum = { usd: undefined, estimated: false, unpriced: 0, fallbackUsd: undefined, responses: 0 }

/** The cost of some model responses. */
export function costOfResponses(responses: Iterable<TraceEventOf<'model-response'> | undefined>): CostSum {
  const sum = { ...NOTHING }
  for (const response of responses) {
    if (!response) continue
    sum.responses++
    if (response.costUsd === undefined) sum.unpriced++
    else sum.usd = (sum.usd ?? 0) + response.costUsd
    if (response.costEstimated) sum.estimated = true
    if (response.fallbackCostUsd !== undefined) sum.fallbackUsd = (sum.fallbackUsd ?? 0) + response.fallbackCostUsd
  }
  return sum
}

export function costOfRound(round: RoundView): CostSum {
  return costOfResponses([round.model?.response])
}

/** The cost of runs: each run's rounds (a sub-agent's run is a run of its own: pass it too to count it). */
export function costOfRuns(runs: Iterable<RunView>): CostSum {
  const responses: Array<TraceEventOf<'model-response'> | undefined> = []
  for (const run of runs) for (const round of run.rounds) responses.push(round.model?.response)
  return costOfResponses(responses)
}
