import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { HIGHEST_PRECEDENCE, LOWEST_PRECEDENCE, type CallAdvisor, type UserMessage, type JsonSchema } from '../core'
import { ChatClient } from '../client'
import { ScriptedChatModel, type ScriptStep } from '../models'
import { OutputParseError } from '../schema'
import { collect } from '../core/testing/collect'
import { defineTool } from '../tools'
import { TraceCollector } from '../trace'
import { ObserverAdvisor } from './observer/observer'
import { StructuredOutputValidationAdvisor } from './structured-output'

const person = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    age: { type: 'integer' },
    address: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    tags: { type: 'array', items: { type: 'string' } },
  },
  required: ['name', 'age'],
} as const

const usage = (p: number, c: number) => ({ promptTokens: p, completionTokens: c, totalTokens: p + c })

function run(script: ScriptStep[], maxRepeatAttempts?: number, extra: { schema?: JsonSchema } = {}) {
  const model = new ScriptedChatModel(script)
  const advisor = StructuredOutputValidationAdvisor.builder()
    .outputSchema(extra.schema ?? person)
    .maxRepeatAttempts(maxRepeatAttempts ?? 3)
    .build()
  const client = ChatClient.builder(model).defaultAdvisors(advisor).build()
  return { model, response: client.prompt('Who is Ann?').call().chatResponse() }
}

const lastUserText = (model: ScriptedChatModel, call: number) =>
  (model.prompts[call]!.messages.findLast((m) => m.role === 'user') as UserMessage).text

