/** A JSON Schema document (draft 2020-12 or draft-07), as plain data. */
export interface JsonSchema {
  [keyword: string]: unknown
}
