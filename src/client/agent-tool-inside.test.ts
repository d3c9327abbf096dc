// What a parent sees of its sub-agents: their parts in its stream, their runs in its trace, their
// approvals in the app's queue, forks of their rounds, and how fast an abort reaches them.
import { describe, expect, it, vi } from 'vitest'
import { isAbortError, type Prompt, type StreamPart } from '../core'
import { ApprovalQueue, ObserverAdvisor, ToolApprovalAdvisor } from '../advisors'
import { ScriptedChatModel } from '../models'
import { forkRun } from '../replay'
import { defineTool } from '../tools'
import { ForkError, TraceCollector } from '../trace'
import { agentTool } from './agent-tool'
import { ChatClient } from './client'
import { delegating, toolAnswer } from './testing/delegating-script'

const weather = defineTool({
  name: 'weather',
  description: 'The weather in a city',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  execute: ({ city }: { city: string }) => `sunny in ${city}`,
})

/** A researcher that looks the weather up, then answers in two rounds' worth of text. */
function researcher(observer?: ObserverAdvisor) {
  const model = new ScriptedChatModel((prompt) => {
    const answer = toolAnswer(prompt)
    if (answer !== undefined) return { text: `It is ${answer}.`, chunks: ['It is ', `${answer}.`] }
    return { text: 'Checking. ', toolCalls: [{ id: 'w1', name: 'weather', arguments: { city: 'Oslo' } }] }
  })
  const builder = ChatClient.builder(model).defaultTools(weather)
  if (observer) builder.defaultAdvisors(observer)
  return { model, client: builder.build() }
}

async function partsOf(client: ChatClient, question: string): Promise<StreamPart[]> {
  const parts: StreamPart[] = []
  for await (const part of client.prompt(question).stream().parts()) parts.push(part)
  return parts
}

describe('agentTool inside a streamed parent', () => {
  it("carries the child's parts in the parent's parts, under the call that started them", async () => {
    const { client: child } = researcher()
    const parent = ChatClient.builder(new ScriptedChatModel(delegating('research', 'Weather in Oslo?')))
      .defaultTools(agentTool(child, { name: 'research', description: 'Researches' }))
      .build()

    const parts = await partsOf(parent, 'Ask the researcher')
    const inner = parts.filter((part) => part.type === 'agent-part')
    expect(inner.length).toBeGreaterThan(0)
    for (const part of inner) expect(part).toMatchObject({ id: 'call-research', name: 'research', round: 1 })
    const childParts = inner.map((part) => (part.type === 'agent-part' ? part.part : part))
    expect(childParts.map((part) => part.type)).toEqual(
      expect.arrayContaining(['round-start', 'tool-call-start', 'tool-call', 'tool-start', 'tool-result', 'finish']),
    )
    expect(childParts).toContainEqual(
      expect.objectContaining({ type: 'tool-result', id: 'w1', result: 'sunny in Oslo' }),
    )
    // The child's text is the child's: the parent's own text deltas are its answer only.
    const parentText = parts.flatMap((part) => (part.type === 'text-delta' ? [part.delta] : [])).join('')
    expect(parentText).toBe('got: It is sunny in Oslo.')
    // Between the parent's tool start and its result, in order.
    const start = parts.findIndex((part) => part.type === 'tool-start' && part.id === 'call-research')
    const end = parts.findIndex((part) => part.type === 'tool-result' && part.id === 'call-research')
    expect(parts.indexOf(inner[0]!)).toBeGreaterThan(start)
    expect(parts.indexOf(inner.at(-1)!)).toBeLessThan(end)
  })

  it('nests the parts of a sub-agent of a sub-agent twice, and answers with the last round only', async () => {
    const { client: grandchild } = researcher()
    const child = ChatClient.builder(new ScriptedChatModel(delegating('deeper', 'Weather?', 'call-deeper')))
      .defaultTools(agentTool(grandchild, { name: 'deeper', description: 'Goes deeper' }))
      .build()
    const parent = ChatClient.builder(new ScriptedChatModel(delegating('research')))
      .defaultTools(agentTool(child, { name: 'research', description: 'Researches' }))
      .build()

    const parts = await partsOf(parent, 'go')
    const nested = parts.flatMap((part) =>
      part.type === 'agent-part' && part.part.type === 'agent-part' ? [part.part] : [],
    )
    expect(nested.length).toBeGreaterThan(0)
    expect(nested[0]).toMatchObject({ id: 'call-deeper', name: 'deeper' })
    const result = parts.find((part) => part.type === 'tool-result' && part.id === 'call-research')
    // "Checking. " of the grandchild's first round is not in its answer.
    expect(result).toMatchObject({ result: 'got: It is sunny in Oslo.', isError: false })
  })

  it('runs the child as a call when the parent is not streamed', async () => {
    const { model, client: child } = researcher()
    const stream = vi.spyOn(model, 'stream')
    const parent = ChatClient.builder(new ScriptedChatModel(delegating('research')))
      .defaultTools(agentTool(child, { name: 'research', description: 'Researches' }))
      .build()
    expect(await parent.prompt('go').call().content()).toBe('got: It is sunny in Oslo.')
    expect(stream).not.toHaveBeenCalled()
  })
})

