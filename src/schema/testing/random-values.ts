// Values for differential tests of JSON Schema validators: reproducible, shaped by the schema (so
// they reach deep into it), some of them bent out of shape (so they fail in many ways).
import type { JsonSchema } from '../../core'

/** A reproducible source of numbers in [0, 1). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (Math.imul(state ^ (state >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0
    return state / 2 ** 32
  }
}

const WORDS = ['', 'a', 'ab', 'Ann', 'x/y', 'til~de', '😀', 'a😀b', '__proto__', 'constructor', 'admin', '1', 'null']
const KEYS = ['a', 'b', 'name', 'value', 'extra', 'x/y', '~', 'constructor', 'toString', 'children', 'kind']
const NUMBERS = [0, -0, 1, -1, 2, 0.5, 1.5, 3, 10, 99.99, 100, 150, 200, -7.25, 1e21, 2 ** 53]

/** A value of any JSON kind. */
export function anyValue(random: () => number, depth = 2): unknown {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!
  switch (Math.floor(random() * (depth > 0 ? 7 : 5))) {
    case 0:
      return null
    case 1:
      return random() < 0.5
    case 2:
      return random() < 0.5 ? pick(NUMBERS) : Math.round((random() - 0.3) * 400) / (random() < 0.5 ? 1 : 4)
    case 3:
    case 4:
      return random() < 0.7 ? pick(WORDS) : pick(WORDS) + pick(WORDS)
    case 5:
      return Array.from({ length: Math.floor(random() * 4) }, () => anyValue(random, depth - 1))
    default:
      return Object.fromEntries(
        Array.from({ length: Math.floor(random() * 4) }, () => [pick(KEYS), anyValue(random, depth - 1)]),
      )
  }
}

/**
 * A value shaped by `schema` (local refs resolved against `root`); at each level, with chance
 * `noise`, something else, a bound crossed, a required property left out or an extra one added.
 */
export function valueFor(schema: unknown, root: JsonSchema, random: () => number, noise: number, depth = 5): unknown {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!
  const bent = () => random() < noise
  const inner = (sub: unknown) => valueFor(sub, root, random, noise, depth - 1)
  if (depth < 0 || typeof schema !== 'object' || schema === null || bent()) return anyValue(random)
  const s = schema as Record<string, unknown>
  if (typeof s['$ref'] === 'string') {
    const [, group, name] = /^#\/([^/]+)\/(.+)$/.exec(s['$ref']) ?? []
    return inner(group ? (root[group] as Record<string, unknown>)[name!] : root)
  }
  if (Array.isArray(s['enum'])) return pick(s['enum'])
  if ('const' in s) return s['const']
  for (const union of ['anyOf', 'oneOf', 'allOf']) if (Array.isArray(s[union])) return inner(pick(s[union]))
  const declared = s['type']
  const type: unknown = Array.isArray(declared) ? pick(declared as unknown[]) : (declared ?? guessType(s))
  const number = (key: string) => (typeof s[key] === 'number' ? s[key] : undefined)
  switch (type) {
    case 'string': {
      const [min, max] = [number('minLength') ?? 0, number('maxLength') ?? 8]
      const words = WORDS.filter((word) => [...word].length <= Math.max(1, max))
      let text = pick(words)
      while ([...text].length < min) text += pick(words) || 'z'
      return [...text].length <= max || bent() ? text : [...text].slice(0, max).join('')
    }
    case 'number':
    case 'integer': {
      const low = number('minimum') ?? number('exclusiveMinimum') ?? -10
      const high = number('maximum') ?? number('exclusiveMaximum') ?? low + 20
      if (bent()) return pick([low, high, low - 1, high + 1, (low + high) / 2 + 0.25])
      const step = number('multipleOf') ?? (type === 'integer' ? 1 : random() < 0.5 ? 1 : 0.25)
      const span = Math.min(high - low, 1000)
      return Math.ceil((low + random() * span) / step) * step + (number('exclusiveMinimum') === low ? step : 0)
    }
    case 'boolean':
      return random() < 0.5
    case 'null':
      return null
    case 'array': {
      const prefix = Array.isArray(s['prefixItems']) ? s['prefixItems'] : Array.isArray(s['items']) ? s['items'] : []
      const [min, max] = [number('minItems') ?? 0, number('maxItems') ?? 4]
      const length = bent() ? Math.floor(random() * 5) : min + Math.floor(random() * (Math.min(max, min + 3) - min + 1))
      const rest = Array.isArray(s['items']) ? true : s['items']
      return Array.from({ length }, (_, i) => inner(i < prefix.length ? prefix[i] : rest))
    }
    case 'object': {
      const properties = (s['properties'] ?? {}) as Record<string, unknown>
      const required = Array.isArray(s['required']) ? (s['required'] as string[]) : []
      const value: Record<string, unknown> = {}
      for (const key of Object.keys(properties)) {
        if (required.includes(key) ? !bent() : random() < 0.5) value[key] = inner(properties[key])
      }
      for (const key of required) if (!(key in value) && !bent()) value[key] = anyValue(random)
      if (bent()) value[pick(KEYS)] = inner(s['additionalProperties'])
      return value
    }
    default:
      return anyValue(random)
  }
}

function guessType(schema: Record<string, unknown>): string | undefined {
  if ('properties' in schema || 'required' in schema) return 'object'
  if ('items' in schema || 'prefixItems' in schema) return 'array'
  if ('minLength' in schema || 'pattern' in schema) return 'string'
  if ('minimum' in schema || 'maximum' in schema || 'multipleOf' in schema) return 'number'
  return undefined
}
