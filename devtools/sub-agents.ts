import type { RunView, TraceEvent, Usage } from 'advisor-chain/trace'

/** The runs a run's tool calls started (sub-agents, agentTool), oldest first; of one call when given. */
export function subAgentRuns(runs: readonly RunView[], parent: RunView, toolCallId?: string): RunView[] {
  return runs
    .filter(
      (run) => run.parent?.runId === parent.id && (toolCallId === undefined || run.parent.toolCallId === toolCallId),
    )
    .sort((a, b) => a.order - b.order)
}

/** The name of the tool call that started a sub-agent's run, as its parent recorded it. */
export function agentToolName(runs: readonly RunView[], run: RunView): string | undefined {
  const link = run.parent
  if (!link) return undefined
  const parent = runs.find((candidate) => candidate.id === link.runId)
  for (const round of parent?.rounds ?? []) {
    const tool = round.tools.find((span) => span.id === link.toolCallId)
    if (tool) return tool.name
  }
  return undefined
}

/**
 * Runs in list order with their depth: each run whose parent is not in the list where it is (a
 * top-level run, or a sub-agent's whose parent is filtered out), followed by its sub-agents' runs
 * (oldest first, each followed by its own).
 */
export function nestedRuns(runs: readonly RunView[]): Array<{ run: RunView; depth: number }> {
  const ids = new Set(runs.map((run) => run.id))
  const children = new Map<string, RunView[]>()
  for (const run of runs) {
    const parent = run.parent?.runId
    if (parent === undefined || !ids.has(parent) || parent === run.id) continue
    const list = children.get(parent) ?? []
    list.push(run)
    children.set(parent, list)
  }
  const out: Array<{ run: RunView; depth: number }> = []
  const placed = new Set<string>()
  const visit = (run: RunView, depth: number) => {
    // A file may link runs in a circle: each run shows once.
    if (placed.has(run.id)) return
    placed.add(run.id)
    out.push({ run, depth })
    for (const child of (children.get(run.id) ?? []).sort((a, b) => a.order - b.order)) visit(child, depth + 1)
  }
  for (const run of runs) if (!isNested(run, ids)) visit(run, 0)
  // Runs only reachable through a circle of parent links are shown at the top.
  for (const run of runs) visit(run, 0)
  return out
}

const isNested = (run: RunView, ids: ReadonlySet<string>) =>
  run.parent !== undefined && run.parent.runId !== run.id && ids.has(run.parent.runId)

/** What the sub-agents of a run spent (their own sub-agents included). */
export interface SubAgentFigures {
  runs: number
  /** Time the sub-agents' models took, summed over their model calls. */
  modelMs: number
  usage: Usage | undefined
  toolCalls: number
}

export function subAgentFigures(runs: readonly RunView[], run: RunView): SubAgentFigures {
  const figures: SubAgentFigures = { runs: 0, modelMs: 0, usage: undefined, toolCalls: 0 }
  const seen = new Set([run.id])
  const add = (parent: RunView) => {
    for (const child of subAgentRuns(runs, parent)) {
      if (seen.has(child.id)) continue
      seen.add(child.id)
      figures.runs++
      figures.toolCalls += child.toolCalls
      for (const round of child.rounds)
        if (round.model?.end !== undefined) figures.modelMs += round.model.end - round.model.start
      if (child.usage) {
        const usage = figures.usage ?? { promptTokens: 0, completionTokens: 0, totalTokens: 0 }
        figures.usage = {
          promptTokens: usage.promptTokens + child.usage.promptTokens,
          completionTokens: usage.completionTokens + child.usage.completionTokens,
          totalTokens: usage.totalTokens + child.usage.totalTokens,
        }
      }
      add(child)
    }
  }
  add(run)
  return figures
}

/** The newest run that no run in the list started (the panel's default), else the newest. */
export function newestTopLevel(runs: readonly RunView[]): RunView | undefined {
  const ids = new Set(runs.map((run) => run.id))
  return runs.find((run) => !run.parent || !ids.has(run.parent.runId)) ?? runs[0]
}

/**
 * The events of a run and of the runs above it: what a fork of a sub-agent's run needs to find the
 * sub-agent's client (the tool calls that started it, from the app's run down).
 */
export function eventsWithCallers(runs: readonly RunView[], run: RunView): TraceEvent[] {
  const chain = [run]
  for (let link = run.parent; link;) {
    const parent = runs.find((candidate) => candidate.id === link!.runId)
    if (!parent || chain.includes(parent)) break
    chain.push(parent)
    link = parent.parent
  }
  return chain.reverse().flatMap((each) => each.events)
}
