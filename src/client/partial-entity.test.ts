import { toStandardJsonSchema } from '@valibot/to-json-schema'
import { type } from 'arktype'
import * as v from 'valibot'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import type { StreamPart } from '../core'
import { collect } from '../core/testing/collect'
import { ScriptedChatModel, type ScriptStep } from '../models'
import { MAX_JSON_DEPTH, OutputParseError, type SchemaLike } from '../schema'
import { defineTool } from '../tools'
import { ChatClient } from './client'

const tripJson = {
  type: 'object',
  properties: {
    destination: { type: 'string' },
    days: {
      type: 'array',
      items: {
        type: 'object',
        properties: { day: { type: 'integer' }, title: { type: 'string' } },
        required: ['day', 'title'],
      },
    },
  },
  required: ['destination', 'days'],
} as const
const SCHEMAS: Array<[string, SchemaLike]> = [
  ['JSON Schema', tripJson],
  ['zod', z.object({ destination: z.string(), days: z.array(z.object({ day: z.number().int(), title: z.string() })) })],
  [
    'Valibot',
    toStandardJsonSchema(
      v.object({
        destination: v.string(),
        days: v.array(v.object({ day: v.pipe(v.number(), v.integer()), title: v.string() })),
      }),
    ),
  ],
  ['ArkType', type({ destination: 'string', days: type({ day: 'number.integer', title: 'string' }).array() })],
]
const TRIP = {
  destination: 'Lisbon',
  days: [
    { day: 1, title: 'Alfama "old town"' },
    { day: 2, title: 'Belém' },
  ],
}
const ANSWER = '```json\n' + JSON.stringify(TRIP, null, 2) + '\n```'
const everyByte = (text: string) => [...text]

function client(script: ScriptStep[]) {
  const model = new ScriptedChatModel(script)
  const lookup = defineTool({ name: 'lookup', description: 'd', inputSchema: { type: 'object' }, execute: () => 'ok' })
  return { model, client: ChatClient.builder(model).defaultTools(lookup).build() }
}

/** Every partial is contained in the final value (complete leaves only), and each is new. */
function expectGrowing(partials: unknown[], final: unknown) {
  const within = (partial: unknown, whole: unknown): boolean => {
    if (partial === null || typeof partial !== 'object') return Object.is(partial, whole)
    if (whole === null || typeof whole !== 'object') return false
    return Object.entries(partial).every(([key, value]) => within(value, (whole as Record<string, unknown>)[key]))
  }
  for (const partial of partials) expect(within(partial, final)).toBe(true)
  expect(new Set(partials).size).toBe(partials.length)
  expect(partials.at(-1)).toEqual(final)
}

