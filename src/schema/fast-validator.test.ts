import Ajv from 'ajv'
import Ajv2020 from 'ajv/dist/2020.js'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { JsonSchema } from '../core'
import { fastValidator } from './fast-validator'
import { jsonValidator } from './json-validator'
import { randomSchema } from './testing/random-schemas'
import { anyValue, seededRandom, valueFor } from './testing/random-values'
import { CORPUS, DRAFT_07 } from './testing/schema-corpus'

const RANDOM_VALUES = 300

describe('the fast validator agrees with ajv', () => {
  for (const [index, { name, schema, values: picked }] of CORPUS.entries()) {
    it(`on ${name}`, async () => {
      const fast = fastValidator(schema)
      expect(fast, 'the fast validator takes the schema').toBeDefined()
      const ajv = await jsonValidator(schema)
      const random = seededRandom(index * 7919 + 1)
      const values = [
        ...picked,
        ...Array.from({ length: RANDOM_VALUES }, (_, i) => valueFor(schema, schema, random, i % 2 ? 0.1 : 0)),
        ...Array.from({ length: 30 }, () => anyValue(random)),
      ]
      const results = values.map((value) => ({ value, fast: fast!(value), ajv: ajvOrThrown(ajv, value) }))
      const disagreements = results.filter(
        (result) => result.ajv !== THROWN && JSON.stringify(result.fast) !== JSON.stringify(result.ajv),
      )
      expect(disagreements.slice(0, 3)).toEqual([])
      // The values reach both outcomes, or the comparison says little.
      const outcomes = new Set(
        results.filter((result) => result.ajv !== THROWN).map((result) => result.fast.length > 0),
      )
      if (Object.keys(schema).some((key) => !/^(\$schema|title|x-y)$/.test(key))) expect(outcomes.size).toBe(2)
    })
  }
})

describe('the fast validator on random schemas', () => {
  it('takes none that ajv rejects, and agrees with ajv on the others', async () => {
    const random = seededRandom(2024)
    const counts = { taken: 0, rejectedByAjv: 0, leftToAjv: 0 }
    const disagreements: unknown[] = []
    for (let i = 0; i < 150; i++) {
      const schema = randomSchema(random)
      const fast = fastValidator(schema)
      const ajv = await jsonValidator(schema).catch(() => undefined)
      if (!ajv) {
        counts.rejectedByAjv++
        if (fast) disagreements.push({ schema, fast: 'taken', ajv: 'rejected' })
        continue
      }
      if (!fast) {
        counts.leftToAjv++
        continue
      }
      counts.taken++
      for (let j = 0; j < 20; j++) {
        const value = valueFor(schema, schema, random, j % 2 ? 0.15 : 0)
        const expected = ajvOrThrown(ajv, value)
        const found = fast(value)
        if (expected !== THROWN && JSON.stringify(found) !== JSON.stringify(expected)) {
          disagreements.push({ schema, value, fast: found, ajv: expected })
        }
      }
    }
    expect(disagreements.slice(0, 3)).toEqual([])
    // Most random schemas are taken; those left to ajv are malformed in ways ajv lets pass.
    expect(counts.taken).toBeGreaterThan(75)
    expect(counts.rejectedByAjv).toBeGreaterThan(20)
  }, 30_000)
})

