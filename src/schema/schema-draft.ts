import type { JsonSchema } from '../core'

/** The draft a JSON Schema is validated by: draft-07 when its `$schema` names draft-04 to 07, else 2020-12. */
export function draftOf(schema: JsonSchema): 'draft-07' | '2020-12' {
  const declared = typeof schema['$schema'] === 'string' ? schema['$schema'] : ''
  return /draft-0[4-7]/.test(declared) ? 'draft-07' : '2020-12'
}
