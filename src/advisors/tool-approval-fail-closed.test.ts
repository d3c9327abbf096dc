import { describe, expect, it } from 'vitest'
import type { ToolResponseMessage } from '../core'
import { ChatClient } from '../client'
import { ScriptedChatModel, type ScriptStep } from '../models'
import { defineTool } from '../tools'
import { TraceCollector } from '../trace'
import { ObserverAdvisor } from './observer/observer'
import { ApprovalQueue, type ApprovalHandler } from './approval-queue'
import { ToolApprovalAdvisor, type ApprovalPolicy } from './tool-approval'

function bank() {
  const sent: number[] = []
  const sendMoney = defineTool({
    name: 'send_money',
    description: 'Sends money',
    inputSchema: { type: 'object', properties: { amount: { type: 'number' } } } as const,
    execute: ({ amount }) => (sent.push(amount ?? 0), `sent ${amount}`),
  })
  return { sent, sendMoney }
}

function run(handler: ApprovalHandler, script: ScriptStep[], policy: ApprovalPolicy = 'always') {
  const { sent, sendMoney } = bank()
  const model = new ScriptedChatModel(script)
  const collector = new TraceCollector()
  const approval = ToolApprovalAdvisor.builder().policy('send_money', policy).handler(handler).build()
  const client = ChatClient.builder(model)
    .defaultTools(sendMoney)
    .defaultAdvisors(approval, new ObserverAdvisor({ sink: collector }))
    .build()
  return { sent, model, collector, answer: client.prompt('Pay Ann').call().content() }
}

const pay = (amount: number | string, id = 'pay-1') => ({
  id,
  name: 'send_money',
  arguments: typeof amount === 'string' ? amount : { amount },
})
const toolAnswers = (model: ScriptedChatModel, call: number) =>
  (model.prompts[call]!.messages.at(-1) as ToolResponseMessage).responses.map((r) => r.responseData)

describe('ToolApprovalAdvisor fails closed', () => {
  it.each([
    ['{type:"deny"}', { type: 'deny' }, '{"type":"deny"}'],
    ['{type:"maybe"}', { type: 'maybe' }, '{"type":"maybe"}'],
    ['undefined', undefined, 'undefined'],
    ['null', null, 'null'],
    ['the string "approve"', 'approve', '"approve"'],
    ['{type:"APPROVE"}', { type: 'APPROVE' }, '{"type":"APPROVE"}'],
    ['an object that inherits type approve', Object.create({ type: 'approve' }) as object, '{}'],
  ])('does not run a call when the handler answers %s, and tells the model why', async (_label, decision, shown) => {
    const { sent, model, answer } = run(() => Promise.resolve(decision as never), [{ toolCalls: [pay(500)] }, 'ok'])
    expect(await answer).toBe('ok')
    expect(sent).toEqual([])
    expect(toolAnswers(model, 1)).toEqual([
      `The call to send_money needed the user's approval and was not approved (the approval handler answered ${shown}, which is not a decision (expected approve, edit or reject)), so it was not run. Do not try it again for this request; continue without it or ask the user what to do.`,
    ])
  })

  it('does not run a call whose edit carries no usable arguments', async () => {
    const { sent, model, answer } = run(
      () => Promise.resolve({ type: 'edit' } as never),
      [{ toolCalls: [pay(500)] }, 'ok'],
    )
    await answer
    expect(sent).toEqual([])
    expect(toolAnswers(model, 1)[0]).toContain('(the edited arguments are neither an object nor JSON text)')
  })

  it('does not run a call when the handler fails, and the run goes on', async () => {
    const { sent, model, collector, answer } = run(
      () => Promise.reject(new Error('dialog crashed')),
      [{ toolCalls: [pay(500)] }, 'ok'],
    )
    expect(await answer).toBe('ok')
    expect(sent).toEqual([])
    expect(toolAnswers(model, 1)[0]).toContain('(the approval handler failed: dialog crashed)')
    expect(collector.ofType('approval').map((a) => [a.phase, a.decision ?? null])).toEqual([
      ['requested', null],
      ['decided', 'reject'],
    ])
  })

  it('still runs an explicitly approved call', async () => {
    const { sent, answer } = run(() => Promise.resolve({ type: 'approve' }), [{ toolCalls: [pay(5)] }, 'ok'])
    await answer
    expect(sent).toEqual([5])
  })

  it('asks the user when a policy throws on arguments it did not expect', async () => {
    const asked: unknown[] = []
    const { sent, answer } = run(
      (request) => (asked.push(request.arguments), Promise.resolve({ type: 'reject' })),
      [{ toolCalls: [pay('{}')] }, 'ok'],
      (args) => (args as { amount: { cents: number } }).amount.cents > 100,
    )
    expect(await answer).toBe('ok')
    expect(asked).toEqual([{}])
    expect(sent).toEqual([])
  })

  it('asks the user when a policy answers anything but false', async () => {
    const asked: string[] = []
    const { answer } = run(
      (request) => (asked.push(request.toolCall.id), Promise.resolve({ type: 'approve' })),
      [{ toolCalls: [pay(1)] }, 'ok'],
      (() => undefined) as unknown as ApprovalPolicy,
    )
    await answer
    expect(asked).toEqual(['pay-1'])
  })

  it('refuses a policy that is not always, never or a function', () => {
    expect(() =>
      ToolApprovalAdvisor.builder()
        .handler(() => Promise.resolve({ type: 'approve' }))
        .policy('send_money', 'sometimes' as ApprovalPolicy)
        .build(),
    ).toThrow("policy of tool 'send_money' must be 'always', 'never' or a function of the arguments, but was sometimes")
  })

  it.each(['hasOwnProperty', 'constructor', 'toString', '__proto__'])(
    'runs a tool named %s without finding a policy on Object.prototype',
    async (name) => {
      const tool = defineTool({ name, description: '', inputSchema: { type: 'object' }, execute: () => 'ran' })
      const model = new ScriptedChatModel([{ toolCalls: [{ id: 'c1', name }] }, 'ok'])
      const approval = ToolApprovalAdvisor.builder()
        .handler(() => Promise.resolve({ type: 'reject' }))
        .build()
      const answer = await ChatClient.builder(model)
        .defaultTools(tool)
        .defaultAdvisors(approval)
        .build()
        .prompt('q')
        .call()
        .content()
      expect(answer).toBe('ok')
      expect(toolAnswers(model, 1)).toEqual(['ran'])
    },
  )

  it('runs a call with id constructor next to a rejected call', async () => {
    const { sent, model, answer } = run(
      (request) => Promise.resolve(request.toolCall.id === 'reject-me' ? { type: 'reject' } : { type: 'approve' }),
      [{ toolCalls: [pay(1, 'reject-me'), pay(2, 'constructor')] }, 'ok'],
    )
    await answer
    expect(sent).toEqual([2])
    expect(toolAnswers(model, 1)[1]).toBe('sent 2')
  })

  it('does not carry a rejection over to a later call that reuses the call id', async () => {
    let round = 0
    const { sent, model, answer } = run(
      () => Promise.resolve(++round === 1 ? { type: 'reject' } : { type: 'approve' }),
      [{ toolCalls: [pay(1, 'call_0')] }, { toolCalls: [pay(2, 'call_0')] }, 'ok'],
    )
    await answer
    expect(sent).toEqual([2])
    expect(toolAnswers(model, 2)).toEqual(['sent 2'])
  })

  it('does not carry a rejection over to a reused call id that needs no approval', async () => {
    const { sent, answer } = run(
      () => Promise.resolve({ type: 'reject' }),
      [{ toolCalls: [pay(500, 'call_0')] }, { toolCalls: [pay(2, 'call_0')] }, 'ok'],
      (args) => (args as { amount: number }).amount > 100,
    )
    await answer
    expect(sent).toEqual([2])
  })
})

