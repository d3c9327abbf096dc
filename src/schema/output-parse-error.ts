import type { SchemaIssue } from './json-validator'

/** The model's answer could not be read as the requested structure; `text` is what the model wrote. */
export class OutputParseError extends Error {
  override readonly name = 'OutputParseError'

  constructor(
    message: string,
    readonly text: string,
    readonly issues: readonly SchemaIssue[] = [],
  ) {
    super(message)
  }
}