describe('partialEntity', () => {
  describe.each(SCHEMAS)('with a %s schema', (_, schema) => {
    it('yields growing partial values, chunked at every byte, and the validated entity', async () => {
      const { client: chat } = client([{ text: ANSWER, chunks: everyByte(ANSWER) }])
      const stream = chat.prompt('Plan Lisbon').stream().partialEntity(schema)
      const partials = await collect(stream)
      expectGrowing(partials, TRIP)
      expect(partials).toContainEqual({ destination: 'Lisbon', days: [{ day: 1 }] })
      expect(partials).not.toContainEqual({ destination: 'Lis' })
      await expect(stream.entity).resolves.toEqual(TRIP)
    })

    it('reads a whole answer in one chunk', async () => {
      const { client: chat } = client([{ text: JSON.stringify(TRIP), chunks: [JSON.stringify(TRIP)] }])
      const stream = chat.prompt('Plan Lisbon').stream().partialEntity(schema)
      expect(await collect(stream)).toEqual([TRIP])
      await expect(stream.entity).resolves.toEqual(TRIP)
    })

    it('reads the last model call after tool rounds with prose', async () => {
      const { client: chat } = client([
        { text: 'Let me look that up {', toolCalls: [{ name: 'lookup' }] },
        { text: '{"days": [', toolCalls: [{ name: 'lookup' }] },
        { text: ANSWER, chunks: ANSWER.match(/[^]{1,5}/g)! },
      ])
      const stream = chat.prompt('Plan Lisbon').stream().partialEntity(schema)
      const partials = await collect(stream)
      expect(partials.at(-1)).toEqual(TRIP)
      await expect(stream.entity).resolves.toEqual(TRIP)
    })

    it('retries an invalid answer with the errors when validating, and starts the partials over', async () => {
      const bad = JSON.stringify({ destination: 'Lisbon', days: [{ day: 'one', title: 'x' }] })
      const { model, client: chat } = client([
        { text: bad, chunks: bad.match(/[^]{1,3}/g)! },
        { text: ANSWER, chunks: everyByte(ANSWER) },
      ])
      const stream = chat.prompt('Plan Lisbon').stream().partialEntity(schema, { validate: true })
      const partials = await collect(stream)
      await expect(stream.entity).resolves.toEqual(TRIP)
      expect(model.prompts).toHaveLength(2)
      const restart = partials.findIndex((partial, i) => i > 0 && Object.keys(partial as object).length === 0)
      expect(partials.slice(0, restart)).toContainEqual({ destination: 'Lisbon' })
      expectGrowing(partials.slice(restart), TRIP)
    })
  })

  it('yields each complete, valid item of an array answer once', async () => {
    const days = [{ day: 1, title: 'a' }, { day: 'two' }, { day: 3, title: 'c' }]
    const text = JSON.stringify(days)
    const { client: chat } = client([{ text, chunks: everyByte(text) }])
    const schema = z.array(z.object({ day: z.number(), title: z.string() })).min(3)
    const stream = chat.prompt('days').stream().partialEntity(schema)
    const elements: unknown[] = []
    const read = async () => {
      for await (const element of stream.elements()) elements.push(element)
    }
    await expect(read()).rejects.toThrow(OutputParseError)
    expect(elements).toEqual([days[0], days[2]])
  })

  it('keeps the copies of a wide array linear in the text: fewer values, each one whole and unchanged later', async () => {
    const days = Array.from({ length: 3000 }, (_, i) => ({ day: i + 1, title: `Day ${i + 1}` }))
    const text = JSON.stringify({ destination: 'Lisbon', days })
    const { client: chat } = client([{ text, chunks: text.match(/[^]{1,4}/g)! }])
    const stream = chat.prompt('q').stream().partialEntity(tripJson)
    const partials: unknown[] = []
    const texts: string[] = []
    for await (const partial of stream) {
      partials.push(partial)
      texts.push(JSON.stringify(partial))
    }
    expectGrowing(partials, { destination: 'Lisbon', days })
    // Every value is a snapshot: what came later changed none of them.
    expect(partials.map((partial) => JSON.stringify(partial))).toEqual(texts)
    // A value for every change would copy the days array about 9 000 times (13 million items).
    expect(partials.length).toBeLessThan(text.length / 4 / 4)
    expect(partials).toContainEqual({ destination: 'Lisbon', days: [] })
  })

  it('shows strings as they are written with partialStrings', async () => {
    const { client: chat } = client([{ text: ANSWER, chunks: everyByte(ANSWER) }])
    const partials = await collect(chat.prompt('q').stream().partialEntity(tripJson, { partialStrings: true }))
    expect(partials).toContainEqual({ destination: 'Lis' })
  })

  it('marks where a validation attempt restarts in parts()', async () => {
    const { client: chat } = client(['{"destination": 1}', ANSWER])
    const { StructuredOutputValidationAdvisor } = await import('../advisors')
    const validation = new StructuredOutputValidationAdvisor({ outputSchema: tripJson })
    const parts: StreamPart[] = await collect(chat.prompt('q').advisors(validation).stream().parts())
    const restart = parts.findIndex((part) => part.type === 'attempt-start')
    expect(parts[restart]).toMatchObject({
      type: 'attempt-start',
      attempt: 2,
      errors: expect.arrayContaining(['/destination: must be string']) as unknown,
    })
    expect(parts.slice(0, restart).some((part) => part.type === 'text-delta')).toBe(true)
    expect(parts.slice(restart).some((part) => part.type === 'text-delta')).toBe(true)
  })

  it.each([
    ['never closes the JSON', '{"destination": "Lisbon", "days": ['],
    ['writes two objects', '{"destination": "a", "days": []} {"destination": "b", "days": []}'],
    ['switches to prose', '{"destination": "Lisbon", "days": []} Enjoy your trip!'],
    ['nests past the limit', '{"destination": "x", "days": ' + '['.repeat(MAX_JSON_DEPTH + 1)],
  ])('ends with an OutputParseError when the model %s', async (_, text) => {
    const { client: chat } = client([{ text, chunks: text.match(/[^]{1,4}/g)! }])
    const stream = chat.prompt('q').stream().partialEntity(tripJson)
    await expect(collect(stream)).rejects.toThrow(OutputParseError)
    const error = (await stream.entity.catch((e: unknown) => e)) as OutputParseError
    expect(error.text).toBe(text)
  })

  it('retries a bad answer through the advisor rather than failing', async () => {
    const { client: chat } = client(['{"destination": "Lisbon", "days": [] } and more', ANSWER])
    const stream = chat.prompt('q').stream().partialEntity(tripJson, { validate: true })
    await expect(stream.entity).resolves.toEqual(TRIP)
  })

  it('settles entity with an AbortError when aborted mid-stream', async () => {
    const controller = new AbortController()
    const { client: chat } = client([{ text: ANSWER, chunks: everyByte(ANSWER), delayMs: 1 }])
    const stream = chat.prompt('q').signal(controller.signal).stream().partialEntity(tripJson)
    const read = async () => {
      for await (const partial of stream) if ((partial.days?.length ?? 0) > 0) controller.abort()
    }
    await expect(read()).rejects.toMatchObject({ name: 'AbortError' })
    await expect(stream.entity).rejects.toMatchObject({ name: 'AbortError' })
  })

  it('types partials as deep partials and the entity as the schema type', async () => {
    const { client: chat } = client([ANSWER])
    const stream = chat.prompt('q').stream().partialEntity(tripJson)
    for await (const partial of stream) {
      const title: string | undefined = partial.days?.[0]?.title
      expect(title === undefined || typeof title === 'string').toBe(true)
    }
    const entity: { destination: string; days: Array<{ day: number; title: string }> } = await stream.entity
    expect(entity.days).toHaveLength(2)
  })
})