describe('ApprovalQueue keys approvals by run and call', () => {
  const twoRuns = (queue: ApprovalQueue, count = 2) => {
    const runs = Array.from({ length: count }, bank).map(({ sent, sendMoney }) => {
      const approval = ToolApprovalAdvisor.builder().policy('send_money', 'always').handler(queue.handler).build()
      const model = new ScriptedChatModel([{ toolCalls: [pay(1, 'call_0')] }, 'ok'])
      const client = ChatClient.builder(model).defaultTools(sendMoney).defaultAdvisors(approval).build()
      return { sent, answer: client.prompt('q').call().content() }
    })
    return runs
  }

  it('lets two runs wait on the same tool-call id and answers each', async () => {
    const queue = new ApprovalQueue()
    const [first, second] = twoRuns(queue)
    await expect.poll(() => queue.pending().length).toBe(2)
    const [a, b] = queue.pending()
    expect(a!.id).toBe('call_0')
    expect(b!.id).toBe(`${b!.runId}/call_0`)
    expect(a!.runId).not.toBe(b!.runId)
    queue.decide(a!.id, { type: 'approve' })
    queue.decide(b!.id, { type: 'reject' })
    expect(await first!.answer).toBe('ok')
    expect(await second!.answer).toBe('ok')
    expect([first!.sent, second!.sent]).toEqual([[1], []])
    expect(queue.pending()).toEqual([])
  })

  it('refuses a bare call id that several runs wait on', async () => {
    const queue = new ApprovalQueue()
    const runs = twoRuns(queue, 3)
    await expect.poll(() => queue.pending().length).toBe(3)
    queue.decide('call_0', { type: 'approve' })
    expect(() => queue.decide('call_0', { type: 'approve' })).toThrow(
      /^2 approvals are waiting for tool call 'call_0' \(in different runs\); answer with the id from pending\(\): /,
    )
    for (const approval of queue.pending()) queue.decide(approval.id, { type: 'approve' })
    await Promise.all(runs.map((r) => r.answer))
  })

  it('answers by the call id when only one run waits on it', async () => {
    const queue = new ApprovalQueue()
    const [first, second] = twoRuns(queue)
    await expect.poll(() => queue.pending().length).toBe(2)
    queue.decide(queue.pending()[1]!.id, { type: 'approve' })
    queue.decide('call_0', { type: 'approve' })
    await Promise.all([first!.answer, second!.answer])
    expect(() => queue.decide('call_0', { type: 'approve' })).toThrow("No approval is waiting for tool call 'call_0'")
  })

  it('keeps no prototype keys: constructor is not a pending approval', () => {
    expect(() => new ApprovalQueue().decide('constructor', { type: 'approve' })).toThrow(
      "No approval is waiting for tool call 'constructor'",
    )
  })
})
