import Ajv from 'ajv'
import Ajv2020 from 'ajv/dist/2020.js'
import type { JsonSchema } from '../core'
import type { JsonValidator } from './json-validator'
import { draftOf } from './schema-draft'

const OPTIONS = { allErrors: true, strict: false, validateFormats: false, ownProperties: true }

/** ajv's validator for a schema of its draft (draft-07, or 2020-12), with the messages the fast validator gives. */
export function ajvValidator(schema: JsonSchema): JsonValidator {
  const ajv = draftOf(schema) === 'draft-07' ? new Ajv(OPTIONS) : new Ajv2020(OPTIONS)
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
