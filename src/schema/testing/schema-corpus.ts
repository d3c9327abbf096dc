// Schemas for differential tests of the fast validator against ajv: tool-like schemas, what zod,
// Valibot and ArkType write, and the corners of each keyword the fast validator takes.
import { toJsonSchema } from '@valibot/to-json-schema'
import { type } from 'arktype'
import * as v from 'valibot'
import { z } from 'zod'
import type { JsonSchema } from '../../core'

/** A schema, and the drafts it is valid in: `both` runs it once as 2020-12 and once as draft-07. */
export interface CorpusSchema {
  name: string
  schema: JsonSchema
  drafts: 'both' | '2020-12' | 'draft-07'
  /** Hand-picked values: ones that pass where random ones rarely do (patterns), and corner cases. */
  values?: unknown[]
}

export const DRAFT_07 = 'http://json-schema.org/draft-07/schema#'

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

const tree: JsonSchema = {
  $ref: '#/$defs/node',
  $defs: {
    node: {
      type: 'object',
      properties: {
        name: { type: 'string', minLength: 1 },
        children: { type: 'array', items: { $ref: '#/$defs/node' }, maxItems: 3 },
      },
      required: ['name'],
      additionalProperties: false,
    },
  },
}

const handWritten: CorpusSchema[] = [
  { name: 'a person with every common keyword', schema: person, drafts: 'both' },
  {
    name: 'a weather tool',
    drafts: 'both',
    schema: {
      type: 'object',
      description: 'Current weather for a city',
      properties: {
        city: { type: 'string', description: 'The city name', minLength: 1 },
        unit: { type: 'string', enum: ['celsius', 'fahrenheit'], default: 'celsius' },
        days: { type: 'integer', minimum: 1, maximum: 7 },
      },
      required: ['city'],
      additionalProperties: false,
    },
  },
  {
    name: 'an order with nested arrays of objects',
    drafts: 'both',
    schema: {
      type: 'object',
      properties: {
        lines: {
          type: 'array',
          minItems: 1,
          maxItems: 3,
          items: {
            type: 'object',
            properties: { sku: { type: 'string', pattern: '^[A-Z]{2}-\\d+$' }, qty: { type: 'integer', minimum: 1 } },
            required: ['sku', 'qty'],
            additionalProperties: false,
          },
        },
        note: { type: ['string', 'null'], maxLength: 3 },
      },
      required: ['lines'],
    },
    values: [
      { lines: [{ sku: 'AB-12', qty: 2 }], note: null },
      {
        lines: [
          { sku: 'XY-1', qty: 1 },
          { sku: 'CD-99', qty: 5 },
        ],
        note: 'ok',
      },
    ],
  },
  {
    name: 'unions of types and of objects',
    drafts: 'both',
    schema: {
      type: 'object',
      properties: {
        id: {
          anyOf: [
            { type: 'string', minLength: 2 },
            { type: 'integer', minimum: 0 },
          ],
        },
        shape: {
          oneOf: [
            {
              type: 'object',
              properties: { kind: { const: 'circle' }, r: { type: 'number' } },
              required: ['kind', 'r'],
            },
            { type: 'object', properties: { kind: { const: 'square' }, a: { type: 'number' } }, required: ['kind'] },
          ],
        },
        both: { allOf: [{ type: 'number', minimum: 0 }, { multipleOf: 3 }, { maximum: 100 }] },
        neither: { not: { type: ['string', 'boolean'] } },
      },
    },
  },
  {
    name: 'oneOf branches that overlap',
    drafts: 'both',
    schema: {
      oneOf: [{ type: 'number', minimum: 10 }, { minimum: 0, maximum: 20 }, { type: 'string' }, { type: 'boolean' }],
    },
  },
  {
    name: 'type lists and nullable',
    drafts: 'both',
    schema: {
      type: 'object',
      properties: {
        a: { type: ['integer', 'boolean'], minimum: 2 },
        b: { type: 'string', nullable: true, minLength: 2 },
        c: { type: ['array', 'object'], minItems: 1, required: ['x'] },
        d: { type: 'null' },
        e: { type: ['number', 'string', 'null'], enum: [1, 'a', null, 2.5] },
      },
    },
  },
  {
    name: 'enums and consts of any JSON',
    drafts: 'both',
    schema: {
      type: 'object',
      properties: {
        mixed: { enum: [1, 'a', null, true, { x: 1 }, [1, 2]] },
        object: { const: { a: [1, { b: null }] } },
        nothing: { const: null },
        zero: { const: 0 },
      },
    },
  },
  {
    name: 'a type with keywords of its own and enum',
    drafts: 'both',
    schema: {
      type: 'object',
      properties: {
        email: { type: 'string', format: 'email', enum: ['a', 'b@c'] },
        plain: { type: 'string', enum: ['a'] },
        count: { type: 'integer', minimum: 0, enum: [1, 2, 1.5] },
        float: { type: 'number', format: 'float', const: 1 },
        list: { type: 'array', enum: [[1], ['a']], uniqueItems: false },
        map: { type: 'object', const: { a: 1 }, properties: {} },
      },
    },
  },
  {
    name: 'unique items of scalar, mixed and object types',
    drafts: 'both',
    schema: {
      type: 'object',
      properties: {
        words: { type: 'array', items: { type: 'string' }, uniqueItems: true },
        numbers: { type: 'array', items: { type: ['number', 'null'] }, uniqueItems: true },
        integers: { type: 'array', items: { type: 'integer' }, uniqueItems: true },
        anything: { type: 'array', uniqueItems: true },
        objects: { type: 'array', items: { type: 'object' }, uniqueItems: true },
        nullable: { type: 'array', items: { type: 'string', nullable: true }, uniqueItems: true },
      },
    },
    values: [
      { words: ['__proto__', '__proto__'] },
      { words: ['a', 1, 1], numbers: [0, -0] },
      { numbers: [1, null, '1', null], integers: [1, 1.5, 1.5] },
      { nullable: ['a', null, null], anything: [{ a: [1] }, { a: [1] }] },
      {
        objects: [
          { a: 1, b: 2 },
          { b: 2, a: 1 },
        ],
        anything: ['1', 1, true, 'true', null, 'null'],
      },
    ],
  },
  {
    name: 'boolean schemas',
    drafts: 'both',
    schema: {
      type: 'object',
      properties: {
        never: false,
        always: true,
        list: { type: 'array', items: false },
        nope: { not: true },
        yes: { not: false },
        either: { anyOf: [false, { type: 'string' }] },
        empty: { not: {} },
        open: { type: 'object', additionalProperties: true },
        numbers: { type: 'object', additionalProperties: { type: 'number' }, properties: { name: { type: 'string' } } },
      },
      additionalProperties: false,
    },
  },
  {
    name: 'shared definitions in $defs',
    drafts: 'both',
    schema: {
      type: 'object',
      properties: { home: { $ref: '#/$defs/address' }, work: { $ref: '#/$defs/address' } },
      required: ['home'],
      $defs: {
        address: {
          type: 'object',
          properties: { city: { type: 'string' }, zip: { type: 'string', pattern: '^\\d{5}$' } },
          required: ['city'],
        },
      },
    },
  },
  {
    name: 'definitions with a ref that has siblings',
    drafts: 'both',
    schema: {
      $ref: '#/definitions/base',
      type: 'object',
      required: ['extra'],
      properties: { extra: { $ref: '#/definitions/positive' }, pinned: { $ref: '#/definitions/positive', const: 5 } },
      definitions: {
        base: { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] },
        positive: { type: 'number', exclusiveMinimum: 0 },
        never: false,
      },
    },
    values: [
      { id: 1, extra: 2 },
      { id: 3, extra: 0.5, more: true, pinned: 5 },
      { id: 3, extra: 1, pinned: -1 },
    ],
  },
  { name: 'a recursive tree', drafts: 'both', schema: tree },
  {
    name: 'recursion through the root',
    drafts: 'both',
    schema: {
      type: 'object',
      properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#' } } },
      required: ['name'],
      additionalProperties: false,
    },
  },
  {
    name: 'mutually recursive definitions',
    drafts: 'both',
    schema: {
      $ref: '#/$defs/expr',
      $defs: {
        expr: { anyOf: [{ type: 'number' }, { $ref: '#/$defs/sum' }] },
        sum: {
          type: 'object',
          properties: { plus: { type: 'array', items: { $ref: '#/$defs/expr' }, minItems: 2 } },
          required: ['plus'],
          additionalProperties: false,
        },
      },
    },
  },
  {
    name: 'tuples with prefixItems',
    drafts: '2020-12',
    schema: {
      type: 'object',
      properties: {
        closed: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], items: false },
        open: { type: 'array', prefixItems: [{ type: 'string' }], items: { type: 'boolean' } },
        loose: { type: 'array', prefixItems: [{ const: 1 }, true] },
        unique: { prefixItems: [{ type: 'string' }], items: { type: 'string' }, uniqueItems: true },
      },
    },
  },
  {
    name: 'tuples with draft-07 array items',
    drafts: 'draft-07',
    schema: {
      $schema: DRAFT_07,
      type: 'object',
      properties: {
        pair: { type: 'array', items: [{ type: 'string' }, { type: 'number' }], minItems: 2 },
        unique: { items: [{ type: 'string' }], uniqueItems: true },
      },
    },
  },
  {
    name: 'number limits and multiples',
    drafts: 'both',
    schema: {
      type: 'object',
      properties: {
        half: { type: 'number', multipleOf: 0.5 },
        cent: { type: 'number', multipleOf: 0.01 },
        third: { multipleOf: 3, maximum: 9, minimum: -9 },
        open: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 10 },
        big: { type: 'integer', minimum: -9007199254740991, maximum: 9007199254740991 },
      },
    },
  },
  {
    name: 'string lengths in code points and unicode patterns',
    drafts: 'both',
    schema: {
      type: 'object',
      properties: {
        short: { type: 'string', maxLength: 2 },
        long: { minLength: 3 },
        letters: { type: 'string', pattern: '^\\p{L}+$' },
        quoted: { pattern: '^"a\\d\'$|~' },
        emoji: { type: 'string', pattern: '^.$' },
      },
    },
  },
  {
    name: 'property counts and required names that objects inherit',
    drafts: 'both',
    schema: {
      type: 'object',
      minProperties: 1,
      maxProperties: 2,
      required: ['constructor'],
      properties: { toString: { type: 'string' }, 'x/y': { type: 'number' }, '~': { type: 'string' } },
    },
    values: [{}, { constructor: 'own' }, { constructor: 1, toString: 'a' }, JSON.parse('{"toString":1}')],
  },
  {
    name: 'many properties and no others',
    drafts: 'both',
    schema: {
      type: 'object',
      properties: Object.fromEntries('abcdefghij'.split('').map((key) => [key, { type: 'integer' }])),
      additionalProperties: false,
    },
  },
  {
    name: 'annotations and unknown keywords',
    drafts: 'both',
    schema: {
      $id: 'https://example.com/tool.json',
      title: 'Tool',
      description: 'A tool',
      $comment: 'only for people',
      examples: [{ a: 1 }],
      default: {},
      'x-foo': { bar: [1, 2] },
      discriminator: { propertyName: 'kind' },
      contentMediaType: 'application/json',
      type: 'object',
      properties: {
        a: { type: 'integer', readOnly: true, writeOnly: false, deprecated: true, format: 'int32', example: 3 },
        b: { type: 'string', format: 'date-time', nullable: false },
      },
    },
  },
  { name: 'an empty schema', drafts: 'both', schema: {} },
  { name: 'a schema of annotations only', drafts: 'both', schema: { title: 'anything', 'x-y': 1 } },
  {
    name: 'keywords of other types on their own',
    drafts: 'both',
    schema: { minLength: 2, minimum: 3, minItems: 1, required: ['a'], items: { type: 'string' }, uniqueItems: true },
  },
]

