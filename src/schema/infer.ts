import type { InferOutput, StandardSchemaV1 } from './standard-schema'

// Type-level reading of an `as const` JSON Schema, enough for tool arguments and structured answers.

type Primitive<T> = T extends 'string'
  ? string
  : T extends 'number' | 'integer'
    ? number
    : T extends 'boolean'
      ? boolean
      : T extends 'null'
        ? null
        : T extends 'array'
          ? unknown[]
          : T extends 'object'
            ? Record<string, unknown>
            : unknown

type Simplify<T> = { [K in keyof T]: T[K] } & {}

type ObjectOf<S> = S extends { readonly properties: infer P }
  ? Simplify<
      {
        -readonly [K in keyof P as K extends RequiredKeys<S> ? K : never]: FromJsonSchema<P[K]>
      } & {
        -readonly [K in keyof P as K extends RequiredKeys<S> ? never : K]?: FromJsonSchema<P[K]>
      }
    >
  : Record<string, unknown>

type RequiredKeys<S> = S extends { readonly required: readonly (infer K)[] } ? K : never

/** The TypeScript type of values an `as const` JSON Schema accepts (unknown where it cannot tell). */
export type FromJsonSchema<S> = S extends { readonly const: infer C }
  ? C
  : S extends { readonly enum: readonly (infer E)[] }
    ? E
    : S extends { readonly anyOf: readonly (infer A)[] }
      ? FromJsonSchema<A>
      : S extends { readonly oneOf: readonly (infer A)[] }
        ? FromJsonSchema<A>
        : S extends { readonly type: 'object' }
          ? ObjectOf<S>
          : S extends { readonly type: 'array'; readonly items: infer I }
            ? FromJsonSchema<I>[]
            : S extends { readonly type: readonly (infer T)[] }
              ? Primitive<T>
              : S extends { readonly type: infer T }
                ? Primitive<T>
                : S extends { readonly properties: object }
                  ? ObjectOf<S>
                  : unknown

/** The value type a schema describes: a Standard Schema's output, or what a JSON Schema accepts. */
export type Infer<S> = S extends StandardSchemaV1 ? InferOutput<S> : FromJsonSchema<S>

/** What a value looks like while it is being written: every property optional, at every depth. */
export type DeepPartial<T> = T extends readonly (infer E)[]
  ? DeepPartial<E>[]
  : T extends object
    ? { [K in keyof T]?: DeepPartial<T[K]> }
    : T