describe('StructuredOutputValidationAdvisor', () => {
  it('returns a valid answer after one call', async () => {
    const { model, response } = run(['{"name":"Ann","age":30}'])
    expect((await response)?.results[0]?.output.text).toBe('{"name":"Ann","age":30}')
    expect(model.prompts).toHaveLength(1)
  })

  it('retries an invalid answer with the errors appended to the last user message', async () => {
    const { model, response } = run(['{"name":"Ann","age":"thirty"}', '{"name":"Ann","age":30}'])
    await response
    expect(model.prompts).toHaveLength(2)
    expect(lastUserText(model, 1)).toBe('Who is Ann?\nOutput JSON validation failed because of: /age: must be integer')
  })

  it('returns the last response after 1 + maxRepeatAttempts calls, without throwing', async () => {
    const { model, response } = run(['{}', '{}', '{}', '{"name":1}'])
    expect((await response)?.results[0]?.output.text).toBe('{"name":1}')
    expect(model.prompts).toHaveLength(4)
  })

  it('makes one call only with zero repeat attempts', async () => {
    const { model, response } = run(['{}'], 0)
    expect((await response)?.results[0]?.output.text).toBe('{}')
    expect(model.prompts).toHaveLength(1)
  })

  it('reports a missing response', async () => {
    const model = new ScriptedChatModel([])
    const nothing: CallAdvisor = {
      name: 'nothing',
      order: LOWEST_PRECEDENCE - 1,
      adviseCall: async (req) => ({ chatResponse: null, context: req.context }),
    }
    const seen: string[] = []
    const spy: CallAdvisor = {
      name: 'spy',
      order: LOWEST_PRECEDENCE - 2,
      adviseCall: async (req, chain) => {
        seen.push((req.prompt.messages.at(-1) as UserMessage).text)
        return chain.nextCall(req)
      },
    }
    const advisor = StructuredOutputValidationAdvisor.builder().outputSchema(person).maxRepeatAttempts(1).build()
    await ChatClient.builder(model).defaultAdvisors(advisor, spy, nothing).build().prompt('q').call().content()
    expect(seen).toEqual([
      'q',
      'q\nOutput JSON validation failed because of: Missing required json output for validation.',
    ])
  })

  it('reports a response without a result', async () => {
    const model = new ScriptedChatModel([])
    const empty: CallAdvisor = {
      name: 'empty',
      order: LOWEST_PRECEDENCE - 1,
      adviseCall: async (req) => ({ chatResponse: { results: [], metadata: {} }, context: req.context }),
    }
    const collector = new TraceCollector()
    const advisor = StructuredOutputValidationAdvisor.builder().outputSchema(person).maxRepeatAttempts(0).build()
    await ChatClient.builder(model)
      .defaultAdvisors(new ObserverAdvisor({ sink: collector }), advisor, empty)
      .build()
      .prompt('q')
      .call()
      .content()
    expect(collector.ofType('validation')[0]!.errors).toEqual(['Missing required json output for validation.'])
  })

  it.each([
    ['empty text', '', 'Empty JSON output for validation.'],
    ['malformed JSON', '{"name": "Ann",', 'Invalid JSON: '],
    ['a wrong type', '{"name":"Ann","age":1.5}', '/age: must be integer'],
    ['a missing field', '{"name":"Ann"}', "must have required property 'age'"],
    ['a nested object', '{"name":"Ann","age":1,"address":{}}', "/address: must have required property 'city'"],
    ['an array item', '{"name":"Ann","age":1,"tags":["a",2]}', '/tags/1: must be string'],
    [
      'JSON nested 10,000 deep',
      '['.repeat(10_000) + ']'.repeat(10_000),
      'Invalid JSON: JSON nested more than 256 levels deep',
    ],
  ])('names the failure for %s', async (_case, text, expected) => {
    const { model, response } = run([text, '{"name":"Ann","age":1}'])
    await response
    expect(lastUserText(model, 1)).toContain(`Output JSON validation failed because of: ${expected}`)
  })

  it('accepts extra fields unless the schema forbids them', async () => {
    const open = run(['{"name":"Ann","age":1,"extra":true}'])
    await open.response
    expect(open.model.prompts).toHaveLength(1)
    const strict = run(['{"name":"Ann","age":1,"extra":true}', '{"name":"Ann","age":1}'], 3, {
      schema: { ...person, additionalProperties: false },
    })
    await strict.response
    expect(lastUserText(strict.model, 1)).toContain("must NOT have additional properties: 'extra'")
  })

  it('joins several errors with "; " and does not accumulate them across attempts', async () => {
    const { model, response } = run(['{"name":1,"age":"x"}', '{"name":"Ann","age":"x"}', '{"name":"Ann","age":1}'])
    await response
    expect(lastUserText(model, 1)).toBe(
      'Who is Ann?\nOutput JSON validation failed because of: /name: must be string; /age: must be integer',
    )
    expect(lastUserText(model, 2)).toBe('Who is Ann?\nOutput JSON validation failed because of: /age: must be integer')
  })

  it('sums the usage of every attempt', async () => {
    const { response } = run([
      { text: '{}', usage: usage(10, 2) },
      { text: '{"name":"A","age":1}', usage: usage(12, 3) },
    ])
    expect((await response)?.metadata.usage).toEqual(usage(22, 5))
  })

  it('strips markdown code fences before validating', async () => {
    const { model, response } = run(['```json\n{"name":"Ann","age":30}\n```'])
    await response
    expect(model.prompts).toHaveLength(1)
  })

  it('lets a tool-call response through without using an attempt', async () => {
    const model = new ScriptedChatModel([
      '{"broken"',
      { toolCalls: [{ name: 'lookup', arguments: { who: 'Ann' } }] },
      '{"name":"Ann","age":30}',
    ])
    const lookup = defineTool({
      name: 'lookup',
      description: '',
      inputSchema: { type: 'object' },
      execute: () => 'Ann is 30',
    })
    const advisor = StructuredOutputValidationAdvisor.builder().outputSchema(person).maxRepeatAttempts(1).build()
    const answer = await ChatClient.builder(model)
      .defaultTools(lookup)
      .defaultAdvisors(advisor)
      .build()
      .prompt('Who is Ann?')
      .call()
      .content()
    expect(answer).toBe('{"name":"Ann","age":30}')
    expect(model.prompts).toHaveLength(3)
  })

  it('validates inside the tool loop and records each attempt for observers', async () => {
    const collector = new TraceCollector()
    const model = new ScriptedChatModel([
      { toolCalls: [{ name: 'lookup' }] },
      '{"name":"Ann"}',
      '{"name":"Ann","age":30}',
    ])
    const lookup = defineTool({
      name: 'lookup',
      description: '',
      inputSchema: { type: 'object' },
      execute: () => 'Ann is 30',
    })
    const client = ChatClient.builder(model)
      .defaultTools(lookup)
      .defaultAdvisors(
        new ObserverAdvisor({ sink: collector }),
        StructuredOutputValidationAdvisor.builder().outputSchema(person).build(),
      )
      .build()
    await client.prompt('q').call().content()
    expect(collector.ofType('validation').map((v) => [v.round, v.attempt, v.valid])).toEqual([
      [2, 1, false],
      [2, 2, true],
    ])
    expect(collector.ofType('validation')[0]!.retryWith).toBe(
      "Output JSON validation failed because of: must have required property 'age'",
    )
  })

  it('validates a streamed answer and streams a new attempt with the errors appended', async () => {
    const collector = new TraceCollector()
    const model = new ScriptedChatModel(['{"name":"Ann"}', '{"name":"Ann","age":30}'])
    const client = ChatClient.builder(model)
      .defaultAdvisors(
        new ObserverAdvisor({ sink: collector }),
        StructuredOutputValidationAdvisor.builder().outputSchema(person).build(),
      )
      .build()
    const text = (await collect(client.prompt('Who is Ann?').stream().content())).join('')
    expect(text).toBe('{"name":"Ann"}{"name":"Ann","age":30}')
    expect(lastUserText(model, 1)).toBe(
      "Who is Ann?\nOutput JSON validation failed because of: must have required property 'age'",
    )
    expect(collector.ofType('validation').map((v) => [v.attempt, v.valid])).toEqual([
      [1, false],
      [2, true],
    ])
  })

  it('ends a stream with the last attempt when every attempt is invalid', async () => {
    const model = new ScriptedChatModel(['{}', '{"name":1}'])
    const advisor = StructuredOutputValidationAdvisor.builder().outputSchema(person).maxRepeatAttempts(1).build()
    const client = ChatClient.builder(model).defaultAdvisors(advisor).build()
    expect(await collect(client.prompt('q').stream().content())).toEqual(['{}', '{"name":1}'])
    expect(model.prompts).toHaveLength(2)
  })

  it('lets a streamed tool call go back to the loop without using an attempt', async () => {
    const model = new ScriptedChatModel([{ toolCalls: [{ name: 'lookup' }] }, '{"name":"Ann","age":30}'])
    const lookup = defineTool({ name: 'lookup', description: '', inputSchema: { type: 'object' }, execute: () => '30' })
    const advisor = StructuredOutputValidationAdvisor.builder().outputSchema(person).maxRepeatAttempts(0).build()
    const client = ChatClient.builder(model).defaultTools(lookup).defaultAdvisors(advisor).build()
    expect((await collect(client.prompt('q').stream().content())).join('')).toBe('{"name":"Ann","age":30}')
  })

  it('has the contract name, order and builder errors', () => {
    const advisor = StructuredOutputValidationAdvisor.builder().outputSchema(person).build()
    expect([advisor.name, advisor.order]).toEqual(['Structured Output Validation Advisor', LOWEST_PRECEDENCE - 2000])
    expect(() => StructuredOutputValidationAdvisor.builder().build()).toThrow('outputSchema must be set')
    expect(() =>
      StructuredOutputValidationAdvisor.builder().outputSchema(person).maxRepeatAttempts(-1).build(),
    ).toThrow('repeatAttempts must be greater than or equal to 0')
    expect(() =>
      StructuredOutputValidationAdvisor.builder().outputSchema(person).advisorOrder(HIGHEST_PRECEDENCE).build(),
    ).toThrow('advisorOrder must be between HIGHEST_PRECEDENCE and LOWEST_PRECEDENCE')
  })
})

