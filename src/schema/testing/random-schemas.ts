// Random JSON Schemas for differential tests: the keywords the fast validator takes, nested, with
// local refs, and now and then a malformed value that ajv rejects.
import type { JsonSchema } from '../../core'
import { anyValue } from './random-values'

const TYPES = ['string', 'number', 'integer', 'boolean', 'null', 'object', 'array']
const KEYWORDS = [
  'minimum maximum exclusiveMinimum exclusiveMaximum multipleOf minLength maxLength pattern format',
  'enum const required properties additionalProperties items prefixItems uniqueItems minItems maxItems',
  'minProperties maxProperties anyOf oneOf allOf not $ref title description default examples readOnly',
  '$comment x-foo discriminator',
]
  .join(' ')
  .split(' ')

/** A root schema with `$defs` (sometimes), for draft-07 (`$schema` set) or 2020-12. */
export function randomSchema(random: () => number): JsonSchema {
  const names = random() < 0.4 ? ['a', 'b'] : []
  const refs = [...names.map((name) => `#/$defs/${name}`), ...(random() < 0.2 ? ['#'] : [])]
  const root = { ...objectSchema(random, 3, refs) }
  if (names.length) root['$defs'] = Object.fromEntries(names.map((name) => [name, schema(random, 2, refs)]))
  if (random() < 0.4) root['$schema'] = 'http://json-schema.org/draft-07/schema#'
  return root
}

function schema(random: () => number, depth: number, refs: string[]): JsonSchema | boolean {
  return random() < 0.06 ? random() < 0.5 : objectSchema(random, depth, refs)
}

function objectSchema(random: () => number, depth: number, refs: string[]): JsonSchema {
  const chance = (p: number) => random() < p
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!
  const sub = () => (depth <= 0 ? pick([true, {}, { type: pick(TYPES) }]) : schema(random, depth - 1, refs))
  const some = <T>(make: () => T, most = 3) => Array.from({ length: 1 + Math.floor(random() * most) }, make)
  const s: JsonSchema = {}
  if (chance(0.6)) {
    s['type'] = chance(0.75)
      ? pick(TYPES)
      : chance(0.9)
        ? [...new Set([pick(TYPES), pick(TYPES)])]
        : pick([[], ['string', 'string'], 'text', 5])
  }
  if (chance(0.05)) s['nullable'] = pick([true, false, 'yes'])
  for (let i = Math.floor(random() * 4); i > 0; i--) {
    const keyword = pick(KEYWORDS)
    switch (keyword) {
      case 'minimum':
      case 'maximum':
      case 'exclusiveMinimum':
      case 'exclusiveMaximum':
        s[keyword] = chance(0.9) ? pick([0, 1, -1, 2.5, 10, 100]) : pick(['1', true])
        break
      case 'multipleOf':
        s[keyword] = pick([0.5, 2, 3, 0.01, 0.1, 0, -1])
        break
      case 'minLength':
      case 'maxLength':
      case 'minItems':
      case 'maxItems':
      case 'minProperties':
      case 'maxProperties':
        s[keyword] = chance(0.92) ? pick([0, 1, 2, 3]) : pick([-1, 1.5, '2'])
        break
      case 'pattern':
        s[keyword] = pick(['^a', 'b$', '\\d', '^\\p{L}*$', '(', '\\-', '.', '^[a-z]+$', 'x/y'])
        break
      case 'format':
        s[keyword] = pick(['email', 'date', 5])
        break
      case 'enum':
        s[keyword] = chance(0.9) ? some(() => anyValue(random, 1)) : pick([[], 'a', [1, 1]])
        break
      case 'const':
      case 'default':
        s[keyword] = anyValue(random, 1)
        break
      case 'required':
        s[keyword] = chance(0.9)
          ? [...new Set(some(() => pick(['a', 'b', 'name', 'x/y']), 2))]
          : pick(['a', [1], ['a', 'a']])
        break
      case 'properties':
        s[keyword] = Object.fromEntries(some(() => [pick(['a', 'b', 'name', 'x/y', 'value', '~']), sub()]))
        break
      case 'additionalProperties':
        s[keyword] = chance(0.5) ? chance(0.5) : sub()
        break
      case 'items':
        s[keyword] = chance(0.85) ? sub() : [sub(), sub()]
        break
      case 'prefixItems':
        s[keyword] = some(sub, 2)
        break
      case 'uniqueItems':
        s[keyword] = chance(0.9) ? chance(0.5) : 'yes'
        break
      case 'anyOf':
      case 'oneOf':
      case 'allOf':
        s[keyword] = chance(0.95) ? some(sub) : []
        break
      case 'not':
        s[keyword] = sub()
        break
      case '$ref':
        if (refs.length) s[keyword] = pick(refs)
        break
      case 'examples':
        s[keyword] = chance(0.9) ? [anyValue(random, 1)] : 'x'
        break
      case 'readOnly':
        s[keyword] = chance(0.9) ? true : 'yes'
        break
      case 'x-foo':
        s[keyword] = chance(0.9) ? { a: [1] } : { $id: 'x' }
        break
      case 'discriminator':
        s[keyword] = { propertyName: 'a' }
        break
      default:
        s[keyword] = chance(0.9) ? 'text' : 5
    }
  }
  return s
}
