import { describe, expect, it } from 'vitest'
import { ChatClient } from '../client'
import type { Message } from '../core'
import { ScriptedChatModel } from '../models'
import { collect } from '../core/testing/collect'
import { defineTool } from '../tools'
import { TraceCollector } from '../trace'
import { ObserverAdvisor } from './observer/observer'
import { EvaluationAdvisor, readJudgement, type Judge } from './evaluation'

const lengthJudge: Judge = ({ answer }) => ({ score: Math.min(1, answer.length / 20), feedback: 'Give more detail.' })

describe('EvaluationAdvisor', () => {
  it('returns the first answer that passes the threshold', async () => {
    const model = new ScriptedChatModel(['Short.', 'A much longer and more detailed answer.'])
    const advisor = EvaluationAdvisor.builder().judge(lengthJudge).threshold(0.8).build()
    expect(await ChatClient.builder(model).defaultAdvisors(advisor).build().prompt('Explain').call().content()).toBe(
      'A much longer and more detailed answer.',
    )
    expect(model.prompts).toHaveLength(2)
  })

  it('retries with the answer that fell short and the feedback', async () => {
    const model = new ScriptedChatModel(['Short.', 'A much longer and more detailed answer.'])
    await ChatClient.builder(model)
      .defaultAdvisors(EvaluationAdvisor.builder().judge(lengthJudge).build())
      .build()
      .prompt('Explain')
      .call()
      .content()
    const retry = model.prompts[1]!.messages
    expect(retry.map((m: Message) => m.role)).toEqual(['user', 'assistant', 'user'])
    expect(retry[1]).toMatchObject({ text: 'Short.' })
    expect(retry[2]).toMatchObject({
      text: 'A reviewer scored that answer 0.30 of 1 (0.7 needed). Feedback: Give more detail. Write an improved answer to the original request.',
    })
  })

  it('returns the best answer when no attempt passes', async () => {
    const model = new ScriptedChatModel(['ab', 'abcdef', 'abc'])
    const advisor = EvaluationAdvisor.builder().judge(lengthJudge).maxAttempts(3).build()
    expect(await ChatClient.builder(model).defaultAdvisors(advisor).build().prompt('q').call().content()).toBe('abcdef')
  })

  it('re-runs the whole tool loop for a new attempt', async () => {
    const log: string[] = []
    const fact = defineTool({
      name: 'fact',
      description: '',
      inputSchema: {},
      execute: () => (log.push('fact'), 'a fact'),
    })
    const model = new ScriptedChatModel([
      { toolCalls: [{ name: 'fact' }] },
      'Short.',
      { toolCalls: [{ name: 'fact' }] },
      'A much longer and more detailed answer.',
    ])
    await ChatClient.builder(model)
      .defaultTools(fact)
      .defaultAdvisors(EvaluationAdvisor.builder().judge(lengthJudge).build())
      .build()
      .prompt('q')
      .call()
      .content()
    expect(log).toEqual(['fact', 'fact'])
  })

  it('streams the chosen attempt only', async () => {
    const model = new ScriptedChatModel(['Short.', 'A much longer and more detailed answer.'])
    const client = ChatClient.builder(model)
      .defaultAdvisors(EvaluationAdvisor.builder().judge(lengthJudge).build())
      .build()
    expect((await collect(client.prompt('q').stream().content())).join('')).toBe(
      'A much longer and more detailed answer.',
    )
  })

  it('shows each attempt and score to observers', async () => {
    const collector = new TraceCollector()
    const model = new ScriptedChatModel(['Short.', 'A much longer and more detailed answer.'])
    const client = ChatClient.builder(model)
      .defaultAdvisors(EvaluationAdvisor.builder().judge(lengthJudge).build(), new ObserverAdvisor({ sink: collector }))
      .build()
    await client.prompt('q').call().content()
    const evaluations = collector.ofType('evaluation')
    expect(evaluations.map((e) => [e.attempt, e.passed])).toEqual([
      [1, false],
      [2, true],
    ])
    expect(new Set(evaluations.map((e) => e.runId)).size, 'one call, one run').toBe(1)
  })

  it('keeps the answer unevaluated when the judge fails', async () => {
    const model = new ScriptedChatModel(['Short.'])
    const advisor = EvaluationAdvisor.builder()
      .judge(() => Promise.reject(new Error('judge offline')))
      .build()
    expect(await ChatClient.builder(model).defaultAdvisors(advisor).build().prompt('q').call().content()).toBe('Short.')
  })

  it('can judge with a second model and a rubric', async () => {
    const judgeModel = new ScriptedChatModel([
      '{"score": 0.2, "feedback": "Cite a source."}',
      '```json\n{"score": 0.9}\n```',
    ])
    const model = new ScriptedChatModel(['Paris.', 'Paris (source: Britannica).'])
    const advisor = EvaluationAdvisor.builder()
      .judge(EvaluationAdvisor.modelJudge(judgeModel, 'Answers cite a source.'))
      .build()
    expect(
      await ChatClient.builder(model).defaultAdvisors(advisor).build().prompt('Capital of France?').call().content(),
    ).toBe('Paris (source: Britannica).')
    expect(JSON.stringify(judgeModel.prompts[0]!.messages)).toContain('Answers cite a source.')
  })

  it('reads a judge reply or says why it cannot', () => {
    expect(readJudgement('{"score":1}')).toEqual({ score: 1 })
    expect(() => readJudgement('great answer')).toThrow('the reviewer did not reply with JSON')
  })

  it('says why it cannot read a judge reply that is JSON but no judgement, or nested absurdly deep', () => {
    expect(() => readJudgement('null')).toThrow("the reviewer's reply has no numeric score: null")
    expect(() => readJudgement('7')).toThrow("the reviewer's reply has no numeric score: 7")
    expect(() => readJudgement('['.repeat(10_000) + ']'.repeat(10_000))).toThrow('the reviewer did not reply with JSON')
  })
})
