import { extractJson } from './extract-json'
import { OutputParseError } from './output-parse-error'
import { parseJson } from './parse-json'
import { formatIssues, type ResolvedSchema } from './schema'

/** Reads a model answer as the schema's value: fences stripped, JSON parsed, then checked by the schema. */
export async function parseEntity<T>(text: string, schema: ResolvedSchema<T>): Promise<T> {
  const json = extractJson(text)
  let value: unknown
  try {
    value = parseJson(json)
  } catch (error) {
    throw new OutputParseError(`The model's answer is not valid JSON (${(error as Error).message})`, text)
  }
  return validEntity(value, schema, () => text)
}

/** A value read from a model answer, checked by the schema; `text` gives the answer for the error. */
export async function validEntity<T>(value: unknown, schema: ResolvedSchema<T>, text: () => string): Promise<T> {
  const validation = await schema.validate(value)
  if (!validation.ok) {
    throw new OutputParseError(
      `The model's answer does not match the schema: ${formatIssues(validation.issues)}`,
      text(),
      validation.issues,
    )
  }
  return validation.value
}