describe('entity()', () => {
  it('returns a typed value from a zod schema, with format instructions for a model without native support', async () => {
    const model = new ScriptedChatModel(['```json\n{"city":"Oslo","days":2}\n```'])
    const trip = await ChatClient.create(model)
      .prompt('Plan a trip')
      .call()
      .entity(z.object({ city: z.string(), days: z.number() }))
    const days: number = trip.days
    expect(trip).toEqual({ city: 'Oslo', days })
    const sent = lastUserText(model, 0)
    expect(sent.startsWith('Plan a trip\n')).toBe(true)
    expect(sent).toContain('"city"')
  })

  it('returns a typed value from an as-const JSON Schema', async () => {
    const model = new ScriptedChatModel(['{"name":"Ann","age":30}'])
    const ann = await ChatClient.create(model).prompt('Who?').call().entity(person)
    const age: number = ann.age
    expect(age).toBe(30)
  })

  it('asks a model with native structured output for responseFormat json_schema instead', async () => {
    const model = Object.assign(new ScriptedChatModel(['{"name":"Ann","age":30}']), {
      supportsNativeStructuredOutput: true,
    })
    await ChatClient.create(model).prompt('Who?').call().entity(person)
    expect(model.prompts[0]!.options.responseFormat).toEqual({ type: 'json_schema', schema: person, name: 'output' })
    expect(lastUserText(model, 0)).toBe('Who?')
  })

  it('throws OutputParseError with the raw text when the answer is not JSON', async () => {
    const model = new ScriptedChatModel(['Sure! Ann is 30.'])
    const failure = ChatClient.create(model).prompt('Who?').call().entity(person)
    await expect(failure).rejects.toBeInstanceOf(OutputParseError)
    await expect(
      ChatClient.create(new ScriptedChatModel(['Sure! Ann is 30.']))
        .prompt('Who?')
        .call()
        .entity(person),
    ).rejects.toMatchObject({ text: 'Sure! Ann is 30.' })
  })

  it('retries with validate: true and keeps the user message clean for memory and traces', async () => {
    const collector = new TraceCollector()
    const model = new ScriptedChatModel(['{"name":"Ann"}', '{"name":"Ann","age":30}'])
    const client = ChatClient.builder(model)
      .defaultAdvisors(new ObserverAdvisor({ sink: collector }))
      .build()
    const ann = await client.prompt('Who?').call().entity(person, { validate: true })
    expect(ann).toEqual({ name: 'Ann', age: 30 })
    expect(model.prompts).toHaveLength(2)
    const traced = collector.ofType('model-request')[0]!.messages.at(-1) as UserMessage
    expect(traced.text).toBe('Who?')
  })

  it('adds the validation advisor for that call only', async () => {
    const model = new ScriptedChatModel(['{"name":"Ann"}', 'plain text'])
    const client = ChatClient.create(model)
    await expect(
      client.prompt('Who?').call().entity(person, { validate: true, maxRepeatAttempts: 0 }),
    ).rejects.toBeInstanceOf(OutputParseError)
    expect(await client.prompt('again').call().content()).toBe('plain text')
  })
})
