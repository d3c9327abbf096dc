import { costOfRuns, type CostSum, type RunView } from 'advisor-chain/trace'
import { subAgentRuns } from './sub-agents'

// What runs cost in dollars, as the observer's `pricing` put it on each model response: per run,
// per the sub-agents a run started, and over every run the panel holds (the session).

export interface RunCosts {
  run: CostSum
  /** The run's sub-agents, their own sub-agents included. */
  subAgents: CostSum
  /** Every run the panel holds that no other run started, with their sub-agents. */
  session: CostSum
}

export function runCosts(runs: readonly RunView[], run: RunView): RunCosts {
  return { run: costOfRuns([run]), subAgents: costOfRuns(descendants(runs, run)), session: costOfRuns(runs) }
}

/** Dollars, with the digits a small sum needs (`$0.0057`, `$1.24`). */
export function usd(value: number): string {
  if (value === 0) return '$0'
  if (value >= 1) return `$${value.toFixed(2)}`
  return `$${value.toPrecision(2).replace(/0+$/, '')}`
}

/**
 * A sum as the panel shows it: `~` and "estimated" when some usage was guessed, never a cost for
 * responses without a price (undefined when none had one).
 */
export function costText(sum: CostSum): string | undefined {
  if (sum.usd === undefined) return undefined
  const text = sum.estimated ? `~${usd(sum.usd)} (estimated)` : usd(sum.usd)
  return sum.unpriced > 0 ? `${text}, ${sum.unpriced} without a price` : text
}

function descendants(runs: readonly RunView[], run: RunView): RunView[] {
  const found: RunView[] = []
  const seen = new Set([run.id])
  const add = (parent: RunView) => {
    for (const child of subAgentRuns(runs, parent)) {
      if (seen.has(child.id)) continue
      seen.add(child.id)
      found.push(child)
      add(child)
    }
  }
  add(run)
  return found
}