describe("a sub-agent in the parent's trace", () => {
  it("records the child's rounds with the parent's observer when the child has none", async () => {
    const trace = new TraceCollector()
    const { client: child } = researcher()
    const parent = ChatClient.builder(new ScriptedChatModel(delegating('research')))
      .defaultAdvisors(new ObserverAdvisor({ sink: trace, performanceTrack: false }))
      .defaultTools(agentTool(child, { name: 'research', description: 'Researches' }))
      .build()

    await partsOf(parent, 'go')
    const starts = trace.ofType('run-start')
    expect(starts).toHaveLength(2)
    const [top, sub] = starts
    expect(top!.parentRunId).toBeUndefined()
    expect(sub).toMatchObject({ parentRunId: top!.runId, parentToolCallId: 'call-research', mode: 'stream' })
    expect(trace.ofType('model-request', sub!.runId)).toHaveLength(2)
    const ends = trace.ofType('tool-end', sub!.runId)
    expect(ends).toHaveLength(1)
    expect(ends[0]).toMatchObject({ toolCall: { name: 'weather' }, result: 'sunny in Oslo' })
  })

  it('records the child once when it has an observer of its own', async () => {
    const parentTrace = new TraceCollector()
    const childTrace = new TraceCollector()
    const { client: child } = researcher(new ObserverAdvisor({ sink: childTrace, performanceTrack: false }))
    const parent = ChatClient.builder(new ScriptedChatModel(delegating('research')))
      .defaultAdvisors(new ObserverAdvisor({ sink: parentTrace, performanceTrack: false }))
      .defaultTools(agentTool(child, { name: 'research', description: 'Researches' }))
      .build()

    await parent.prompt('go').call().content()
    expect(parentTrace.ofType('run-start')).toHaveLength(1)
    expect(childTrace.ofType('run-start')).toEqual([
      expect.objectContaining({ parentRunId: parentTrace.ofType('run-start')[0]!.runId }),
    ])
  })

  it("masks the child's secrets in the parent's trace with the parent's rules", async () => {
    const trace = new TraceCollector()
    const leak = defineTool({
      name: 'vault',
      description: 'Reads the vault',
      inputSchema: { type: 'object' },
      execute: () => 'the code is SECRET-4711',
    })
    const child = ChatClient.builder(new ScriptedChatModel(delegating('vault')))
      .defaultTools(leak)
      .build()
    const parent = ChatClient.builder(new ScriptedChatModel(delegating('keeper')))
      .defaultAdvisors(
        new ObserverAdvisor({ sink: trace, performanceTrack: false, redact: { values: [/SECRET-\d+/] } }),
      )
      .defaultTools(agentTool(child, { name: 'keeper', description: 'Keeps secrets' }))
      .build()

    await partsOf(parent, 'go')
    expect(trace.ofType('run-start')).toHaveLength(2)
    const text = JSON.stringify(trace.events)
    expect(text).toContain('the code is ')
    // Digits alone could turn up in a timestamp: the secret's own text must not.
    expect(text).not.toContain('SECRET')
  })

  it("re-runs a round of the child's run with the child's client, recorded by the parent's observer", async () => {
    const trace = new TraceCollector()
    const { model: childModel, client: child } = researcher()
    const parent = ChatClient.builder(new ScriptedChatModel(delegating('research')))
      .defaultAdvisors(new ObserverAdvisor({ sink: trace, performanceTrack: false }))
      .defaultTools(agentTool(child, { name: 'research', description: 'Researches' }))
      .build()
    await parent.prompt('go').call().content()
    const sub = trace.ofType('run-start')[1]!
    const asked = childModel.prompts.length

    const fork = await forkRun(parent, { trace: trace.events, runId: sub.runId, round: 2 })
    expect(fork.answer).toBe('It is sunny in Oslo.')
    expect(childModel.prompts).toHaveLength(asked + 1)
    expect(trace.ofType('run-start', fork.runId)).toEqual([
      expect.objectContaining({ forkOf: { runId: sub.runId, round: 2 } }),
    ])
  })

  it('refuses to fork a child run whose tool is not an agent tool of the client', async () => {
    const trace = new TraceCollector()
    const { client: child } = researcher()
    const parent = ChatClient.builder(new ScriptedChatModel(delegating('research')))
      .defaultAdvisors(new ObserverAdvisor({ sink: trace, performanceTrack: false }))
      .defaultTools(agentTool(child, { name: 'research', description: 'Researches' }))
      .build()
    await parent.prompt('go').call().content()
    const sub = trace.ofType('run-start')[1]!
    const other = ChatClient.create(new ScriptedChatModel(['no']))

    const error = await forkRun(other, { trace: trace.events, runId: sub.runId, round: 1 }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ForkError)
    expect((error as Error).message).toContain("'research' is not an agent tool of the client")
  })
})

