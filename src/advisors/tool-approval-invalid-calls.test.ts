import { describe, expect, it } from 'vitest'
import type { ToolResponseMessage } from '../core'
import { ChatClient } from '../client'
import { collect } from '../core/testing/collect'
import { ScriptedChatModel, type ScriptStep } from '../models'
import { defineTool, ToolCallError } from '../tools'
import { TraceCollector } from '../trace'
import { ObserverAdvisor } from './observer/observer'
import type { ApprovalRequest } from './approval-queue'
import { ToolApprovalAdvisor, type ApprovalPolicy } from './tool-approval'

// A call that can only fail is never shown to the user: its arguments are checked first (parsed,
// and validated by the tool's own schema) and a bad one gets the very `Error:` response the tool
// round would give it. A call cut off by the end of the answer is not shown either.

function bank(script: ScriptStep[], policy: ApprovalPolicy, options: { approval?: boolean; stream?: boolean } = {}) {
  const sent: unknown[] = []
  const sendMoney = defineTool({
    name: 'send_money',
    description: 'Sends money',
    inputSchema: { type: 'object', properties: { amount: { type: 'number' } }, required: ['amount'] } as const,
    execute: (args) => (sent.push(args), 'sent'),
  })
  const asked: ApprovalRequest[] = []
  const policyCalls: unknown[] = []
  const counted: ApprovalPolicy =
    typeof policy === 'function' ? (args, call) => (policyCalls.push(args), policy(args, call)) : policy
  const approval = ToolApprovalAdvisor.builder()
    .policy('send_money', counted)
    .handler((request) => (asked.push(request), Promise.resolve({ type: 'approve' })))
    .build()
  const model = new ScriptedChatModel(script)
  const collector = new TraceCollector()
  const client = ChatClient.builder(model)
    .defaultTools(sendMoney)
    .defaultAdvisors(...(options.approval === false ? [] : [approval]), new ObserverAdvisor({ sink: collector }))
    .build()
  const spec = client.prompt('Pay Ann')
  const answer = options.stream ? collect(spec.stream().content()).then((t) => t.join('')) : spec.call().content()
  return { sent, asked, policyCalls, model, collector, answer }
}

const pay = (args: string) => ({ toolCalls: [{ id: 'p1', name: 'send_money', arguments: args }] })
const toolAnswer = (model: ScriptedChatModel) =>
  (model.prompts[1]!.messages.at(-1) as ToolResponseMessage).responses.map((response) => response.responseData)
const overLimit: ApprovalPolicy = (args) => (args as { amount: number }).amount > 100

/** What the model is told about a call when no approval stands in the way. */
async function roundAnswer(args: string): Promise<string[]> {
  const { model, answer } = bank([pay(args), 'ok'], 'never', { approval: false })
  await answer
  return toolAnswer(model)
}

describe('ToolApprovalAdvisor never asks about a call that can only fail', () => {
  for (const stream of [false, true]) {
    const mode = stream ? 'stream' : 'call'

    it(`${mode}: arguments that are not JSON get the tool round's Error: response; no policy, no user, no run`, async () => {
      const { sent, asked, policyCalls, model, answer } = bank([pay('{amount: 500'), 'ok'], overLimit, { stream })
      expect(await answer).toBe('ok')
      expect(asked).toEqual([])
      expect(policyCalls).toEqual([])
      expect(sent).toEqual([])
      expect(toolAnswer(model)).toEqual(await roundAnswer('{amount: 500'))
      expect(toolAnswer(model)[0]).toMatch(/^Error: arguments for tool 'send_money' are not valid JSON/)
    })

    it(`${mode}: arguments that break the tool's schema get the tool round's Error: response without asking`, async () => {
      const { sent, asked, model, answer } = bank([pay('{"amount":"500"}'), 'ok'], 'always', { stream })
      expect(await answer).toBe('ok')
      expect(asked).toEqual([])
      expect(sent).toEqual([])
      expect(toolAnswer(model)).toEqual(["Error: invalid arguments for tool 'send_money': /amount must be number"])
      expect(toolAnswer(model)).toEqual(await roundAnswer('{"amount":"500"}'))
    })

    it(`${mode}: missing required arguments (blank means {}) are answered without asking`, async () => {
      const { asked, model, answer } = bank([pay(''), 'ok'], 'always', { stream })
      await answer
      expect(asked).toEqual([])
      expect(toolAnswer(model)).toEqual([
        "Error: invalid arguments for tool 'send_money': / must have required property 'amount'",
      ])
    })

    it(`${mode}: valid arguments are decided by the policy and asked about as before`, async () => {
      const { sent, asked, policyCalls, answer } = bank([pay('{"amount":500}'), 'ok'], overLimit, { stream })
      await answer
      expect(policyCalls).toEqual([{ amount: 500 }])
      expect(asked.map((request) => request.arguments)).toEqual([{ amount: 500 }])
      expect(sent).toEqual([{ amount: 500 }])
    })

    it(`${mode}: a call cut off at the token limit is not shown; the loop refuses it`, async () => {
      const { sent, asked, answer } = bank([{ ...pay('{"amount": 5'), finishReason: 'length' }, 'ok'], 'always', {
        stream,
      })
      await expect(answer).rejects.toBeInstanceOf(ToolCallError)
      expect(asked).toEqual([])
      expect(sent).toEqual([])
    })
  }

  it('still asks about a call to a tool it cannot see, with arguments that parse', async () => {
    const asked: string[] = []
    const approval = ToolApprovalAdvisor.builder()
      .defaultPolicy('always')
      .handler((request) => (asked.push(request.toolCall.name), Promise.resolve({ type: 'reject' })))
      .build()
    const model = new ScriptedChatModel([{ toolCalls: [{ id: 'x1', name: 'launch', arguments: '{}' }] }, 'ok'])
    await ChatClient.builder(model).defaultAdvisors(approval).build().prompt('Go').call().content()
    expect(asked).toEqual(['launch'])
  })

  it('shows the refused call in the trace as a failed tool call, with no approval asked', async () => {
    const { collector, answer } = bank([pay('{amount: 500'), 'ok'], overLimit)
    await answer
    expect(collector.ofType('approval')).toEqual([])
    const ended = collector.ofType('tool-end')
    expect(ended).toHaveLength(1)
    expect(ended[0]!.error).toMatch(/^Error: arguments for tool 'send_money' are not valid JSON/)
  })
})
