import { Validator, type OutputUnit } from '@cfworker/json-schema'
import type { JsonSchema } from '../core'
import type { JsonValidator, SchemaIssue } from './json-validator'

// Keywords whose failure only says that something inside failed; the inner errors say what.
const containers = new Set([
  'properties',
  'items',
  'prefixItems',
  'additionalItems',
  'allOf',
  '$ref',
  'patternProperties',
  'dependentSchemas',
  'then',
  'else',
  'if',
  'unevaluatedProperties',
  'unevaluatedItems',
  'contains',
])

/** A validator that needs no code generation (for strict-CSP pages), with ajv's messages. */
export function interpret(schema: JsonSchema, draft: 'draft-07' | '2020-12'): JsonValidator {
  const validator = new Validator(schema, draft === 'draft-07' ? '7' : '2020-12', false)
  return (value) => {
    const result = validator.validate(value)
    if (result.valid) return []
    const issues: SchemaIssue[] = []
    const additional = new Set<string>()
    for (const unit of result.errors) {
      if (containers.has(unit.keyword)) continue
      const issue = toIssue(unit, schema)
      if (!issue) continue
      if (unit.keyword === 'additionalProperties')
        additional.add(issue.path + '/' + (issue.message.split("'")[1] ?? ''))
      issues.push(issue)
    }
    // A `false` sub-schema failing under additionalProperties is the same violation, already reported.
    return issues.filter((issue) => !(issue.message === 'boolean schema is false' && additional.has(issue.path)))
  }
}

function toIssue(unit: OutputUnit, root: JsonSchema): SchemaIssue | null {
  const path = unit.instanceLocation.replace(/^#/, '')
  const at = schemaAt(root, unit.keywordLocation)
  const value = at?.[unit.keyword]
  switch (unit.keyword) {
    case 'type':
      return { path, message: `must be ${Array.isArray(value) ? value.join(',') : String(value)}` }
    case 'required': {
      const property = /property "(.*)"/.exec(unit.error)?.[1] ?? ''
      return { path, message: `must have required property '${property}'` }
    }
    case 'additionalProperties': {
      const property = /Property "(.*)" does not match/.exec(unit.error)?.[1] ?? ''
      return { path, message: `must NOT have additional properties: '${property}'` }
    }
    case 'enum':
      return {
        path,
        message: `must be equal to one of the allowed values: ${(value as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`,
      }
    case 'const':
      return { path, message: `must be equal to constant: ${JSON.stringify(value)}` }
    case 'minimum':
      return { path, message: `must be >= ${String(value)}` }
    case 'maximum':
      return { path, message: `must be <= ${String(value)}` }
    case 'exclusiveMinimum':
      return { path, message: `must be > ${String(value)}` }
    case 'exclusiveMaximum':
      return { path, message: `must be < ${String(value)}` }
    case 'minLength':
      return { path, message: `must NOT have fewer than ${String(value)} characters` }
    case 'maxLength':
      return { path, message: `must NOT have more than ${String(value)} characters` }
    case 'pattern':
      return { path, message: `must match pattern "${String(value)}"` }
    case 'minItems':
      return { path, message: `must NOT have fewer than ${String(value)} items` }
    case 'maxItems':
      return { path, message: `must NOT have more than ${String(value)} items` }
    case 'minProperties':
      return { path, message: `must NOT have fewer than ${String(value)} properties` }
    case 'maxProperties':
      return { path, message: `must NOT have more than ${String(value)} properties` }
    case 'multipleOf':
      return { path, message: `must be multiple of ${String(value)}` }
    case 'uniqueItems':
      return { path, message: 'must NOT have duplicate items' }
    case 'anyOf':
      return { path, message: 'must match a schema in anyOf' }
    case 'oneOf':
      return { path, message: 'must match exactly one schema in oneOf' }
    case 'not':
      return { path, message: 'must NOT be valid' }
    case 'format':
      return null
    case 'false':
      return { path, message: 'boolean schema is false' }
    default:
      return { path, message: unit.error }
  }
}

/** The schema object that holds the keyword at `location` (a `#/…` pointer ending in the keyword). */
function schemaAt(root: JsonSchema, location: string): Record<string, unknown> | undefined {
  const segments = location.replace(/^#\/?/, '').split('/').filter(Boolean).slice(0, -1)
  let node: unknown = root
  for (const segment of segments) {
    if (node === null || typeof node !== 'object') return undefined
    node = (node as Record<string, unknown>)[segment.replace(/~1/g, '/').replace(/~0/g, '~')]
  }
  return node !== null && typeof node === 'object' ? (node as Record<string, unknown>) : undefined
}