describe('the fast validator', () => {
  it('words issues as ajv does, with JSON pointers to the value', () => {
    const validate = fastValidator({
      type: 'object',
      properties: { value: { type: 'string' }, 'a/b~c': { type: 'array', items: { enum: ['x', 1] } } },
      required: ['value', 'id'],
      additionalProperties: false,
    })!
    expect(validate({ value: 1, 'a/b~c': ['x', 2], extra: true })).toEqual([
      { path: '', message: "must have required property 'id'" },
      { path: '', message: "must NOT have additional properties: 'extra'" },
      { path: '/value', message: 'must be string' },
      { path: '/a~1b~0c/1', message: 'must be equal to one of the allowed values: "x", 1' },
    ])
  })

  it('counts string lengths in code points and compiles patterns with the u flag', () => {
    const validate = fastValidator({ type: 'string', maxLength: 2, pattern: '^\\p{Emoji}+$' })!
    expect(validate('😀😀')).toEqual([])
    expect(validate('😀😀😀')).toEqual([{ path: '', message: 'must NOT have more than 2 characters' }])
    expect(validate('ab')).toEqual([{ path: '', message: 'must match pattern "^\\p{Emoji}+$"' }])
  })

  it("names the null that nullable adds to a type list, as ajv's message does", () => {
    expect(fastValidator({ type: ['boolean', 'object'], nullable: true })!(1.5)).toEqual([
      { path: '', message: 'must be boolean,object,null' },
    ])
    expect(fastValidator({ type: 'string', nullable: true })!(1.5)).toEqual([{ path: '', message: 'must be string' }])
  })

  it('gives the same empty list for every valid value', () => {
    const validate = fastValidator({ type: 'object', properties: { a: { type: 'integer' } } })!
    expect(validate({ a: 1 })).toBe(validate({}))
    expect(validate({ a: 1 })).toHaveLength(0)
  })

  it('validates recursive schemas to any depth the value has', () => {
    const validate = fastValidator(CORPUS.find(({ name }) => name.startsWith('a recursive tree'))!.schema)!
    let tree: unknown = { name: 'leaf' }
    for (let depth = 0; depth < 200; depth++) tree = { name: `n${depth}`, children: [tree] }
    expect(validate(tree)).toEqual([])
    let broken: unknown = { name: '' }
    for (let depth = 0; depth < 3; depth++) broken = { name: 'n', children: [broken] }
    expect(validate(broken)).toEqual([
      { path: '/children/0/children/0/children/0/name', message: 'must NOT have fewer than 1 characters' },
    ])
  })

  it('ignores keywords that ajv ignores', async () => {
    const schema: JsonSchema = {
      type: 'object',
      'x-foo': { bar: [1, { baz: 2 }] },
      discriminator: { propertyName: 'kind' },
      example: { kind: 'a' },
      errorMessage: 'wrong',
      properties: { kind: { type: 'string', markdownDescription: 'The *kind*' } },
    }
    const validate = fastValidator(schema)!
    expect(validate).toBeDefined()
    for (const value of [{ kind: 'a' }, { kind: 1 }, 'a'])
      expect(validate(value)).toEqual((await jsonValidator(schema))(value))
  })

  it('never generates code, so it works under a CSP without unsafe-eval', () => {
    const refuse = () => {
      throw new EvalError('Refused to evaluate a string as JavaScript')
    }
    vi.stubGlobal('Function', refuse)
    vi.stubGlobal('eval', refuse)
    const random = seededRandom(17)
    for (const { schema } of CORPUS) {
      const validate = fastValidator(schema)!
      for (let i = 0; i < 20; i++) validate(valueFor(schema, schema, random, 0.1))
    }
    vi.unstubAllGlobals()
  })
})

