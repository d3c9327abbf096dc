import { describe, expect, it } from 'vitest'
import {
  HIGHEST_PRECEDENCE,
  LOWEST_PRECEDENCE,
  type CallAdvisor,
  type CallAdvisorChain,
  type ChatClientRequest,
  type ChatClientResponse,
  type StreamAdvisor,
  type StreamAdvisorChain,
  systemMessage,
  userMessage,
  type Message,
  type ToolCallback,
} from '../../core'
import { AdvisorParams, ChatClient } from '../../client'
import { ScriptedChatModel, type ScriptStep } from '../../models'
import { collect } from '../../core/testing/collect'
import { defineTool, ToolCallingManager, type ToolExecutionResult } from '../../tools'
import { ToolCallingAdvisor, ToolCallingAdvisorBuilder, type ToolCallingAdvisorOptions } from './tool-calling'

const usage = (prompt: number, completion: number) => ({
  promptTokens: prompt,
  completionTokens: completion,
  totalTokens: prompt + completion,
})

function weatherTool(log: string[] = [], returnDirect = false): ToolCallback {
  return defineTool({
    name: 'weather',
    description: 'Weather in a city',
    inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    returnDirect,
    execute: ({ city }) => {
      log.push(city)
      return `sunny in ${city}`
    },
  })
}

const weatherCall = (city: string, id = `call-${city}`): ScriptStep => ({
  toolCalls: [{ id, name: 'weather', arguments: { city } }],
})

function clientFor(model: ScriptedChatModel, ...tools: ToolCallback[]) {
  return ChatClient.builder(model)
    .defaultTools(...tools)
    .build()
}

