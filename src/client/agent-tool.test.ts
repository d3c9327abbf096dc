import { describe, expect, it, vi } from 'vitest'
import { AGENT_CALL_KEY, isAbortError, type Prompt, type ToolCallback } from '../core'
import { MessageChatMemoryAdvisor, ObserverAdvisor, ToolApprovalAdvisor } from '../advisors'
import { InMemoryChatMemoryRepository, MessageWindowChatMemory } from '../memory'
import { ScriptedChatModel } from '../models'
import { defineTool } from '../tools'
import { OtlpTraceSink, TraceCollector, toOtlp, validateEvent, type OtlpSpan, type OtlpTraceRequest } from '../trace'
import { agentTool } from './agent-tool'
import { ChatClient } from './client'
import { delegating, toolAnswer } from './testing/delegating-script'

const userTextOf = (prompt: Prompt) => prompt.messages.findLast((message) => message.role === 'user')?.text

describe('agentTool', () => {
  it("runs the child on the call's task and answers with its text; the parent turn goes on", async () => {
    const childModel = new ScriptedChatModel(['Paris is the capital of France.'])
    const child = ChatClient.builder(childModel).defaultSystem('You research.').build()
    const researcher = agentTool(child, { name: 'researcher', description: 'Looks things up' })
    expect(researcher.definition.name).toBe('researcher')
    expect(researcher.definition.inputSchema).toMatchObject({ required: ['task'] })
    const parentModel = new ScriptedChatModel(delegating('researcher', 'Capital of France?'))
    const parent = ChatClient.builder(parentModel).defaultTools(researcher).build()

    expect(await parent.prompt('Where is the Eiffel tower?').call().content()).toBe(
      'got: Paris is the capital of France.',
    )
    expect(childModel.prompts).toHaveLength(1)
    expect(childModel.prompts[0]!.messages).toMatchObject([
      { role: 'system', text: 'You research.' },
      { role: 'user', text: 'Capital of France?' },
    ])
  })

  it('takes its own input schema and prompt', async () => {
    const childModel = new ScriptedChatModel(['12 °C'])
    const weather = agentTool(ChatClient.builder(childModel).build(), {
      name: 'weather_agent',
      description: 'Weather',
      inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      prompt: (input) => `Weather in ${(input as { city: string }).city}?`,
    })
    const parentModel = new ScriptedChatModel([
      { toolCalls: [{ id: 'w1', name: 'weather_agent', arguments: { city: 'Oslo' } }] },
      (prompt) => `${toolAnswer(prompt)}`,
    ])
    const parent = ChatClient.builder(parentModel).defaultTools(weather).build()
    expect(await parent.prompt('Weather?').call().content()).toBe('12 °C')
    expect(userTextOf(childModel.prompts[0]!)).toBe('Weather in Oslo?')
  })

  it("answers with the child's entity, validated and retried inside the child", async () => {
    const childModel = new ScriptedChatModel(['{"city": 7}', '{"city": "Paris", "population": 2100000}'])
    const output = {
      type: 'object',
      properties: { city: { type: 'string' }, population: { type: 'number' } },
      required: ['city', 'population'],
    } as const
    const tool = agentTool(ChatClient.builder(childModel).build(), { name: 'facts', description: 'Facts', output })
    const parent = ChatClient.builder(new ScriptedChatModel(delegating('facts')))
      .defaultTools(tool)
      .build()

    const answer = await parent.prompt('Tell me').call().content()
    expect(JSON.parse(answer!.replace('got: ', ''))).toEqual({ city: 'Paris', population: 2100000 })
    expect(childModel.prompts).toHaveLength(2)
    // The retry told the child what was wrong.
    expect(JSON.stringify(childModel.prompts[1]!.messages)).toContain('city')
  })

  /** Agents level1 → level2 → … → level`count`, each calling the next; the innermost answers 'bottom'. */
  function nest(count: number, maxDepth?: number) {
    const models: ScriptedChatModel[] = []
    let next: ToolCallback | undefined
    for (let level = count; level >= 1; level--) {
      const model = new ScriptedChatModel(next ? delegating(`level${level + 1}`) : () => 'bottom')
      models.unshift(model)
      const builder = ChatClient.builder(model)
      if (next) builder.defaultTools(next)
      next = agentTool(builder.build(), {
        name: `level${level}`,
        description: `Level ${level}`,
        ...(maxDepth !== undefined ? { maxDepth } : {}),
      })
    }
    const top = ChatClient.builder(new ScriptedChatModel(delegating('level1')))
      .defaultTools(next!)
      .build()
    return { top, models }
  }

  it('nests to maxDepth (default 4)', async () => {
    const { top, models } = nest(4)
    expect(await top.prompt('go').call().content()).toBe('got: got: got: got: bottom')
    expect(models.map((model) => model.prompts.length)).toEqual([2, 2, 2, 1])
  })

  it('refuses one level beyond maxDepth with an Error: response naming the path; the outer turns go on', async () => {
    const { top, models } = nest(5)
    const answer = await top.prompt('go').call().content()
    expect(answer).toBe(
      "got: got: got: got: got: Error: sub-agent 'level5' would run at depth 5, beyond its maxDepth of 4: level1 → level2 → level3 → level4 → level5",
    )
    expect(models[4]!.prompts).toHaveLength(0)

    const shallow = nest(3, 2)
    expect(await shallow.top.prompt('go').call().content()).toContain(
      "Error: sub-agent 'level3' would run at depth 3, beyond its maxDepth of 2: level1 → level2 → level3",
    )
  })

  it('rejects a bad maxDepth when the tool is made', () => {
    const client = ChatClient.builder(new ScriptedChatModel([])).build()
    expect(() => agentTool(client, { name: 'x', description: 'x', maxDepth: 0 })).toThrow(RangeError)
    expect(() => agentTool(client, { name: 'x', description: 'x', maxDepth: 1.5 })).toThrow(/maxDepth/)
  })

  it('fails a cycle (A → B → A) at once with an Error: naming the path', async () => {
    const late: { toB?: ToolCallback } = {}
    const forwardToB: ToolCallback = {
      definition: { name: 'b', description: 'Agent B', inputSchema: { type: 'object' } },
      metadata: { returnDirect: false },
      call: (input, context) => late.toB!.call(input, context),
    }
    const modelA = new ScriptedChatModel(delegating('b'))
    const modelB = new ScriptedChatModel(delegating('a'))
    const a = ChatClient.builder(modelA).defaultTools(forwardToB).build()
    const b = ChatClient.builder(modelB)
      .defaultTools(agentTool(a, { name: 'a', description: 'Agent A' }))
      .build()
    late.toB = agentTool(b, { name: 'b', description: 'Agent B' })

    const answer = await a.prompt('go').call().content()
    expect(answer).toBe("got: got: Error: sub-agent cycle: b → a (the agent of 'a' is already running this call)")
    // A (the app's client) ran once, B once: B's call of A is refused before A runs again.
    expect(modelA.prompts).toHaveLength(2)
    expect(modelB.prompts).toHaveLength(2)
  })

  it("cancels the child with the parent's signal", async () => {
    const childModel = new ScriptedChatModel([{ text: 'too late', delayMs: 60_000 }])
    const call = vi.spyOn(childModel, 'call')
    let childStarted!: () => void
    const started = new Promise<void>((resolve) => (childStarted = resolve))
    call.mockImplementation(function (this: ScriptedChatModel, prompt, signal) {
      childStarted()
      return ScriptedChatModel.prototype.call.call(this, prompt, signal)
    })
    const tool = agentTool(ChatClient.builder(childModel).build(), { name: 'slow', description: 'Slow' })
    const parent = ChatClient.builder(new ScriptedChatModel(delegating('slow')))
      .defaultTools(tool)
      .build()
    const controller = new AbortController()

    const turn = parent.prompt('go').signal(controller.signal).call().content()
    await started
    controller.abort()
    const error = await turn.catch((thrown: unknown) => thrown)
    expect(isAbortError(error)).toBe(true)
    const childSignal = call.mock.calls[0]![1]
    expect(childSignal?.aborted).toBe(true)
  })

  it('leaves no timer behind when the parent aborts a waiting child', async () => {
    vi.useFakeTimers()
    try {
      const childModel = new ScriptedChatModel([{ text: 'too late', delayMs: 60_000 }])
      const tool = agentTool(ChatClient.builder(childModel).build(), { name: 'slow', description: 'Slow' })
      const parent = ChatClient.builder(new ScriptedChatModel(delegating('slow')))
        .defaultTools(tool)
        .build()
      const controller = new AbortController()
      const turn = parent.prompt('go').signal(controller.signal).call().content()
      await vi.waitFor(() => expect(childModel.prompts).toHaveLength(1))
      expect(vi.getTimerCount()).toBeGreaterThan(0)
      controller.abort()
      await expect(turn).rejects.toSatisfy(isAbortError)
      expect(vi.getTimerCount()).toBe(0)
    } finally {
      vi.useRealTimers()
    }
  })

  it('turns a failing child into an Error: response; the parent answers', async () => {
    const child = ChatClient.builder(new ScriptedChatModel([{ error: 'model overloaded' }])).build()
    const tool = agentTool(child, { name: 'researcher', description: 'Looks things up' })
    const parent = ChatClient.builder(new ScriptedChatModel(delegating('researcher')))
      .defaultTools(tool)
      .build()
    expect(await parent.prompt('go').call().content()).toBe("got: Error: tool 'researcher' failed: model overloaded")
  })

  it.each([
    ['rejected', () => Promise.resolve({ type: 'reject' as const, message: 'not today' })],
    ['failing', () => Promise.reject(new Error('approval service down'))],
  ])("keeps the parent's turn going when the child's approval is %s", async (_case, decide) => {
    const deleted: string[] = []
    const deleteAll = defineTool({
      name: 'delete_all',
      description: 'Deletes every note',
      inputSchema: { type: 'object', properties: {} },
      execute: () => void deleted.push('all'),
    })
    const childModel = new ScriptedChatModel((prompt) =>
      toolAnswer(prompt) === undefined
        ? { toolCalls: [{ id: 'd1', name: 'delete_all', arguments: {} }] }
        : `child saw: ${toolAnswer(prompt)}`,
    )
    const child = ChatClient.builder(childModel)
      .defaultTools(deleteAll)
      .defaultAdvisors(ToolApprovalAdvisor.builder().policy('delete_all', 'always').handler(decide).build())
      .build()
    const tool = agentTool(child, { name: 'cleaner', description: 'Cleans up' })
    const parent = ChatClient.builder(new ScriptedChatModel(delegating('cleaner')))
      .defaultTools(tool)
      .build()

    const answer = await parent.prompt('Clean up').call().content()
    // The child's approval answers its own model; the parent gets the child's answer.
    expect(answer).toMatch(
      /^got: child saw: The (user declined this call|call to delete_all needed the user's approval)/,
    )
    expect(deleted).toEqual([])
  })

  it('refuses a client as its own tool (A → A) as a cycle, without a deadlock', async () => {
    const model = new ScriptedChatModel(delegating('self', 'sub-task'))
    const late: { self?: ToolCallback } = {}
    const forward: ToolCallback = {
      definition: { name: 'self', description: 'Me again', inputSchema: { type: 'object' } },
      metadata: { returnDirect: false },
      call: (input, context) => late.self!.call(input, context),
    }
    const client = ChatClient.builder(model).defaultTools(forward).build()
    late.self = agentTool(client, { name: 'self', description: 'Me again' })

    expect(await client.prompt('top question').call().content()).toBe(
      "got: Error: sub-agent cycle: self (the agent of 'self' is already running this call)",
    )
    expect(model.prompts).toHaveLength(2)
  })

  it("runs a child that shares the parent's memory in a conversation of its own (no deadlock)", async () => {
    const repository = new InMemoryChatMemoryRepository()
    const memory = MessageWindowChatMemory.builder().chatMemoryRepository(repository).maxMessages(50).build()
    const child = ChatClient.builder(new ScriptedChatModel(['sub-answer']))
      .defaultAdvisors(MessageChatMemoryAdvisor.builder(memory).build())
      .build()
    const parent = ChatClient.builder(new ScriptedChatModel(delegating('helper', 'sub-task')))
      .defaultAdvisors(MessageChatMemoryAdvisor.builder(memory).build())
      .defaultTools(agentTool(child, { name: 'helper', description: 'Helps' }))
      .build()

    expect(await parent.prompt('top question').call().content()).toBe('got: sub-answer')
    const conversations = await repository.findConversationIds()
    expect(conversations).toHaveLength(2)
    expect(conversations).toContain('default')
    expect(conversations.find((id) => id !== 'default')).toMatch(/^helper-/)
    const main = await memory.get('default')
    expect(main.map((message) => message.role === 'user' && message.text).filter(Boolean)).toEqual(['top question'])
  })

  it('derives the conversation with conversationId', async () => {
    const repository = new InMemoryChatMemoryRepository()
    const memory = MessageWindowChatMemory.builder().chatMemoryRepository(repository).maxMessages(50).build()
    const child = ChatClient.builder(new ScriptedChatModel(['one', 'two']))
      .defaultAdvisors(MessageChatMemoryAdvisor.builder(memory).build())
      .build()
    const tool = agentTool(child, {
      name: 'notes',
      description: 'Notes',
      conversationId: (_input, parent) => `notes-of-${String(parent.values.user)}`,
    })
    const parent = ChatClient.builder(new ScriptedChatModel(delegating('notes')))
      .defaultTools(tool)
      .build()
    await parent.prompt('a').toolContext({ user: 'ada' }).call().content()
    expect(await repository.findConversationIds()).toEqual(['notes-of-ada'])
  })

  it('answers with an Error: when conversationId gives no conversation', async () => {
    const child = ChatClient.builder(new ScriptedChatModel(['never'])).build()
    const tool = agentTool(child, { name: 'notes', description: 'Notes', conversationId: () => '' })
    const parent = ChatClient.builder(new ScriptedChatModel(delegating('notes')))
      .defaultTools(tool)
      .build()
    expect(await parent.prompt('a').call().content()).toBe(
      "got: Error: conversationId of agent tool 'notes' must give a non-empty string",
    )
  })

  it('reads a malformed agent call in the context as none', async () => {
    const child = ChatClient.builder(new ScriptedChatModel(['fine'])).build()
    const tool = agentTool(child, { name: 'researcher', description: 'Looks things up', maxDepth: 1 })
    const answer = await tool.call('{"task":"x"}', {
      values: {},
      advisorContext: { [AGENT_CALL_KEY]: { path: 'not a list', agents: [7] } },
      toolCall: { id: 'c1', name: 'researcher', arguments: '{"task":"x"}' },
    })
    expect(answer).toBe('fine')
  })

  it("links the child's run-start to the parent's run and tool call, and the links survive validation", async () => {
    const collector = new TraceCollector()
    const child = ChatClient.builder(new ScriptedChatModel(['child answer']))
      .defaultAdvisors(new ObserverAdvisor({ sink: collector }))
      .build()
    const tool = agentTool(child, { name: 'researcher', description: 'Looks things up' })
    const parent = ChatClient.builder(new ScriptedChatModel(delegating('researcher', 'x', 'tool-call-7')))
      .defaultAdvisors(new ObserverAdvisor({ sink: collector }))
      .defaultTools(tool)
      .build()
    await parent.prompt('go').call().content()

    const [parentStart, childStart] = collector.ofType('run-start')
    expect(parentStart!.parentRunId).toBeUndefined()
    expect(childStart).toMatchObject({ parentRunId: parentStart!.runId, parentToolCallId: 'tool-call-7' })
    expect(childStart!.runId).not.toBe(parentStart!.runId)
    const imported = validateEvent(JSON.parse(JSON.stringify(childStart)))
    expect(imported).toMatchObject({ parentRunId: parentStart!.runId, parentToolCallId: 'tool-call-7' })
  })

  /** A researcher sub-agent and its parent, both observed into `sink`; the parent calls it with 'tool-call-7'. */
  function observedPair(sink: ConstructorParameters<typeof ObserverAdvisor>[0]['sink']) {
    const child = ChatClient.builder(new ScriptedChatModel(() => 'child answer'))
      .defaultAdvisors(new ObserverAdvisor({ sink }))
      .build()
    const tool = agentTool(child, { name: 'researcher', description: 'Looks things up' })
    return ChatClient.builder(new ScriptedChatModel(delegating('researcher', 'x', 'tool-call-7')))
      .defaultAdvisors(new ObserverAdvisor({ sink }))
      .defaultTools(tool)
      .build()
  }

  const attributeOf = (span: OtlpSpan, key: string) => span.attributes.find((attribute) => attribute.key === key)?.value
  const runSpansOf = (request: OtlpTraceRequest) =>
    request.resourceSpans[0]!.scopeSpans[0]!.spans.filter((span) => span.name === 'invoke_agent advisor-chain')

  it("exports the child's run to OTLP as a child of the parent's tool span, in the parent's trace", async () => {
    const collector = new TraceCollector()
    await observedPair(collector).prompt('go').call().content()
    const request = toOtlp(collector.events)
    const spans = request.resourceSpans[0]!.scopeSpans[0]!.spans
    const [parentRun, childRun] = runSpansOf(request)
    const toolSpan = spans.find((span) => span.name === 'execute_tool researcher')!
    expect(attributeOf(toolSpan, 'gen_ai.tool.call.id')).toEqual({ stringValue: 'tool-call-7' })
    expect(toolSpan.traceId).toBe(parentRun!.traceId)
    expect(childRun!.traceId).toBe(parentRun!.traceId)
    expect(childRun!.parentSpanId).toBe(toolSpan.spanId)
    expect(parentRun!.parentSpanId).toBeUndefined()
    // The child's own spans stay in its run, in the same trace.
    expect(
      spans
        .filter((span) => span.parentSpanId === childRun!.spanId)
        .every((span) => span.traceId === parentRun!.traceId),
    ).toBe(true)
    // Without its parent among the events, a child's run is a trace of its own.
    const parentRunId = collector.runIds()[0]
    const alone = runSpansOf(toOtlp(collector.events.filter((event) => event.runId !== parentRunId)))
    expect(alone).toHaveLength(1)
    expect(alone[0]!.parentSpanId).toBeUndefined()
  })

  it('sends a sub-agent run with its parent from an OtlpTraceSink, in one request', async () => {
    const bodies: OtlpTraceRequest[] = []
    const fetch = vi.fn(async (_url: unknown, init?: RequestInit) => {
      bodies.push(JSON.parse(init!.body as string) as OtlpTraceRequest)
      return new Response('{}')
    })
    const sink = new OtlpTraceSink({ url: 'https://collector.test/v1/traces', fetch })
    const parent = observedPair(sink)
    await parent.prompt('go').call().content()
    await expect.poll(() => bodies.length).toBe(1)
    const [parentRun, childRun] = runSpansOf(bodies[0]!)
    expect(childRun!.traceId).toBe(parentRun!.traceId)
    expect(childRun!.parentSpanId).toBeDefined()
    // A second turn is a request of its own.
    await parent.prompt('again').call().content()
    await expect.poll(() => bodies.length).toBe(2)
  })
})
