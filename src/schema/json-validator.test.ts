import { describe, expect, it } from 'vitest'
import { interpret } from './interpreting-validator'
import type { JsonSchema } from '../core'
import { fastValidator } from './fast-validator'
import { jsonValidator } from './json-validator'

const person: JsonSchema = {
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 2, maxLength: 5 },
    age: { type: 'integer', minimum: 0, maximum: 150 },
    email: { type: 'string', pattern: '^[^@]+@[^@]+$' },
    role: { enum: ['admin', 'user'] },
    kind: { const: 'person' },
    tags: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 2, uniqueItems: true },
    address: {
      type: 'object',
      properties: { city: { type: 'string' } },
      required: ['city'],
      additionalProperties: false,
    },
    score: { type: 'number', exclusiveMinimum: 0, multipleOf: 0.5 },
  },
  required: ['name', 'age'],
  additionalProperties: false,
}

const cases: Array<[string, unknown]> = [
  ['a valid value', { name: 'Ann', age: 30, tags: ['a'], address: { city: 'Oslo' }, role: 'user', kind: 'person' }],
  ['wrong types', { name: 3, age: 'thirty' }],
  ['a missing required property', { name: 'Ann' }],
  ['an extra property', { name: 'Ann', age: 3, nickname: 'A' }],
  ['number bounds', { name: 'Ann', age: 200, score: 0 }],
  ['a fraction for an integer', { name: 'Ann', age: 1.5 }],
  ['string bounds and pattern', { name: 'A', age: 1, email: 'nope' }],
  ['too long a string', { name: 'Annabel', age: 1 }],
  ['enum and const', { name: 'Ann', age: 1, role: 'root', kind: 'robot' }],
  ['array bounds and duplicates', { name: 'Ann', age: 1, tags: ['a', 'a', 'b'] }],
  ['an empty array', { name: 'Ann', age: 1, tags: [] }],
  ['a wrong item type', { name: 'Ann', age: 1, tags: [1] }],
  ['nested objects', { name: 'Ann', age: 1, address: { town: 'Oslo' } }],
  ['a multipleOf violation', { name: 'Ann', age: 1, score: 0.3 }],
  ['not an object at all', 'Ann'],
]

describe('JSON Schema validation', () => {
  it('names the path and the rule, as ajv words it', async () => {
    const validate = await jsonValidator(person)
    expect(validate({ name: 'Ann', age: 'x' })).toEqual([{ path: '/age', message: 'must be integer' }])
  })

  it('accepts a valid value', async () => {
    expect((await jsonValidator(person))(cases[0]![1])).toEqual([])
  })

  for (const [name, value] of cases) {
    it(`the no-code-generation validator agrees with ajv on ${name}`, async () => {
      const ajv = (await jsonValidator(person))(value)
      const interpreted = interpret(person, '2020-12')(value)
      expect(sorted(interpreted)).toEqual(sorted(ajv))
    })
  }

  it('validates draft-07 schemas', async () => {
    const draft7: JsonSchema = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { list: { type: 'array', items: [{ type: 'string' }, { type: 'number' }] } },
    }
    expect((await jsonValidator(draft7))({ list: ['a', 1] })).toEqual([])
    expect((await jsonValidator(draft7))({ list: [1, 'a'] })).toEqual([
      { path: '/list/0', message: 'must be string' },
      { path: '/list/1', message: 'must be number' },
    ])
    expect(sorted(interpret(draft7, 'draft-07')({ list: [1, 'a'] }))).toEqual([
      { path: '/list/0', message: 'must be string' },
      { path: '/list/1', message: 'must be number' },
    ])
  })
})

function sorted(issues: Array<{ path: string; message: string }>) {
  return [...issues].sort((a, b) => (a.path + a.message).localeCompare(b.path + b.message))
}

describe('a property an object only inherits', () => {
  const schema: JsonSchema = {
    type: 'object',
    properties: { constructor: { type: 'string' }, toString: { type: 'string' } },
    required: ['constructor'],
  }
  const missing = [{ path: '', message: "must have required property 'constructor'" }]

  it.each([
    ['the fast validator', () => fastValidator(schema)!],
    ['ajv', () => jsonValidator(schema)],
    ['the interpreter', () => interpret(schema, '2020-12')],
  ])('is not there for %s', async (_, make) => {
    const validate = await make()
    expect(validate({})).toEqual(missing)
    expect(validate(JSON.parse('{"toString":"a"}'))).toEqual(missing)
    expect(validate({ constructor: 'made' })).toEqual([])
  })
})