describe('ToolCallingAdvisor (call)', () => {
  it('passes a response without tool calls through unchanged, with one model call', async () => {
    const model = new ScriptedChatModel([{ text: 'Hello', usage: usage(3, 1) }])
    const response = await clientFor(model, weatherTool()).prompt('hi').call().chatResponse()
    expect(model.prompts).toHaveLength(1)
    expect(response).toEqual({
      results: [{ output: { role: 'assistant', text: 'Hello', toolCalls: [] }, metadata: { finishReason: 'stop' } }],
      metadata: { model: 'scripted', usage: usage(3, 1) },
    })
  })

  it('runs one round of tools and asks the model again with the results', async () => {
    const log: string[] = []
    const model = new ScriptedChatModel([weatherCall('Paris'), 'It is sunny in Paris.'])
    const answer = await clientFor(model, weatherTool(log)).prompt('Weather in Paris?').call().content()
    expect(answer).toBe('It is sunny in Paris.')
    expect(log).toEqual(['Paris'])
    expect(model.prompts).toHaveLength(2)
    expect(model.prompts[1]!.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool'])
  })

  it('runs several rounds, one model call and one execution per round', async () => {
    const log: string[] = []
    const model = new ScriptedChatModel([weatherCall('Paris'), weatherCall('Rome'), weatherCall('Oslo'), 'Done.'])
    await clientFor(model, weatherTool(log)).prompt('go').call().content()
    expect(model.prompts).toHaveLength(4)
    expect(log).toEqual(['Paris', 'Rome', 'Oslo'])
    expect(model.prompts[3]!.messages).toHaveLength(7)
  })

  it('returns a null chatResponse as it is', async () => {
    const empty: CallAdvisor = {
      name: 'empty',
      order: LOWEST_PRECEDENCE - 1,
      adviseCall: async (req) => ({ chatResponse: null, context: req.context }),
    }
    const response = await ChatClient.builder(new ScriptedChatModel([]))
      .defaultAdvisors(empty)
      .build()
      .prompt('q')
      .call()
      .chatClientResponse()
    expect(response.chatResponse).toBeNull()
  })

  it('does not run tools when the checker says no', async () => {
    const log: string[] = []
    const model = new ScriptedChatModel([weatherCall('Paris')])
    const advisor = ToolCallingAdvisor.builder()
      .toolExecutionEligibilityChecker(() => false)
      .build()
    const response = await ChatClient.builder(model)
      .defaultTools(weatherTool(log))
      .defaultAdvisors(advisor)
      .build()
      .prompt('q')
      .call()
      .chatResponse()
    expect(log).toEqual([])
    expect(response?.results[0]?.output.toolCalls[0]?.name).toBe('weather')
  })

  it('runs tools when the checker says so, whatever the finish reason', async () => {
    const log: string[] = []
    const model = new ScriptedChatModel([{ ...(weatherCall('Paris') as object), finishReason: 'stop' }, 'ok'])
    const strict = ToolCallingAdvisor.builder()
      .toolExecutionEligibilityChecker(
        (r) => r?.results[0]?.metadata.finishReason === 'stop' && (r.results[0].output.toolCalls.length ?? 0) > 0,
      )
      .build()
    await ChatClient.builder(model)
      .defaultTools(weatherTool(log))
      .defaultAdvisors(strict)
      .build()
      .prompt('q')
      .call()
      .content()
    expect(log).toEqual(['Paris'])
  })

  it('returns the tool output directly when every tool of the round is returnDirect', async () => {
    const model = new ScriptedChatModel([
      {
        toolCalls: [
          { id: 'a', name: 'weather', arguments: { city: 'Paris' } },
          { id: 'b', name: 'weather', arguments: { city: 'Rome' } },
        ],
        usage: usage(5, 2),
      },
    ])
    const response = await clientFor(model, weatherTool([], true)).prompt('q').call().chatResponse()
    expect(model.prompts).toHaveLength(1)
    expect(response?.results.map((g) => [g.output.text, g.metadata.finishReason])).toEqual([
      ['sunny in Paris', 'returnDirect'],
      ['sunny in Rome', 'returnDirect'],
    ])
    expect(response?.metadata).toMatchObject({ model: 'scripted', usage: usage(5, 2) })
  })

  it('goes back to the model when only some tools of the round are returnDirect', async () => {
    const direct = defineTool({
      name: 'direct',
      description: '',
      inputSchema: {},
      returnDirect: true,
      execute: () => 'raw',
    })
    const model = new ScriptedChatModel([
      { toolCalls: [{ name: 'direct' }, { name: 'weather', arguments: { city: 'Oslo' } }] },
      'summary',
    ])
    expect(await clientFor(model, direct, weatherTool()).prompt('q').call().content()).toBe('summary')
  })

  it('sums usage over rounds', async () => {
    const model = new ScriptedChatModel([
      { ...(weatherCall('Paris') as object), usage: usage(10, 2) },
      { text: 'ok', usage: usage(20, 3) },
    ])
    const response = await clientFor(model, weatherTool()).prompt('q').call().chatResponse()
    expect(response?.metadata.usage).toEqual(usage(30, 5))
  })

  it('with history off sends exactly [system, tool response] while the manager sees the whole turn', async () => {
    const seenByManager: Message[][] = []
    const base = ToolCallingManager.builder().build()
    const manager: ToolCallingManager = {
      resolveToolDefinitions: (o) => base.resolveToolDefinitions(o),
      executeToolCalls: (prompt, response, init) => {
        seenByManager.push([...prompt.messages])
        return base.executeToolCalls(prompt, response, init)
      },
    }
    const model = new ScriptedChatModel([weatherCall('Paris'), weatherCall('Rome'), 'done'])
    const advisor = ToolCallingAdvisor.builder()
      .toolCallingManager(manager)
      .disableInternalConversationHistory()
      .build()
    await ChatClient.builder(model)
      .defaultSystem('sys')
      .defaultTools(weatherTool())
      .defaultAdvisors(advisor)
      .build()
      .prompt('go')
      .call()
      .content()
    expect(model.prompts[1]!.messages).toEqual([
      systemMessage('sys'),
      { role: 'tool', responses: [{ id: 'call-Paris', name: 'weather', responseData: 'sunny in Paris' }] },
    ])
    expect(model.prompts[2]!.messages.map((m) => m.role)).toEqual(['system', 'tool'])
    expect(seenByManager[1]!.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool'])
  })

  it('stops with one toolCallLimitExceeded generation when a tool call limit is breached', async () => {
    const manager = ToolCallingManager.builder().limits({ perTool: 1 }).build()
    const model = new ScriptedChatModel([weatherCall('Paris'), weatherCall('Rome')])
    const advisor = ToolCallingAdvisor.builder().toolCallingManager(manager).build()
    const response = await ChatClient.builder(model)
      .defaultTools(weatherTool())
      .defaultAdvisors(advisor)
      .build()
      .prompt('q')
      .call()
      .chatResponse()
    expect(response?.results).toHaveLength(1)
    expect(response?.results[0]?.metadata.finishReason).toBe('toolCallLimitExceeded')
    expect(response?.results[0]?.output.text).toMatch(/^Tool call limit exceeded: tool 'weather' was called 2 times/)
  })

  it('stops after maxIterations rounds that all end in tool calls', async () => {
    const log: string[] = []
    const model = new ScriptedChatModel(() => weatherCall(`c${Math.random()}`))
    const advisor = ToolCallingAdvisor.builder().maxIterations(3).build()
    const response = await ChatClient.builder(model)
      .defaultTools(weatherTool(log))
      .defaultAdvisors(advisor)
      .build()
      .prompt('q')
      .call()
      .chatResponse()
    expect(model.prompts).toHaveLength(3)
    expect(log).toHaveLength(2)
    expect(response?.results[0]?.metadata.finishReason).toBe('toolCallLimitExceeded')
  })

  it('refuses an order outside the precedence bounds', () => {
    expect(() => ToolCallingAdvisor.builder().advisorOrder(HIGHEST_PRECEDENCE).build()).toThrow(
      'advisorOrder must be between HIGHEST_PRECEDENCE and LOWEST_PRECEDENCE',
    )
    expect(() => new ToolCallingAdvisor({ advisorOrder: LOWEST_PRECEDENCE })).toThrow(
      'advisorOrder must be between HIGHEST_PRECEDENCE and LOWEST_PRECEDENCE',
    )
  })

  it('has the name and default order of the contract', () => {
    const advisor = ToolCallingAdvisor.builder().build()
    expect([advisor.name, advisor.order]).toEqual(['Tool Calling Advisor', HIGHEST_PRECEDENCE + 300])
  })
})

class CountingAdvisor extends ToolCallingAdvisor {
  counts = { init: 0, before: 0, after: 0, finalize: 0, next: 0 }
  protected override doInitializeLoop(r: ChatClientRequest, c: CallAdvisorChain) {
    this.counts.init++
    return super.doInitializeLoop(r, c)
  }
  protected override async doBeforeCall(r: ChatClientRequest, c: CallAdvisorChain) {
    this.counts.before++
    return super.doBeforeCall(r, c)
  }
  protected override async doAfterCall(r: ChatClientResponse, c: CallAdvisorChain) {
    this.counts.after++
    return super.doAfterCall(r, c)
  }
  protected override doFinalizeLoop(r: ChatClientResponse, c: CallAdvisorChain) {
    this.counts.finalize++
    return super.doFinalizeLoop(r, c)
  }
  protected override doInitializeLoopStream(r: ChatClientRequest, c: StreamAdvisorChain) {
    this.counts.init++
    return super.doInitializeLoopStream(r, c)
  }
  protected override doBeforeStream(r: ChatClientRequest, c: StreamAdvisorChain) {
    this.counts.before++
    return super.doBeforeStream(r, c)
  }
  protected override doAfterStream(r: ChatClientResponse, c: StreamAdvisorChain) {
    this.counts.after++
    return super.doAfterStream(r, c)
  }
  protected override doFinalizeLoopStream(s: AsyncIterable<ChatClientResponse>, c: StreamAdvisorChain) {
    this.counts.finalize++
    return super.doFinalizeLoopStream(s, c)
  }
}

describe('ToolCallingAdvisor abort', () => {
  it('rejects with an AbortError when aborted during a tool and aborts the tool', async () => {
    const controller = new AbortController()
    let toolSignal: AbortSignal | undefined
    const hang = defineTool({
      name: 'hang',
      description: '',
      inputSchema: {},
      execute: (_a, ctx) => {
        toolSignal = ctx.signal
        setTimeout(() => controller.abort(), 1)
        return new Promise(() => {})
      },
    })
    const model = new ScriptedChatModel([{ toolCalls: [{ name: 'hang' }] }, 'never'])
    const answer = clientFor(model, hang).prompt('q').signal(controller.signal).call().content()
    await expect(answer).rejects.toMatchObject({ name: 'AbortError' })
    expect(toolSignal?.aborted).toBe(true)
    expect(model.prompts).toHaveLength(1)
  })
})

describe('ToolCallingAdvisor hooks', () => {
  for (const mode of ['call', 'stream'] as const) {
    const run = (client: ChatClient) =>
      mode === 'call' ? client.prompt('q').call().content() : collect(client.prompt('q').stream().content())

    it(`${mode}: with no tool call each hook runs once`, async () => {
      const advisor = new CountingAdvisor()
      await run(
        ChatClient.builder(new ScriptedChatModel(['hi']))
          .defaultAdvisors(advisor)
          .build(),
      )
      expect(advisor.counts).toMatchObject({ init: 1, before: 1, after: 1, finalize: 1 })
    })

    it(`${mode}: with one tool round init runs once, before and after twice`, async () => {
      const advisor = new CountingAdvisor()
      await run(
        ChatClient.builder(new ScriptedChatModel([weatherCall('Paris'), 'ok']))
          .defaultTools(weatherTool())
          .defaultAdvisors(advisor)
          .build(),
      )
      expect(advisor.counts).toMatchObject({ init: 1, before: 2, after: 2, finalize: 1 })
    })
  }

  it('runs the tools with the options a doBeforeCall hook changed, and keeps them in later rounds', async () => {
    const log: string[] = []
    const injected = weatherTool(log)
    class Injecting extends ToolCallingAdvisor {
      protected override async doBeforeCall(r: ChatClientRequest) {
        return r.prompt.options.tools
          ? r
          : { ...r, prompt: { ...r.prompt, options: { ...r.prompt.options, tools: [injected], temperature: 0.2 } } }
      }
    }
    const model = new ScriptedChatModel([weatherCall('Paris'), weatherCall('Rome'), 'ok'])
    await ChatClient.builder(model).defaultAdvisors(new Injecting()).build().prompt('q').call().content()
    expect(log).toEqual(['Paris', 'Rome'])
    expect(model.prompts[2]!.options.temperature).toBe(0.2)
  })

  for (const mode of ['call', 'stream'] as const)
    it(`lists a tool object a doBeforeCall hook adds every round once to the model, round 1 and round 2 (${mode})`, async () => {
      const injected = weatherTool()
      class Injecting extends ToolCallingAdvisor {
        protected override async doBeforeCall(r: ChatClientRequest) {
          return this.#inject(r)
        }
        protected override async doBeforeStream(r: ChatClientRequest) {
          return this.#inject(r)
        }
        #inject(r: ChatClientRequest): ChatClientRequest {
          const tools = [...(r.prompt.options.tools ?? []), injected]
          return { ...r, prompt: { ...r.prompt, options: { ...r.prompt.options, tools } } }
        }
      }
      const model = new ScriptedChatModel([weatherCall('Paris'), weatherCall('Rome'), 'ok'])
      const client = ChatClient.builder(model).defaultTools(injected).defaultAdvisors(new Injecting()).build()
      const answer =
        mode === 'call'
          ? await client.prompt('q').call().content()
          : (await collect(client.prompt('q').stream().content())).join('')
      expect(answer).toBe('ok')
      const names = model.prompts.map((prompt) => (prompt.options.tools ?? []).map((tool) => tool.definition.name))
      expect(names).toEqual([['weather'], ['weather'], ['weather']])
    })

  it('gives every tool a signal of the loop, also when the caller gave none, and it aborts with the caller signal', async () => {
    const signals: (AbortSignal | undefined)[] = []
    // Made when a tool first asks for it, when the caller gave none: the same signal on every read.
    const rereads: boolean[] = []
    const probe = defineTool({
      name: 'weather',
      description: 'Weather in a city',
      inputSchema: { type: 'object' },
      execute: (_args, context) => {
        signals.push(context.signal)
        rereads.push(context.signal === signals.at(-1))
        return 'sunny'
      },
    })
    const model = () => new ScriptedChatModel([weatherCall('Paris'), 'ok'])
    await clientFor(model(), probe).prompt('q').call().content()
    const caller = new AbortController()
    await clientFor(model(), probe).prompt('q').signal(caller.signal).call().content()
    expect(signals.map((signal) => signal instanceof AbortSignal)).toEqual([true, true])
    expect(rereads).toEqual([true, true])
    caller.abort()
    expect(signals.map((signal) => signal!.aborted)).toEqual([false, true])
  })

  it('keeps messages a hook added in later rounds (Spring #6842)', async () => {
    class Feedback extends ToolCallingAdvisor {
      protected override async doGetNextInstructionsForToolCall(
        req: ChatClientRequest,
        res: ChatClientResponse,
        result: ToolExecutionResult,
      ) {
        const next = super.nextInstructions(result)
        return next.some((m) => m.role === 'user' && m.text === 'FEEDBACK') ? next : [...next, userMessage('FEEDBACK')]
      }
    }
    const model = new ScriptedChatModel([weatherCall('Paris'), weatherCall('Rome'), 'ok'])
    await ChatClient.builder(model)
      .defaultTools(weatherTool())
      .defaultAdvisors(new Feedback())
      .build()
      .prompt('q')
      .call()
      .content()
    const feedbackIn = (round: number) =>
      model.prompts[round]!.messages.some((m) => m.role === 'user' && m.text === 'FEEDBACK')
    expect([feedbackIn(1), feedbackIn(2)]).toEqual([true, true])
  })

  it('seeds each round with the response context of the round before (Spring #6903)', async () => {
    const seen: unknown[] = []
    const counter: CallAdvisor & StreamAdvisor = {
      name: 'counter',
      order: HIGHEST_PRECEDENCE + 400,
      async adviseCall(req, chain) {
        seen.push(req.context['count'])
        const res = await chain.nextCall(req)
        return { ...res, context: { ...res.context, count: ((req.context['count'] as number) ?? 0) + 1 } }
      },
      async *adviseStream(req, chain) {
        seen.push(req.context['count'])
        for await (const chunk of chain.nextStream(req))
          yield { ...chunk, context: { ...chunk.context, count: ((req.context['count'] as number) ?? 0) + 1 } }
      },
    }
    const script = () => new ScriptedChatModel([weatherCall('Paris'), weatherCall('Rome'), 'ok'])
    const call = await ChatClient.builder(script())
      .defaultTools(weatherTool())
      .defaultAdvisors(counter)
      .build()
      .prompt('q')
      .call()
      .chatClientResponse()
    expect(seen).toEqual([undefined, 1, 2])
    expect(call.context['count']).toBe(3)
    seen.length = 0
    await collect(
      ChatClient.builder(script())
        .defaultTools(weatherTool())
        .defaultAdvisors(counter)
        .build()
        .prompt('q')
        .stream()
        .content(),
    )
    expect(seen).toEqual([undefined, 1, 2])
  })
})

describe('ToolCallingAdvisor subclass builder', () => {
  interface AuditLog {
    intents: string[]
  }
  class AuditingToolCallingAdvisor extends ToolCallingAdvisor {
    readonly audit: AuditLog
    constructor(options: ToolCallingAdvisorOptions & { audit: AuditLog }) {
      super(options)
      this.audit = options.audit
    }
    static override builder(): AuditingBuilder {
      return new AuditingBuilder()
    }
    protected override async doAfterCall(response: ChatClientResponse, chain: CallAdvisorChain) {
      for (const call of response.chatResponse?.results[0]?.output.toolCalls ?? [])
        this.audit.intents.push(`${call.name}(${call.arguments})`)
      return super.doAfterCall(response, chain)
    }
  }
  class AuditingBuilder extends ToolCallingAdvisorBuilder<AuditingToolCallingAdvisor> {
    #audit: AuditLog = { intents: [] }
    constructor() {
      super((options) => new AuditingToolCallingAdvisor({ ...options, audit: this.#audit }))
    }
    auditLog(log: AuditLog): this {
      this.#audit = log
      return this
    }
  }

  it('keeps its own type through inherited setters and runs its hooks', async () => {
    const log: AuditLog = { intents: [] }
    const advisor: AuditingToolCallingAdvisor = AuditingToolCallingAdvisor.builder()
      .maxIterations(5)
      .auditLog(log)
      .advisorOrder(HIGHEST_PRECEDENCE + 310)
      .build()
    const model = new ScriptedChatModel([weatherCall('Paris'), 'ok'])
    await ChatClient.builder(model)
      .defaultTools(weatherTool())
      .defaultAdvisors(advisor)
      .build()
      .prompt('q')
      .call()
      .content()
    expect(advisor.order).toBe(HIGHEST_PRECEDENCE + 310)
    expect(log.intents).toEqual(['weather({"city":"Paris"})'])
  })

  it('can be the builder the ChatClient auto-registers', async () => {
    const log: AuditLog = { intents: [] }
    const model = new ScriptedChatModel([weatherCall('Rome'), 'ok'])
    const client = ChatClient.builder(model)
      .defaultTools(weatherTool())
      .toolCallingAdvisor(AuditingToolCallingAdvisor.builder().auditLog(log))
      .build()
    await client.prompt('q').call().content()
    expect(log.intents).toEqual(['weather({"city":"Rome"})'])
  })
})

describe('ToolCallingAdvisor (stream)', () => {
  it('streams text live and never lets tool-call chunks reach the caller', async () => {
    const model = new ScriptedChatModel([
      { text: 'Let me check.', toolCalls: [{ name: 'weather', arguments: { city: 'Paris' } }] },
      'It is sunny.',
    ])
    const chunks = await collect(clientFor(model, weatherTool()).prompt('q').stream().chatResponse())
    expect(chunks.every((c) => c.results.every((g) => g.output.toolCalls.length === 0))).toBe(true)
    expect(chunks.map((c) => c.results[0]?.output.text).join('')).toBe('Let me check.It is sunny.')
  })

  it('aggregates each round before the checker decides, so a call split over chunks runs once', async () => {
    const log: string[] = []
    const model = new ScriptedChatModel([
      { text: 'a b c', toolCalls: [{ name: 'weather', arguments: { city: 'Oslo' } }] },
      'done',
    ])
    await collect(clientFor(model, weatherTool(log)).prompt('q').stream().content())
    expect(log).toEqual(['Oslo'])
  })

  it('lets an observer inside the loop see every chunk of every round', async () => {
    const seen: string[] = []
    const observer: StreamAdvisor = {
      name: 'observer',
      order: HIGHEST_PRECEDENCE + 400,
      async *adviseStream(req, chain) {
        for await (const chunk of chain.nextStream(req)) {
          const output = chunk.chatResponse?.results[0]?.output
          seen.push(output?.toolCalls.length ? `tool:${output.toolCalls[0]!.name}` : `text:${output?.text}`)
          yield chunk
        }
      },
    }
    const model = new ScriptedChatModel([
      { text: 'hm', toolCalls: [{ name: 'weather', arguments: { city: 'Oslo' } }] },
      'sunny',
    ])
    await collect(
      ChatClient.builder(model)
        .defaultTools(weatherTool())
        .defaultAdvisors(observer)
        .build()
        .prompt('q')
        .stream()
        .content(),
    )
    expect(seen).toEqual(['text:hm', 'tool:weather', 'text:sunny'])
  })

  it('hands tool calls to the caller when the checker declines to run them', async () => {
    const model = new ScriptedChatModel([weatherCall('Paris')])
    const advisor = ToolCallingAdvisor.builder()
      .toolExecutionEligibilityChecker(() => false)
      .build()
    const chunks = await collect(
      ChatClient.builder(model)
        .defaultTools(weatherTool())
        .defaultAdvisors(advisor)
        .build()
        .prompt('q')
        .stream()
        .chatResponse(),
    )
    expect(chunks.flatMap((c) => c.results.flatMap((g) => g.output.toolCalls)).map((t) => t.name)).toEqual(['weather'])
  })

  it('adds the usage of earlier rounds to the usage-bearing chunks of the last round', async () => {
    const model = new ScriptedChatModel([
      { ...(weatherCall('Paris') as object), usage: usage(10, 2) },
      { text: 'a b', usage: usage(20, 3) },
    ])
    const chunks = await collect(clientFor(model, weatherTool()).prompt('q').stream().chatResponse())
    expect(chunks.filter((c) => c.metadata.usage).map((c) => c.metadata.usage)).toEqual([usage(30, 5)])
  })

  it('adds a trailing usage-only chunk when the last round had no usage', async () => {
    const model = new ScriptedChatModel([{ ...(weatherCall('Paris') as object), usage: usage(10, 2) }, 'no usage here'])
    const chunks = await collect(clientFor(model, weatherTool()).prompt('q').stream().chatResponse())
    expect(chunks.at(-1)).toEqual({
      results: [{ output: { role: 'assistant', text: '', toolCalls: [] }, metadata: {} }],
      metadata: { usage: usage(10, 2) },
    })
  })

  it('adds no usage chunk when no round reported usage', async () => {
    const model = new ScriptedChatModel([weatherCall('Paris'), 'ok'])
    const chunks = await collect(clientFor(model, weatherTool()).prompt('q').stream().chatResponse())
    expect(chunks.some((c) => c.metadata.usage)).toBe(false)
  })

  it('streams a returnDirect answer, one chunk per tool response', async () => {
    const model = new ScriptedChatModel([{ toolCalls: [{ id: 'a', name: 'weather', arguments: { city: 'Paris' } }] }])
    const chunks = await collect(clientFor(model, weatherTool([], true)).prompt('q').stream().chatResponse())
    expect(chunks.map((c) => [c.results[0]!.output.text, c.results[0]!.metadata.finishReason])).toEqual([
      ['sunny in Paris', 'returnDirect'],
    ])
  })

  it('streams a toolCallLimitExceeded answer when maxIterations is reached', async () => {
    const model = new ScriptedChatModel(() => weatherCall('Paris'))
    const advisor = ToolCallingAdvisor.builder().maxIterations(2).build()
    const chunks = await collect(
      ChatClient.builder(model)
        .defaultTools(weatherTool())
        .defaultAdvisors(advisor)
        .build()
        .prompt('q')
        .stream()
        .chatResponse(),
    )
    expect(chunks.at(-1)!.results[0]!.metadata.finishReason).toBe('toolCallLimitExceeded')
  })

  it('breaking out of the loop cancels the model stream and a running tool', async () => {
    let toolSignal: AbortSignal | undefined
    let started!: () => void
    const toolStarted = new Promise<void>((resolve) => (started = resolve))
    const slowTool = defineTool({
      name: 'slow',
      description: '',
      inputSchema: {},
      execute: (_a, ctx) =>
        new Promise((_, reject) => {
          toolSignal = ctx.signal
          started()
          ctx.signal?.addEventListener('abort', () => reject(new Error('stopped')))
        }),
    })
    const model = new ScriptedChatModel([{ text: 'working', toolCalls: [{ name: 'slow' }] }, 'never'])
    const stream = clientFor(model, slowTool).prompt('q').stream().content()
    const iterator = stream[Symbol.asyncIterator]()
    await iterator.next()
    const pending = iterator.next()
    await toolStarted
    await iterator.return!()
    expect(toolSignal?.aborted).toBe(true)
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' })
    expect(model.prompts).toHaveLength(1)
  })
})

describe('ChatClient tool advisor registration', () => {
  const toolAdvisorsIn = async (client: ChatClient, params: Record<string, unknown> = {}) => {
    let names: string[] = []
    const spy: CallAdvisor = {
      name: 'spy',
      order: HIGHEST_PRECEDENCE + 1,
      adviseCall: (req, chain) => {
        names = chain.callAdvisors.map((a) => a.name)
        return chain.nextCall(req)
      },
    }
    await client.prompt('q').advisors(spy).advisorParams(params).call().content()
    return names.filter((n) => n.includes('Tool'))
  }

  it('registers a ToolCallingAdvisor on every call, even without tools', async () => {
    expect(await toolAdvisorsIn(ChatClient.create(new ScriptedChatModel(['ok'])))).toEqual(['Tool Calling Advisor'])
  })

  it('registers none when the auto-register param is false; tool calls then reach the caller', async () => {
    const client = clientFor(new ScriptedChatModel([weatherCall('Paris'), weatherCall('Paris')]), weatherTool())
    expect(await toolAdvisorsIn(client, AdvisorParams.toolCallingAdvisorAutoRegister(false))).toEqual([])
    const response = await client
      .prompt('q')
      .advisorParams(AdvisorParams.toolCallingAdvisorAutoRegister(false))
      .call()
      .chatResponse()
    expect(response?.results[0]?.output.toolCalls[0]?.name).toBe('weather')
  })

  it('registers none when a ToolAdvisor is already in the chain', async () => {
    const own = ToolCallingAdvisor.builder().maxIterations(2).build()
    const client = ChatClient.builder(new ScriptedChatModel(['ok']))
      .defaultAdvisors(own)
      .build()
    expect(await toolAdvisorsIn(client)).toEqual(['Tool Calling Advisor'])
  })

  it('refuses two ToolAdvisors with the exact error', async () => {
    const client = ChatClient.builder(new ScriptedChatModel(['ok']))
      .defaultAdvisors(
        ToolCallingAdvisor.builder().build(),
        new (class Other extends ToolCallingAdvisor {
          override readonly name = 'Other'
        })(),
      )
      .build()
    await expect(client.prompt('q').call().content()).rejects.toThrow(
      'At most one ToolAdvisor is allowed in the advisor chain, but found 2: [Tool Calling Advisor (order=-2147483348), Other (order=-2147483348)]',
    )
  })

  it('runs tools that another advisor injects at run time', async () => {
    const log: string[] = []
    const injector: CallAdvisor = {
      name: 'injector',
      order: HIGHEST_PRECEDENCE + 100,
      adviseCall: (req, chain) =>
        chain.nextCall({
          ...req,
          prompt: { ...req.prompt, options: { ...req.prompt.options, tools: [weatherTool(log)] } },
        }),
    }
    const model = new ScriptedChatModel([weatherCall('Lima'), 'ok'])
    await ChatClient.builder(model).defaultAdvisors(injector).build().prompt('q').call().content()
    expect(log).toEqual(['Lima'])
  })

  it('adds no second advisor when .call() is used twice on one spec', async () => {
    const model = new ScriptedChatModel(['a', 'b'])
    const spec = ChatClient.create(model).prompt('q')
    await spec.call().content()
    expect(await toolAdvisorsIn(ChatClient.create(new ScriptedChatModel(['x'])))).toHaveLength(1)
    await expect(spec.call().content()).resolves.toBe('b')
  })

  it('turns the auto-registered advisor history off when a memory advisor sits inside the loop', async () => {
    const { MEMORY_ADVISOR } = await import('../markers')
    const memoryInside = {
      [MEMORY_ADVISOR]: true as const,
      name: 'memory',
      order: HIGHEST_PRECEDENCE + 350,
      adviseCall: (r: ChatClientRequest, c: CallAdvisorChain) => c.nextCall(r),
    }
    const model = new ScriptedChatModel([weatherCall('Paris'), 'ok'])
    await ChatClient.builder(model)
      .defaultSystem('sys')
      .defaultTools(weatherTool())
      .defaultAdvisors(memoryInside)
      .build()
      .prompt('q')
      .call()
      .content()
    expect(model.prompts[1]!.messages.map((m) => m.role)).toEqual(['system', 'tool'])
  })

  it('keeps history on when the memory advisor sits outside the loop', async () => {
    const { MEMORY_ADVISOR } = await import('../markers')
    const memoryOutside = {
      [MEMORY_ADVISOR]: true as const,
      name: 'memory',
      order: HIGHEST_PRECEDENCE + 200,
      adviseCall: (r: ChatClientRequest, c: CallAdvisorChain) => c.nextCall(r),
    }
    const model = new ScriptedChatModel([weatherCall('Paris'), 'ok'])
    await ChatClient.builder(model)
      .defaultSystem('sys')
      .defaultTools(weatherTool())
      .defaultAdvisors(memoryOutside)
      .build()
      .prompt('q')
      .call()
      .content()
    expect(model.prompts[1]!.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool'])
  })
})
