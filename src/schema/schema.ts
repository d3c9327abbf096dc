import type { JsonSchema } from '../core'
import { fastValidator, pointer } from './fast-validator'
import { jsonValidator, type JsonValidator, type SchemaIssue } from './json-validator'
import { isStandardSchema, type StandardIssue, type StandardSchemaV1 } from './standard-schema'

/** What users may pass wherever a schema is asked for: a JSON Schema object or a Standard Schema with a JSON Schema. */
export type SchemaLike = JsonSchema | StandardSchemaV1

export type Validation<T> = { ok: true; value: T } | { ok: false; issues: SchemaIssue[] }

/** A schema ready for use: the JSON Schema to show a model, and a validator for values. */
export interface ResolvedSchema<T = unknown> {
  readonly jsonSchema: JsonSchema
  validate(value: unknown): Promise<Validation<T>>
  /** Loads and compiles the validator ahead of the first `validate`, where that takes time. */
  prepare?(): Promise<void>
}

const JSON_SCHEMA_TARGET = 'draft-2020-12'

/**
 * Resolves a schema: a Standard Schema validates with its own validator and gives its JSON Schema
 * (`input` side for tool arguments, `output` side for structured answers); a JSON Schema validates
 * with the fast validator, compiled here, when it takes the schema, else with ajv (or, under a
 * strict CSP, an interpreting validator), loaded and compiled with the first check.
 */
export function resolveSchema<T = unknown>(schema: SchemaLike, side: 'input' | 'output'): ResolvedSchema<T> {
  if (isStandardSchema(schema)) return standardSchema<T>(schema, side)
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) {
    throw new TypeError(`A schema must be a JSON Schema object or a Standard Schema, got ${describe(schema)}`)
  }
  const cached = resolvedJsonSchemas.get(schema)
  if (cached) return cached as ResolvedSchema<T>
  const fast = fastValidator(schema)
  const resolved = fast ? validatedAtOnce<T>(schema, fast) : validatedLater<T>(schema)
  resolvedJsonSchemas.set(schema, resolved)
  return resolved
}

// A JSON Schema object is compiled once: every call given the same object (a stream per request,
// a tool per call) shares its validator.
const resolvedJsonSchemas = new WeakMap<object, ResolvedSchema>()

/** A JSON Schema the fast validator does not take: ajv (or the interpreter) compiles it with the first check. */
function validatedLater<T>(schema: JsonSchema): ResolvedSchema<T> {
  let compiled: Promise<JsonValidator> | undefined
  // The validator (ajv, or the interpreter under a strict CSP) loads with the first check.
  const validator = () => (compiled ??= jsonValidator(schema))
  return {
    jsonSchema: schema,
    async prepare() {
      await validator()
    },
    async validate(value) {
      return validation<T>(value, (await validator())(value))
    },
  }
}

/** A JSON Schema whose validator is compiled already: nothing to load or prepare. */
function validatedAtOnce<T>(schema: JsonSchema, validator: JsonValidator): ResolvedSchema<T> {
  return {
    jsonSchema: schema,
    async validate(value) {
      return validation<T>(value, validator(value))
    },
  }
}

function validation<T>(value: unknown, issues: SchemaIssue[]): Validation<T> {
  return issues.length === 0 ? { ok: true, value: value as T } : { ok: false, issues }
}

function standardSchema<T>(schema: StandardSchemaV1, side: 'input' | 'output'): ResolvedSchema<T> {
  const standard = schema['~standard']
  if (!standard.jsonSchema) {
    throw new TypeError(
      `This ${standard.vendor} schema exposes no JSON Schema, which the model needs. Use a library that implements Standard JSON Schema (zod 4.2+, ArkType, Valibot through toStandardJsonSchema from @valibot/to-json-schema) or pass a JSON Schema object.`,
    )
  }
  const jsonSchema = standard.jsonSchema[side]({ target: JSON_SCHEMA_TARGET })
  return {
    jsonSchema,
    async validate(value) {
      const result = await standard.validate(value)
      if (result.issues) return { ok: false, issues: result.issues.map(toIssue) }
      return { ok: true, value: result.value as T }
    },
  }
}

function toIssue(issue: StandardIssue): SchemaIssue {
  const path = (issue.path ?? []).map((segment) => (typeof segment === 'object' ? segment.key : segment))
  return { path: pointer(path), message: issue.message }
}

/** `/age: must be integer; /name: …` — the path, a colon and the rule. */
export function formatIssues(issues: readonly SchemaIssue[]): string {
  return issues.map((issue) => (issue.path ? `${issue.path}: ${issue.message}` : issue.message)).join('; ')
}

function describe(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  return typeof value
}
