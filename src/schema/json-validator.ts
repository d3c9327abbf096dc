import type { JsonSchema } from '../core'
import { draftOf } from './schema-draft'

/** One schema violation: a JSON pointer into the value (`''` is the value itself) and the rule it breaks. */
export interface SchemaIssue {
  path: string
  message: string
}

export type JsonValidator = (value: unknown) => SchemaIssue[]

const compiled = new WeakMap<JsonSchema, Promise<JsonValidator>>()
let codeGeneration: boolean | undefined

/**
 * A validator for a raw JSON Schema: ajv, loaded on first use, or — in pages whose
 * Content-Security-Policy forbids `unsafe-eval` (ajv compiles to `new Function`) — an
 * interpreting validator with the same messages.
 */
export function jsonValidator(schema: JsonSchema): Promise<JsonValidator> {
  let validator = compiled.get(schema)
  if (!validator) {
    validator = canGenerateCode() ? ajvValidator(schema) : interpretingValidator(schema)
    compiled.set(schema, validator)
    validator.catch(() => compiled.delete(schema))
  }
  return validator
}

/** False in pages whose Content-Security-Policy forbids `unsafe-eval`. */
export function canGenerateCode(): boolean {
  if (codeGeneration === undefined) {
    try {
      // The probe ajv's generated code needs; a strict CSP throws an EvalError here.
      // eslint-disable-next-line @typescript-eslint/no-implied-eval
      codeGeneration = (new Function('return true') as () => boolean)()
    } catch {
      codeGeneration = false
    }
  }
  return codeGeneration
}

async function ajvValidator(schema: JsonSchema): Promise<JsonValidator> {
  const draft = draftOf(schema)
  const { default: Ajv } = draft === 'draft-07' ? await import('ajv') : await import('ajv/dist/2020.js')
  const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false, ownProperties: true })
  const validate = ajv.compile(schema)
  return (value) => {
    if (validate(value)) return []
    return (validate.errors ?? []).map((error) => ({
      path: error.instancePath,
      message: withParams(error.keyword, error.message ?? 'is invalid', error.params),
    }))
  }
}

function withParams(keyword: string, message: string, params: Record<string, unknown>): string {
  if (keyword === 'uniqueItems') return 'must NOT have duplicate items'
  if (keyword === 'additionalProperties') return `${message}: '${String(params['additionalProperty'])}'`
  if (keyword === 'enum' && Array.isArray(params['allowedValues'])) {
    return `${message}: ${params['allowedValues'].map((v) => JSON.stringify(v)).join(', ')}`
  }
  if (keyword === 'const') return `${message}: ${JSON.stringify(params['allowedValue'])}`
  return message
}

async function interpretingValidator(schema: JsonSchema): Promise<JsonValidator> {
  const { interpret } = await import('./interpreting-validator')
  return interpret(schema, draftOf(schema))
}