describe('partialEntity asks for the structure', () => {
  it('sends the format instructions to a model without native structured output', async () => {
    const { model, client: chat } = client([ANSWER])
    await chat.prompt('Plan Lisbon').stream().partialEntity(tripJson).entity
    const user = model.prompts[0]!.messages.findLast((message) => message.role === 'user')
    expect(user).toMatchObject({ text: expect.stringContaining('"destination"') as unknown })
  })
})

describe('partialEntity readers', () => {
  it('reads an answer after a reasoning block, in a fence, chunked at every byte', async () => {
    const text = '<think>The user wants {"destination": "Porto"}… no, Lisbon.</think>\n' + ANSWER
    const { client: chat } = client([{ text, chunks: everyByte(text) }])
    const stream = chat.prompt('q').stream().partialEntity(tripJson)
    expectGrowing(await collect(stream), TRIP)
    await expect(stream.entity).resolves.toEqual(TRIP)
  })

  it('stops the request when the reader leaves early and entity was not asked for', async () => {
    const controller = new AbortController()
    const { model, client: chat } = client([{ text: ANSWER, chunks: everyByte(ANSWER), delayMs: 1 }])
    const stream = chat.prompt('q').signal(controller.signal).stream().partialEntity(tripJson)
    for await (const partial of stream) if (partial.destination) break
    expect(model.prompts).toHaveLength(1)
    await expect(stream.entity).rejects.toMatchObject({ name: 'AbortError' })
  })

  it('keeps reading for entity when the reader leaves early after entity was asked for', async () => {
    const { client: chat } = client([{ text: ANSWER, chunks: everyByte(ANSWER) }])
    const stream = chat.prompt('q').stream().partialEntity(tripJson)
    const entity = stream.entity
    for await (const partial of stream) if (partial.destination) break
    await expect(entity).resolves.toEqual(TRIP)
  })

  it('gives entity alone, without reading partials', async () => {
    const { client: chat } = client([{ text: ANSWER, chunks: everyByte(ANSWER) }])
    await expect(chat.prompt('q').stream().partialEntity(tripJson).entity).resolves.toEqual(TRIP)
  })

  it('answers next() calls made before the last settled, in order, each with a newer value', async () => {
    const { client: chat } = client([{ text: ANSWER, chunks: everyByte(ANSWER) }])
    const stream = chat.prompt('q').stream().partialEntity(tripJson)
    const iterator = stream[Symbol.asyncIterator]()
    const results = await Promise.all([iterator.next(), iterator.next(), iterator.next()])
    expect(results.map((result) => result.done)).toEqual([false, false, false])
    const shown = results.map((result) => JSON.stringify(result.value))
    expect(new Set(shown).size).toBe(3)
    expect(shown.map((text) => text.length)).toEqual([...shown.map((text) => text.length)].sort((a, b) => a - b))
    await expect(stream.entity).resolves.toEqual(TRIP)
  })

  it('gives the same entity from the parser as from the whole text, and refuses what the schema refuses', async () => {
    const bad = JSON.stringify({ destination: 'Lisbon', days: [{ day: 'one', title: 'x' }] })
    const { client: chat } = client([{ text: bad, chunks: [...bad] }])
    const stream = chat.prompt('q').stream().partialEntity(tripJson)
    await collect(stream).catch(() => {})
    const failure = await stream.entity.catch((error: unknown) => error)
    expect(failure).toBeInstanceOf(OutputParseError)
    expect((failure as OutputParseError).text).toBe(bad)
  })

  it('starts the items over when a validation retry begins', async () => {
    const schema = z.array(z.object({ day: z.number() })).min(2)
    const { client: chat } = client(['[{"day": 1}]', '[{"day": 1}, {"day": 2}]'])
    const stream = chat.prompt('q').stream().partialEntity(schema, { validate: true })
    expect(await collect(stream.elements())).toEqual([{ day: 1 }, { day: 1 }, { day: 2 }])
    await expect(stream.entity).resolves.toEqual([{ day: 1 }, { day: 2 }])
  })
})