describe('the fast validator leaves to ajv', () => {
  afterEach(() => vi.unstubAllGlobals())

  // What the fast validator implements; every other keyword ajv knows sends a schema to ajv.
  const implemented = new Set(
    [
      '$ref const enum not anyOf oneOf allOf type nullable',
      'maximum minimum exclusiveMaximum exclusiveMinimum multipleOf format maxLength minLength pattern',
      'maxItems minItems items prefixItems uniqueItems maxProperties minProperties required additionalProperties properties',
      '$schema $id $defs definitions $comment title description default deprecated readOnly writeOnly examples',
      'contentMediaType contentEncoding',
    ]
      .join(' ')
      .split(' '),
  )
  const candidates: unknown[] = [{}, { a: {} }, [], [{}], ['a'], true, false, 1, 'a', '#']

  for (const [draft, ajv] of [
    ['draft-07', new Ajv({ strict: false })],
    ['2020-12', new Ajv2020({ strict: false })],
  ] as const) {
    const keywords = Object.keys(ajv.RULES.keywords).filter((keyword) => !implemented.has(keyword))
    it(`every other keyword ajv ${draft} knows: ${keywords.join(' ')}`, () => {
      const taken = keywords.flatMap((keyword) =>
        candidates
          .map((value) => ({ type: 'object', [keyword]: value, ...(draft === 'draft-07' && { $schema: DRAFT_07 }) }))
          .filter((schema) => fastValidator(schema)),
      )
      expect(taken).toEqual([])
    })
  }

  const leftToAjv: Array<[string, JsonSchema]> = [
    ['if, then and else', { if: { type: 'string' }, then: { minLength: 1 }, else: { type: 'number' } }],
    ['dependentRequired', { dependentRequired: { a: ['b'] } }],
    ['patternProperties', { patternProperties: { '^x': { type: 'string' } } }],
    ['propertyNames (as zod writes records)', { type: 'object', propertyNames: { type: 'string' } }],
    ['contains', { contains: { const: 1 }, minContains: 2 }],
    ['unevaluatedProperties', { allOf: [{ properties: { a: true } }], unevaluatedProperties: false }],
    ['$dynamicRef', { $dynamicAnchor: 'node', properties: { next: { $dynamicRef: '#node' } } }],
    ['a ref into properties', { properties: { a: { type: 'string' } }, items: { $ref: '#/properties/a' } }],
    ['a ref to another document', { $ref: 'https://example.com/schema.json' }],
    ['an $anchor', { $defs: { a: { $anchor: 'a' } }, $ref: '#a' }],
    ['an $id below the root', { properties: { a: { $id: 'a.json', type: 'string' } } }],
    ['an $id in an unknown keyword', { 'x-meta': { $id: 'meta.json' } }],
    ['additionalItems', { $schema: DRAFT_07, items: [{ type: 'string' }], additionalItems: false }],
    ['prefixItems in draft-07', { $schema: DRAFT_07, prefixItems: [{ type: 'string' }] }],
    [
      'refs that loop on one value',
      { $ref: '#/$defs/a', $defs: { a: { $ref: '#/$defs/b' }, b: { allOf: [{ $ref: '#/$defs/a' }] } } },
    ],
    ['the root referring to itself on one value', { $ref: '#', properties: { a: { type: 'string' } } }],
    ['an async schema', { $async: true, type: 'object' }],
  ]
  for (const [name, schema] of leftToAjv) {
    it(`a schema with ${name}`, () => expect(fastValidator(schema)).toBeUndefined())
  }

  const malformed: Array<[string, JsonSchema]> = [
    ['a pattern that is no regex', { pattern: '(' }],
    ['a pattern that is no regex with the u flag', { pattern: '\\-' }],
    ['required that is no array', { required: 'a' }],
    ['required with a number', { required: [1] }],
    ['required with a name twice', { required: ['a', 'a'] }],
    ['a negative minLength', { minLength: -1 }],
    ['a fractional maxItems', { maxItems: 1.5 }],
    ['a maximum that is a string', { maximum: '5' }],
    ['a boolean exclusiveMinimum (draft-04)', { $schema: DRAFT_07, minimum: 0, exclusiveMinimum: true }],
    ['multipleOf 0', { multipleOf: 0 }],
    ['an unknown type', { type: 'text' }],
    ['an empty type list', { type: [] }],
    ['a type named twice', { type: ['string', 'string'] }],
    ['an empty enum', { enum: [] }],
    ['an enum with a value twice in draft-07', { $schema: DRAFT_07, enum: ['a', 'a'] }],
    ['an empty anyOf', { anyOf: [] }],
    ['properties that are no schemas', { properties: { a: 1 } }],
    ['a schema that is an array', { properties: { a: [] } }],
    ['items as a list in 2020-12', { items: [{ type: 'string' }] }],
    ['a ref to a missing definition', { $ref: '#/$defs/missing', $defs: {} }],
    ['a title that is no string', { title: 5 }],
    ['nullable without a type', { nullable: true }],
    ['nullable false with type null', { type: 'null', nullable: false }],
    ['the draft-04 keyword id', { id: 'x' }],
    ['the draft-04 meta-schema', { $schema: 'http://json-schema.org/draft-04/schema#' }],
    ['the 2019-09 meta-schema', { $schema: 'https://json-schema.org/draft/2019-09/schema' }],
    ['an $id with a fragment', { $id: 'https://example.com/a#b' }],
    ['a property named __proto__', JSON.parse('{"properties": {"__proto__": {"type": "string"}}}') as JsonSchema],
  ]
  for (const [name, schema] of malformed) {
    it(`a malformed schema, which ajv rejects: ${name}`, async () => {
      expect(fastValidator(schema)).toBeUndefined()
      if (name !== 'a property named __proto__') await expect(jsonValidator(schema)).rejects.toThrow()
    })
  }
})

const THROWN = 'ajv threw'

/** ajv's issues; its deep equality calls `toString` and `valueOf` of objects that have such keys, and throws. */
function ajvOrThrown(ajv: (value: unknown) => unknown, value: unknown): unknown {
  try {
    return ajv(value)
  } catch {
    return THROWN
  }
}
