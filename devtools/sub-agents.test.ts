import { ObserverAdvisor } from '../src/advisors'
import { agentTool, ChatClient } from '../src/client'
import { ScriptedChatModel, type ScriptFunction } from '../src/models'
import { defineTool } from '../src/tools'
import type { TraceEvent } from 'advisor-chain/trace'
import { describe, expect, it } from 'vitest'
import { createDevtoolsStore } from './store'
import { agentToolName, nestedRuns, subAgentFigures, subAgentRuns } from './sub-agents'

const delegating =
  (tool: string, id: string): ScriptFunction =>
  (prompt) => {
    const last = prompt.messages.at(-1)!
    if (last.role === 'tool') return { text: `got: ${last.responses[0]!.responseData}`, usage: usage(10, 5) }
    return { toolCalls: [{ id, name: tool, arguments: { task: 'do it' } }], usage: usage(10, 5) }
  }
const usage = (promptTokens: number, completionTokens: number) => ({
  promptTokens,
  completionTokens,
  totalTokens: promptTokens + completionTokens,
})

/** A parent that calls `research`, whose agent calls `deeper`, whose agent answers after one tool call. */
async function recorded() {
  const store = createDevtoolsStore()
  const echo = defineTool({
    name: 'echo',
    description: 'Echo',
    inputSchema: { type: 'object' },
    execute: () => 'echoed',
  })
  const deepest = ChatClient.builder(new ScriptedChatModel(delegating('echo', 'e1')))
    .defaultTools(echo)
    .build()
  const middle = ChatClient.builder(new ScriptedChatModel(delegating('deeper', 'd1')))
    .defaultTools(agentTool(deepest, { name: 'deeper', description: 'Deeper' }))
    .build()
  const parent = ChatClient.builder(new ScriptedChatModel(delegating('research', 'r1')))
    .defaultAdvisors(new ObserverAdvisor({ sink: store, performanceTrack: false }))
    .defaultTools(agentTool(middle, { name: 'research', description: 'Research' }))
    .build()
  await parent.prompt('top').call().content()
  await parent.prompt('again').call().content()
  return store
}

describe("sub-agents' runs in the devtools", () => {
  it('nest under the run that called them, newest top-level run first', async () => {
    const store = await recorded()
    const runs = store.runs()
    expect(runs).toHaveLength(6)
    const rows = nestedRuns(runs)
    expect(rows.map(({ depth }) => depth)).toEqual([0, 1, 2, 0, 1, 2])
    expect(rows[0]!.run.label).toBe('again')
    expect(rows.map(({ run }) => agentToolName(runs, run))).toEqual([
      undefined,
      'research',
      'deeper',
      undefined,
      'research',
      'deeper',
    ])
    expect(subAgentRuns(runs, rows[0]!.run, 'r1')).toEqual([rows[1]!.run])
    expect(subAgentRuns(runs, rows[0]!.run, 'other')).toEqual([])
  })

  it("count what was spent inside the sub-agents apart from the parent's own figures", async () => {
    const store = await recorded()
    const top = nestedRuns(store.runs())[0]!.run
    const figures = subAgentFigures(store.runs(), top)
    expect(figures.runs).toBe(2)
    expect(figures.toolCalls).toBe(2)
    expect(figures.usage).toEqual({ promptTokens: 40, completionTokens: 20, totalTokens: 60 })
    expect(figures.modelMs).toBeGreaterThanOrEqual(0)
    // The parent's own figures stay its own.
    expect(top.usage).toEqual({ promptTokens: 20, completionTokens: 10, totalTokens: 30 })
    expect(top.toolCalls).toBe(1)
  })

  it('show every run once when a file links runs in a circle', () => {
    const store = createDevtoolsStore()
    const start = (runId: string, parentRunId: string): TraceEvent =>
      ({
        v: 1,
        type: 'run-start',
        runId,
        seq: 0,
        t: 0,
        round: 0,
        mode: 'call',
        startedAt: 0,
        observer: 'inside-loop',
        chain: [],
        parentRunId,
        parentToolCallId: 'c',
      }) as unknown as TraceEvent
    for (const event of [start('a', 'b'), start('b', 'a'), start('c', 'c')]) store.emit(event)
    const rows = nestedRuns(store.runs())
    expect(rows.map(({ run }) => run.id).sort()).toEqual(['a', 'b', 'c'])
    expect(subAgentFigures(store.runs(), store.run('a')!).runs).toBe(1)
  })
})
