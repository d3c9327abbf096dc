import type { JsonSchema } from '../core'
import { draftOf } from './schema-draft'

/** One schema violation: a JSON pointer into the value (`''` is the value itself) and the rule it breaks. */
export interface SchemaIssue {
  path: string
  message: string
}

export type JsonValidator = (value: unknown) => SchemaIssue[]

let codeGeneration: boolean | undefined

/**
 * A validator for a raw JSON Schema, loaded with its first use (the one lazy step on this path):
 * ajv, or — in pages whose Content-Security-Policy forbids `unsafe-eval` (ajv compiles to
 * `new Function`) — an interpreting validator with the same messages. Each call compiles anew:
 * `resolveSchema` keeps one per schema object.
 */
export function jsonValidator(schema: JsonSchema): Promise<JsonValidator> {
  return canGenerateCode()
    ? import('./ajv-validator').then((ajv) => ajv.ajvValidator(schema))
    : import('./interpreting-validator').then((interpreter) => interpreter.interpret(schema, draftOf(schema)))
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