const Zod = z.object({
  name: z.string().min(1).max(20),
  age: z.number().int().nonnegative(),
  email: z.email().optional(),
  tags: z.array(z.string()).max(3),
  role: z.enum(['admin', 'user']),
  nick: z.string().nullable(),
  kind: z.literal('x'),
  id: z.union([z.string(), z.number()]),
  point: z.tuple([z.number(), z.number()]),
  shape: z.discriminatedUnion('k', [z.object({ k: z.literal('a'), a: z.string() }), z.object({ k: z.literal('b') })]),
  uuid: z.uuid().optional(),
  when: z.iso.datetime().optional(),
  step: z.number().multipleOf(0.5).gt(0).lt(10),
  flag: z.boolean().default(false),
})
const ZodNode: z.ZodType = z.object({
  name: z.string(),
  get children() {
    return z.array(ZodNode).max(2)
  },
})
const Valibot = v.object({
  name: v.pipe(v.string(), v.minLength(1), v.email()),
  count: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
  letters: v.array(v.picklist(['a', 'b'])),
  maybe: v.nullable(v.string()),
  either: v.union([v.literal('x'), v.number()]),
})
const Ark = type({
  name: 'string > 0',
  age: 'number.integer >= 0',
  'tags?': 'string[]',
  role: "'a' | 'b'",
  email: 'string.email',
  'score?': '0 <= number <= 1',
})

