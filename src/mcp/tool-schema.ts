import { Validator } from '@cfworker/json-schema'
import type { JsonSchema } from '../core'
import { resolveSchema } from '../schema'

// The draft-07 meta-schema is permissive enough for 2020-12 schemas (unknown keywords pass) and
// catches what a model API refuses: a misspelt type, a `required` that is not a list, and so on.
// It is checked by an interpreter, so the check also runs under a strict CSP.
let metaSchema: Promise<Validator> | undefined

function metaValidator(): Promise<Validator> {
  metaSchema ??= import('ajv/dist/refs/json-schema-draft-07.json').then(
    (module) => new Validator(module.default as JsonSchema, '7', false),
  )
  return metaSchema
}

// Errors that only say that something inside failed; the inner errors say what.
const CONTAINERS = new Set(['properties', 'additionalProperties', 'items', 'anyOf', 'allOf', 'oneOf', '$ref'])

/**
 * Why a tool's input (or output) schema cannot be used, or `undefined` when it can. An input
 * schema gets the validator its arguments are checked with; an output schema the one the SDK
 * checks results with (@cfworker/json-schema's).
 */
export async function schemaProblem(
  schema: JsonSchema,
  role: 'input' | 'output' = 'input',
): Promise<string | undefined> {
  // The tool's validator is prepared while the meta-schema loads, not after it.
  let prepared: Promise<void> | undefined
  try {
    if (role === 'input') prepared = resolveSchema(schema, 'input').prepare?.()
    else new Validator(schema, '2020-12')
  } catch (error) {
    return `its ${role} schema cannot be used: ${(error as Error).message}`
  }
  prepared?.catch(() => {})
  const checked = (await metaValidator()).validate(schema)
  if (!checked.valid) {
    const reasons = checked.errors
      .filter((error) => !CONTAINERS.has(error.keyword))
      .map((error) => `${error.instanceLocation.replace(/^#/, '') || '/'}: ${error.error}`)
    return `its ${role} schema is not a valid JSON Schema (${[...new Set(reasons)].slice(0, 3).join('; ')})`
  }
  try {
    // Compiled now, so a broken reference is found here and the first call does not wait for it.
    await prepared
  } catch (error) {
    return `its ${role} schema cannot be used: ${(error as Error).message}`
  }
  return undefined
}
