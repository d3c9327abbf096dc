import type { JsonSchema } from '../core'

// The keywords OpenAI's strict structured outputs accept (its "supported schemas" subset).
const STRICT_KEYWORDS = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'const',
  'anyOf',
  '$ref',
  '$defs',
  'definitions',
  'description',
  'title',
  '$schema',
  '$id',
  'pattern',
  'format',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minItems',
  'maxItems',
])

/**
 * Whether a response schema can be sent with `strict: true`: an object at the root, every object
 * closed (`additionalProperties: false`) with all its properties required, and only keywords strict
 * mode knows. A strict schema is enforced while decoding; any other is sent as it is, unenforced,
 * since strict mode would refuse it.
 */
export function isStrictSchema(schema: JsonSchema): boolean {
  return schema['type'] === 'object' && strictNode(schema, 0)
}

function strictNode(node: unknown, depth: number): boolean {
  if (depth > 64 || node === null || typeof node !== 'object' || Array.isArray(node)) return false
  const schema = node as Record<string, unknown>
  for (const key of Object.keys(schema)) if (!STRICT_KEYWORDS.has(key)) return false
  const type = schema['type']
  if (type === 'object' || (Array.isArray(type) && type.includes('object'))) {
    const properties = schema['properties'] ?? {}
    if (properties === null || typeof properties !== 'object' || Array.isArray(properties)) return false
    const names = Object.keys(properties)
    const required = schema['required'] ?? []
    if (schema['additionalProperties'] !== false) return false
    if (!Array.isArray(required) || names.some((name) => !required.includes(name))) return false
    if (names.some((name) => !strictNode((properties as Record<string, unknown>)[name], depth + 1))) return false
  }
  if (schema['items'] !== undefined && !strictNode(schema['items'], depth + 1)) return false
  if (schema['anyOf'] !== undefined)
    if (!Array.isArray(schema['anyOf']) || !schema['anyOf'].every((branch) => strictNode(branch, depth + 1)))
      return false
  for (const defs of ['$defs', 'definitions']) {
    const definitions = schema[defs]
    if (definitions === undefined) continue
    if (definitions === null || typeof definitions !== 'object') return false
    if (!Object.values(definitions).every((definition) => strictNode(definition, depth + 1))) return false
  }
  return true
}