describe("a sub-agent's approvals", () => {
  it("reach the app's queue with the path from the parent's tool to the child's", async () => {
    const queue = new ApprovalQueue()
    const deleteAll = defineTool({
      name: 'delete_all',
      description: 'Deletes everything',
      inputSchema: { type: 'object' },
      execute: () => 'deleted',
    })
    const child = ChatClient.builder(new ScriptedChatModel(delegating('delete_all')))
      .defaultTools(deleteAll)
      .defaultAdvisors(ToolApprovalAdvisor.builder().policy('delete_all', 'always').handler(queue.handler).build())
      .build()
    const parent = ChatClient.builder(new ScriptedChatModel(delegating('cleaner')))
      .defaultTools(agentTool(child, { name: 'cleaner', description: 'Cleans up' }))
      .build()

    const parts: StreamPart[] = []
    const turn = (async () => {
      for await (const part of parent.prompt('Clean up').stream().parts()) parts.push(part)
    })()
    await vi.waitFor(() => expect(queue.pending()).toHaveLength(1))
    expect(queue.pending()[0]).toMatchObject({ path: ['cleaner', 'delete_all'], toolCall: { name: 'delete_all' } })
    const asked = parts.find((part) => part.type === 'agent-part' && part.part.type === 'approval-requested')
    expect(asked).toMatchObject({ id: 'call-cleaner', part: { name: 'delete_all' } })
    queue.decide(queue.pending()[0]!.id, { type: 'approve' })
    await turn
    const text = parts.flatMap((part) => (part.type === 'text-delta' ? [part.delta] : [])).join('')
    expect(text).toBe('got: got: deleted')
  })
})

describe('aborting a parent', () => {
  for (const mode of ['call', 'stream'] as const) {
    it(`settles a ${mode} with a child and a grandchild at work within 100 ms, stopping them and leaving no timer`, async () => {
      // On fake time: the turn must settle before 100 ms of it pass, whatever the machine's load.
      vi.useFakeTimers()
      try {
        const signals: Array<AbortSignal | undefined> = []
        const slow = new ScriptedChatModel([{ text: 'too late', delayMs: 60_000 }])
        for (const method of ['call', 'stream'] as const) {
          const original = slow[method].bind(slow)
          vi.spyOn(slow, method).mockImplementation(((prompt: Prompt, signal?: AbortSignal) => {
            signals.push(signal)
            return original(prompt, signal)
          }) as never)
        }
        const grandchild = ChatClient.create(slow)
        const child = ChatClient.builder(new ScriptedChatModel(delegating('deeper')))
          .defaultTools(agentTool(grandchild, { name: 'deeper', description: 'Deeper' }))
          .build()
        const parent = ChatClient.builder(new ScriptedChatModel(delegating('research')))
          .defaultTools(agentTool(child, { name: 'research', description: 'Researches' }))
          .build()
        const controller = new AbortController()
        const spec = parent.prompt('go').signal(controller.signal)
        const turn =
          mode === 'call'
            ? spec.call().content()
            : (async () => {
                for await (const _part of spec.stream().parts());
              })()
        let outcome: unknown = 'pending'
        void turn.then(
          () => (outcome = 'answered'),
          (error: unknown) => (outcome = error),
        )
        await vi.waitFor(() => expect(signals).toHaveLength(1))
        controller.abort()
        await vi.advanceTimersByTimeAsync(99)
        expect(isAbortError(outcome)).toBe(true)
        expect(signals[0]?.aborted).toBe(true)
        expect(vi.getTimerCount()).toBe(0)
      } finally {
        vi.useRealTimers()
      }
    })
  }
})