const fromLibraries: CorpusSchema[] = [
  { name: 'zod 4 output (2020-12)', drafts: '2020-12', schema: z.toJSONSchema(Zod) },
  { name: 'zod 4 input side', drafts: '2020-12', schema: z.toJSONSchema(Zod, { io: 'input' }) },
  {
    name: 'zod 4 output for draft-07',
    drafts: 'draft-07',
    schema: z.toJSONSchema(Zod.omit({ point: true }), { target: 'draft-7' }),
  },
  { name: 'zod 4 recursive schema', drafts: '2020-12', schema: z.toJSONSchema(ZodNode) },
  { name: 'Valibot output (draft-07)', drafts: 'draft-07', schema: toJsonSchema(Valibot) as JsonSchema },
  {
    name: 'ArkType output (2020-12)',
    drafts: '2020-12',
    schema: Ark.toJsonSchema() as JsonSchema,
    values: [
      { name: 'Ann', age: 3, role: 'a', email: 'ann@example.com' },
      { name: 'B', age: 0, role: 'b', email: 'b@c.de', tags: ['x'], score: 0.5 },
    ],
  },
]

/** Each schema as the drafts it is run in: a `both` schema once more with draft-07's `$schema`. */
export const CORPUS: Array<{ name: string; schema: JsonSchema; values: unknown[] }> = [
  ...handWritten,
  ...fromLibraries,
].flatMap(({ name, schema, drafts, values = [] }) =>
  drafts === 'both'
    ? [
        { name: `${name} (2020-12)`, schema, values },
        { name: `${name} (draft-07)`, schema: { $schema: DRAFT_07, ...schema }, values },
      ]
    : [{ name, schema, values }],
)
