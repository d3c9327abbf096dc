import { describe, expect, it } from 'vitest'
import {
  systemMessage,
  userMessage,
  type CallAdvisorChain,
  type ChatClientRequest,
  type ChatClientResponse,
  type Message,
  type ToolResponseMessage,
} from '../../core'
import { ChatClient } from '../../client'
import { ScriptedChatModel } from '../../models'
import { defineTool, ToolCallingManager, ToolCallLimitExceededError, type ToolExecutionResult } from '../../tools'
import { ToolCallingAdvisor } from './tool-calling'

const direct = (name: string) =>
  defineTool({
    name,
    description: '',
    inputSchema: { type: 'object' },
    returnDirect: true,
    execute: () => `${name} out`,
  })

const counter = () => {
  let runs = 0
  const tool = defineTool({
    name: 'count',
    description: '',
    inputSchema: { type: 'object', properties: { n: { type: 'number' } } },
    execute: () => String(++runs),
  })
  return { tool, runs: () => runs }
}

const lastToolTexts = (model: ScriptedChatModel, call: number) =>
  (model.prompts[call]!.messages.findLast((m) => m.role === 'tool') as ToolResponseMessage).responses.map(
    (r) => r.responseData,
  )

describe('Spring AI fidelity of the tool loop', () => {
  it('tells returnDirect generations apart by the call they answer', async () => {
    const model = new ScriptedChatModel([
      {
        toolCalls: [
          { id: 'a1', name: 'first' },
          { id: 'b1', name: 'second' },
        ],
      },
    ])
    const response = await ChatClient.builder(model)
      .defaultTools(direct('first'), direct('second'))
      .build()
      .prompt('q')
      .call()
      .chatResponse()
    expect(response!.results.map((g) => [g.output.text, g.metadata])).toEqual([
      ['first out', { finishReason: 'returnDirect', toolId: 'a1', toolName: 'first' }],
      ['second out', { finishReason: 'returnDirect', toolId: 'b1', toolName: 'second' }],
    ])
  })

  it('hands tools a read-only copy of toolContext, so round 1 cannot change what round 2 sees', async () => {
    const seen: unknown[] = []
    const context = { user: 'ann' }
    const meddler = defineTool({
      name: 'meddle',
      description: '',
      inputSchema: { type: 'object' },
      execute: (_args, ctx) => {
        seen.push({ ...ctx.values })
        ctx.values['user'] = 'mallory'
        return 'changed'
      },
    })
    const model = new ScriptedChatModel([
      { toolCalls: [{ name: 'meddle' }] },
      { toolCalls: [{ name: 'meddle' }] },
      'ok',
    ])
    await ChatClient.builder(model).defaultTools(meddler).build().prompt('q').toolContext(context).call().content()
    expect(seen).toEqual([{ user: 'ann' }, { user: 'ann' }])
    expect(context).toEqual({ user: 'ann' })
    expect(lastToolTexts(model, 1)[0]).toMatch(
      /^Error: tool 'meddle' failed: .*read.only|^Error: tool 'meddle' failed: Cannot assign/,
    )
  })

  it("runs the calls before a breach with onExceed 'throw' and carries them as partialToolResponses", async () => {
    const { tool, runs } = counter()
    const manager = ToolCallingManager.builder().limits({ perTool: 2, onExceed: 'throw' }).build()
    const calls = [1, 2, 3].map((n) => ({ id: `c${n}`, name: 'count', arguments: { n } }))
    const model = new ScriptedChatModel([{ toolCalls: calls }])
    const response = await ChatClient.builder(model)
      .defaultTools(tool)
      .toolCallingAdvisor(ToolCallingAdvisor.builder().toolCallingManager(manager))
      .build()
      .prompt('q')
      .call()
      .chatResponse()
    expect(runs()).toBe(2)
    const generation = response!.results[0]!
    expect(generation.metadata.finishReason).toBe('toolCallLimitExceeded')
    expect(generation.output.text).toBe(
      "Tool call limit exceeded: tool 'count' was called 3 times in this turn (limit 2 per tool).",
    )
    expect(generation.metadata['partialToolResponses']).toEqual([
      { id: 'c1', name: 'count', responseData: '1' },
      { id: 'c2', name: 'count', responseData: '2' },
    ])
  })

  it('gives the manager error the partial responses', async () => {
    const { tool } = counter()
    const manager = ToolCallingManager.builder().limits({ total: 1, onExceed: 'throw' }).build()
    const error: unknown = await manager
      .executeToolCalls(
        { messages: [userMessage('q')], options: { tools: [tool] } },
        {
          results: [
            {
              output: {
                role: 'assistant',
                text: '',
                toolCalls: [
                  { id: 'x', name: 'count', arguments: '{}' },
                  { id: 'y', name: 'count', arguments: '{"n":1}' },
                ],
              },
              metadata: {},
            },
          ],
          metadata: {},
        },
      )
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ToolCallLimitExceededError)
    expect((error as ToolCallLimitExceededError).partialToolResponses).toEqual([
      { id: 'x', name: 'count', responseData: '1' },
    ])
  })

  it('keeps counting the turn when a hook adds a user message every round', async () => {
    class Nagging extends ToolCallingAdvisor {
      protected override async doBeforeCall(request: ChatClientRequest, _chain: CallAdvisorChain) {
        const messages = [...request.prompt.messages, userMessage(`keep going (${String(request.context['n'])})`)]
        return { ...request, prompt: { ...request.prompt, messages } }
      }
    }
    const { tool, runs } = counter()
    const manager = ToolCallingManager.builder().limits({ perTool: 3, onExceed: 'error-response' }).build()
    const rounds = Array.from({ length: 5 }, (_, n) => ({ toolCalls: [{ name: 'count', arguments: { n } }] }))
    const model = new ScriptedChatModel([...rounds, 'done'])
    await ChatClient.builder(model)
      .defaultTools(tool)
      .defaultAdvisors(new Nagging({ toolCallingManager: manager }))
      .build()
      .prompt('q')
      .call()
      .content()
    expect(runs()).toBe(3)
    expect(lastToolTexts(model, 4)[0]).toMatch(/^Error: tool call limit reached: tool 'count' was called 4 times/)
  })

  it('replaces a system message a hook rewrites when history is off, instead of piling it up', async () => {
    const histories: Message[][] = []
    class Rewriting extends ToolCallingAdvisor {
      protected override async doBeforeCall(request: ChatClientRequest, _chain: CallAdvisorChain) {
        const round = request.context['advisor-chain.round'] as number
        const messages = request.prompt.messages.map((m) =>
          m.role === 'system' ? systemMessage(`rules v${round}`) : m,
        )
        return { ...request, prompt: { ...request.prompt, messages } }
      }
      protected override async doGetNextInstructionsForToolCall(
        request: ChatClientRequest,
        response: ChatClientResponse,
        result: ToolExecutionResult,
      ) {
        histories.push([...result.conversationHistory])
        return super.doGetNextInstructionsForToolCall(request, response, result)
      }
    }
    const { tool } = counter()
    const model = new ScriptedChatModel([
      { toolCalls: [{ name: 'count', arguments: { n: 1 } }] },
      { toolCalls: [{ name: 'count', arguments: { n: 2 } }] },
      'ok',
    ])
    await ChatClient.builder(model)
      .defaultSystem('rules v0')
      .defaultTools(tool)
      .defaultAdvisors(new Rewriting({ conversationHistoryEnabled: false }))
      .build()
      .prompt('q')
      .call()
      .content()
    const systems = (history: Message[]) =>
      history.filter((m) => m.role === 'system').map((m) => (m.role === 'system' ? m.text : ''))
    expect(histories.map(systems)).toEqual([['rules v1'], ['rules v2']])
    expect(model.prompts.map((p) => systems(p.messages))).toEqual([['rules v1'], ['rules v2'], ['rules v3']])
  })

  it('names each ToolAdvisor with its order when there are two', async () => {
    const client = ChatClient.builder(new ScriptedChatModel(['ok']))
      .defaultAdvisors(new ToolCallingAdvisor({ advisorOrder: 7 }), new ToolCallingAdvisor({ advisorOrder: 9 }))
      .build()
    await expect(client.prompt('q').call().content()).rejects.toThrow(
      'At most one ToolAdvisor is allowed in the advisor chain, but found 2: [Tool Calling Advisor (order=7), Tool Calling Advisor (order=9)]',
    )
  })
})
