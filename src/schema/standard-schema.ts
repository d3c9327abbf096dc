// The parts of the Standard Schema and Standard JSON Schema specs (standardschema.dev) that we use.
// Zod 4, ArkType and Valibot (through `toStandardJsonSchema`) implement both.

export interface StandardIssue {
  readonly message: string
  readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined
}

export type StandardResult<Output> =
  { readonly value: Output; readonly issues?: undefined } | { readonly issues: ReadonlyArray<StandardIssue> }

export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly '~standard': {
    readonly version: 1
    readonly vendor: string
    readonly validate: (value: unknown) => StandardResult<Output> | Promise<StandardResult<Output>>
    readonly types?: { readonly input: Input; readonly output: Output } | undefined
    readonly jsonSchema?: {
      readonly input: (options: { readonly target: string }) => Record<string, unknown>
      readonly output: (options: { readonly target: string }) => Record<string, unknown>
    }
  }
}

export type InferOutput<S> = S extends StandardSchemaV1<unknown, infer Output> ? Output : unknown
export type InferInput<S> = S extends StandardSchemaV1<infer Input, unknown> ? Input : unknown

export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  const standard = (value as { '~standard'?: { validate?: unknown } } | null)?.['~standard']
  return typeof standard === 'object' && standard !== null && typeof standard.validate === 'function'
}
