import type { JsonSchema } from '../core'

// Keywords OpenAI's strict structured outputs refuse (outside its "supported schemas" subset).
const REFUSED =
  /^(allOf|not|if|then|else|oneOf|patternProperties|dependent\w*|m(in|ax)(Properties|Length|Contains)|propertyNames|unevaluated\w+|contains|uniqueItems|prefixItems|additionalItems)$/

/**
 * Whether a response schema can be sent with `strict: true`: an object at the root, every object
 * closed (`additionalProperties: false`) with all its properties required, and no keyword strict
 * mode refuses. Any other schema is sent unenforced, since strict mode would refuse it.
 */
export function isStrictSchema(schema: JsonSchema): boolean {
  return schema['type'] === 'object' && strict(schema)
}

function strict(node: unknown): boolean {
  if (node === null || typeof node !== 'object') return false
  const schema = node as Record<string, unknown>
  const { properties = {}, required = [], items, anyOf, $defs = {}, definitions = {} } = schema
  if (Object.keys(schema).some((keyword) => REFUSED.test(keyword))) return false
  const names = Object.keys(properties as object)
  if (schema['type'] === 'object' || names.length > 0)
    if (
      schema['additionalProperties'] !== false ||
      !names.every((name) => Array.isArray(required) && required.includes(name))
    )
      return false
  const inner: unknown[] = [
    ...Object.values(properties as Record<string, unknown>),
    ...(items === undefined ? [] : [items]),
    ...(Array.isArray(anyOf) ? (anyOf as unknown[]) : []),
    ...Object.values($defs as Record<string, unknown>),
    ...Object.values(definitions as Record<string, unknown>),
  ]
  return inner.every(strict)
}
