import type { JsonSchema } from '../core'
import type { JsonValidator, SchemaIssue } from './json-validator'
import { draftOf } from './schema-draft'

/** Checks the value at the current path and records what is wrong with it; true when it is valid. */
type Check = (value: unknown) => boolean
type JsonObject = Record<string, unknown>
/** A schema a `$ref` names: compiled once, possibly after the refs to it (recursive schemas). */
interface Target {
  check?: Check
  /** The targets it follows a `$ref` to without moving into the value: a loop of them never ends. */
  follows: Target[]
}

// Keywords ajv validates, or that change how it resolves refs, which this compiler leaves to ajv
// (with every `$` keyword besides `$schema`, `$id`, `$ref`, `$defs` and `$comment`).
const LAZY =
  /^(\$|id$|if$|then$|else$|contains$|additionalItems$|propertyNames$|patternProperties$|dependen|m..Contains$|unevaluated|contentSchema$)/
// Keywords that validate nothing, of the type ajv's meta-schemas require of them.
const TEXTS = 'title description $comment contentMediaType contentEncoding'.split(' ')
const FLAGS = 'readOnly writeOnly deprecated'.split(' ')
// ajv's order: keywords for any value first, then one group per type, each applied to values of that type.
const ANY_VALUE = '$ref const enum not anyOf oneOf allOf'.split(' ')
const BY_TYPE: Array<[string, string[]]> = [
  ['number', 'maximum minimum exclusiveMaximum exclusiveMinimum multipleOf format'.split(' ')],
  ['string', 'maxLength minLength pattern format'.split(' ')],
  ['array', 'maxItems minItems prefixItems items uniqueItems'.split(' ')],
  ['object', 'maxProperties minProperties required additionalProperties properties'.split(' ')],
]
const APPLIED = new Set([...ANY_VALUE, ...BY_TYPE.flatMap(([, keywords]) => keywords), 'type', 'nullable'])
const TYPES: Record<string, Check> = {
  null: (value) => value === null,
  boolean: (value) => typeof value == 'boolean',
  string: (value) => typeof value == 'string',
  number: (value) => typeof value == 'number',
  integer: (value) => typeof value == 'number' && !(value % 1) && !isNaN(value),
  array: Array.isArray,
  object: (value) => !!value && typeof value == 'object' && !Array.isArray(value),
}
const NO_ISSUES = Object.freeze([]) as unknown as SchemaIssue[]
const valid: Check = () => true
const { hasOwn } = Object

/**
 * A validator for a JSON Schema that needs no code generation, compiled at once into closures, with
 * ajv's results and messages; undefined for a schema with keywords it leaves to ajv, or one ajv
 * would reject.
 */
export function fastValidator(root: JsonSchema): JsonValidator | undefined {
  const draft07 = draftOf(root) == 'draft-07'
  const targets = new Map<unknown, Target>()
  let issues: SchemaIssue[] | undefined
  let following: Target | undefined

  const fail = (message: string): false => {
    ;(issues ??= []).push({ path: '', message })
    return false
  }
  const mark = () => issues?.length ?? 0
  const rollback = (length: number) => {
    if (issues) issues.length = length
    return true
  }
  // The key joins the paths of the issues found under it: no path is kept while values pass.
  const at = (key: string | number, check: Check, value: unknown) => {
    const before = issues?.length ?? 0
    const ok = check(value)
    // A check that passed left no issues (each `fail` returns false up to here).
    if (!ok) for (const issue of issues!.slice(before)) issue.path = pointer([key]) + issue.path
    return ok
  }

  function target(schema: unknown): Target {
    let found = targets.get(schema)
    if (!found) {
      targets.set(schema, (found = { follows: [] }))
      const outer = following
      following = found
      found.check = compile(schema)
      following = outer
    }
    return found
  }

  /** A schema for a value inside this one: refs from there move into the value. */
  function inner(schema: unknown): Check {
    const outer = following
    following = undefined
    const check = compile(schema)
    following = outer
    return check
  }

  function compile(schema: unknown): Check {
    if (typeof schema == 'boolean') return schema ? valid : () => fail('boolean schema is false')
    const object = record(schema)
    for (const key of Object.keys(object)) annotation(key, object[key], object)
    const types = typesOf(object)
    // ajv adds `nullable`'s null to a type list in place, so its message names it there.
    const typeError = `must be ${Array.isArray(object['type']) ? types.join(',') : String(object['type'])}`
    const present = (keyword: string) => object[keyword] !== undefined
    const steps: Check[] = []
    if (types.length && !(types.length == 1 && BY_TYPE.some(([type, kws]) => type == types[0] && kws.some(present)))) {
      const tests = types.map((type) => TYPES[type]!)
      const [test] = tests
      steps.push(
        tests.length == 1
          ? (value) => test!(value) || fail(typeError)
          : (value) => matches(tests, value) || fail(typeError),
      )
    }
    for (const keyword of ANY_VALUE.filter(present)) steps.push(step(keyword, object[keyword], object)!)
    for (const [type, keywords] of BY_TYPE) {
      const used = keywords.filter(present)
      const checks = all(used.flatMap((keyword) => step(keyword, object[keyword], object) ?? []))
      const isType = TYPES[type]!
      // A single type with keywords of its own is checked where they are, as ajv does.
      const typeHere = used.length > 0 && types.length == 1 && types[0] == type
      if (checks != valid || typeHere)
        steps.push((value) => (isType(value) ? checks(value) : !typeHere || fail(typeError)))
    }
    return all(steps)
  }

  /** Checks a keyword that applies no rule of its own, throwing for one ajv would treat otherwise. */
  function annotation(key: string, value: unknown, schema: JsonObject): void {
    if (value === undefined || APPLIED.has(key) || key == 'default') return
    if (key == '$defs' || key == 'definitions') Object.values(record(value)).forEach(target)
    else if (key == '$schema') {
      // Only the meta-schema of the draft ajv is loaded for; it throws for any other.
      const known = /^(http:\/\/json-schema\.org\/draft-07|https:\/\/json-schema\.org\/draft\/2020-12)\/schema#?$/
      must(schema == root && typeof value == 'string' && known.test(value))
    } else if (key == '$id') must(schema == root && typeof value == 'string' && /^[^#]*#?$/.test(value))
    else if (key == 'examples') must(Array.isArray(value))
    else if (TEXTS.includes(key)) must(typeof value == 'string')
    else if (FLAGS.includes(key)) must(typeof value == 'boolean')
    else must(!LAZY.test(key) && withoutIds(value))
  }

  function step(keyword: string, rule: unknown, schema: JsonObject): Check | undefined {
    const bound = /^(exclusiveM|m)(ax|in)imum$/.exec(keyword)
    if (bound) {
      const limit = finite(rule)
      const [exclusive, max] = [bound[1] != 'm', bound[2] == 'ax']
      const message = `must be ${max ? '<' : '>'}${exclusive ? '' : '='} ${limit}`
      return (value) =>
        (max ? (value as number) < limit : (value as number) > limit) || (!exclusive && value == limit) || fail(message)
    }
    const counted = /^(max|min)(Length|Items|Properties)$/.exec(keyword)
    if (counted) {
      must(Number.isInteger(rule) && (rule as number) >= 0)
      const limit = rule as number
      const [max, unit] = [counted[1] == 'max', counted[2]!]
      const size = unit == 'Length' ? codePoints : unit == 'Items' ? itemCount : propertyCount
      const message = `must NOT have ${max ? 'more' : 'fewer'} than ${limit} ${unit == 'Length' ? 'characters' : unit.toLowerCase()}`
      return (value) => (max ? size(value) <= limit : size(value) >= limit) || fail(message)
    }
    switch (keyword) {
      case '$ref': {
        const to = target(resolve(rule))
        if (following) {
          must(!reaches(to, following, new Set()))
          following.follows.push(to)
        }
        return (value) => to.check!(value)
      }
      case 'const': {
        const message = `must be equal to constant: ${JSON.stringify(rule)}`
        return (value) => same(value, rule) || fail(message)
      }
      case 'enum': {
        const allowed = schemas(rule, (value) => value)
        must(allowed.every((value, i) => allowed.findIndex((other) => equal(value, other)) == i))
        const message = `must be equal to one of the allowed values: ${allowed.map((value) => JSON.stringify(value)).join(', ')}`
        return (value) => {
          for (let i = 0; i < allowed.length; i++) if (same(value, allowed[i])) return true
          return fail(message)
        }
      }
      case 'not': {
        const check = compile(rule)
        return (value) => {
          const before = mark()
          const ok = check(value)
          rollback(before)
          return !ok || fail('must NOT be valid')
        }
      }
      case 'anyOf': {
        const checks = schemas(rule, compile)
        return (value) => {
          const before = mark()
          for (let i = 0; i < checks.length; i++) if (checks[i]!(value)) return rollback(before)
          return fail('must match a schema in anyOf')
        }
      }
      case 'oneOf': {
        const checks = schemas(rule, compile)
        return (value) => {
          const before = mark()
          let passing = 0
          // ajv stops at the second schema that passes.
          for (let i = 0; i < checks.length && passing < 2; i++) if (checks[i]!(value)) passing++
          return passing == 1 ? rollback(before) : fail('must match exactly one schema in oneOf')
        }
      }
      case 'allOf':
        return all(schemas(rule, compile))
      case 'multipleOf': {
        const divisor = finite(rule)
        must(divisor > 0)
        return (value) => {
          const quotient = (value as number) / divisor
          // ajv's test, kept for its results on huge quotients (parseInt reads 1e+21 as 1).
          return quotient === parseInt(String(quotient)) || fail(`must be multiple of ${divisor}`)
        }
      }
      case 'format':
        // Not validated (ajv runs with validateFormats: false), but it counts for the type's group.
        return must(typeof rule == 'string') && undefined
      case 'pattern': {
        must(typeof rule == 'string')
        const source = rule as string
        const pattern = new RegExp(source, 'u')
        return (value) => pattern.test(value as string) || fail(`must match pattern "${source}"`)
      }
      case 'prefixItems':
        // ajv's draft-07 ignores it; rare enough there to leave to ajv.
        return must(!draft07) && eachItem(schemas(rule, inner))
      case 'items': {
        if (draft07 && Array.isArray(rule)) return eachItem(schemas(rule, inner))
        const check = inner(rule)
        const prefix = draft07 ? 0 : ((schema['prefixItems'] as unknown[] | undefined)?.length ?? 0)
        if (check == valid) return undefined
        // ajv words more items than `prefixItems` allows as maxItems does.
        if (rule === false && prefix) return step('maxItems', prefix, schema)
        return eachItem([], check, prefix)
      }
      case 'uniqueItems':
        return must(typeof rule == 'boolean') && rule ? unique(schema['items']) : undefined
      case 'required': {
        must(Array.isArray(rule) && rule.every((name) => typeof name == 'string') && new Set(rule).size == rule.length)
        return all(
          (rule as string[]).map((name) => {
            const message = `must have required property '${name}'`
            return (value) => own(value as JsonObject, name) !== undefined || fail(message)
          }),
        )
      }
      case 'additionalProperties': {
        const known = new Set(Object.keys(properties(schema['properties'] ?? {})))
        const check = rule === false ? undefined : inner(rule)
        if (check == valid) return undefined
        return (value) => {
          let ok = true
          for (const key in value as JsonObject) {
            if (known.has(key)) continue
            ok =
              (check
                ? at(key, check, (value as JsonObject)[key])
                : fail(`must NOT have additional properties: '${key}'`)) && ok
          }
          return ok
        }
      }
      case 'properties': {
        const subschemas = properties(rule)
        return all(
          Object.keys(subschemas).flatMap((key) => {
            const check = inner(subschemas[key])
            if (check == valid) return []
            return (value: unknown) => {
              const property = own(value as JsonObject, key)
              return property === undefined || at(key, check, property)
            }
          }),
        )
      }
    }
  }

  /** Checks the items from `start` on: the leading ones against `leading`, the others against `rest`. */
  function eachItem(leading: Check[], rest?: Check, start = 0): Check {
    return (value) => {
      const list = value as unknown[]
      let ok = true
      for (let i = start; i < list.length; i++) {
        const check = leading[i] ?? rest
        if (check) ok = at(i, check, list[i]) && ok
      }
      return ok
    }
  }

  /**
   * ajv compares items of scalar types by value, skipping those of other types, and others deeply.
   * Pairwise here, allocating nothing: tool arguments hold short lists.
   */
  function unique(itemsRule: unknown): Check {
    const types = TYPES['object']!(itemsRule) ? typesOf(itemsRule as JsonObject) : []
    const scalar = types.length > 0 && !types.some((type) => type == 'object' || type == 'array')
    // ajv keeps seen scalars in a plain object, where the key '__proto__' never sticks.
    const tests = types.map((type) => TYPES[type]!)
    const compared = (item: unknown) =>
      !scalar || (matches(tests, item) && !(types.length == 1 && item === '__proto__'))
    return (value) => {
      const list = value as unknown[]
      for (let i = list.length; i--;) {
        if (!compared(list[i])) continue
        for (let j = i; j--;) if (equal(list[i], list[j])) return fail('must NOT have duplicate items')
      }
      return true
    }
  }

  function resolve(ref: unknown): unknown {
    if (ref === '#') return root
    const [, defs, name] = (typeof ref == 'string' && /^#\/(\$defs|definitions)\/([\w.-]+)$/.exec(ref)) || []
    const found = defs && root[defs]
    must(!!found && typeof found == 'object' && hasOwn(found, name!))
    return (found as JsonObject)[name!]
  }

  /** Every check, in order, all of them run (ajv reports all errors); nested pairs run faster than a loop. */
  function all(checks: Check[]): Check {
    if (!checks.length) return valid
    return checks.reduce((first, second) => (value) => {
      const ok = first(value)
      return second(value) && ok
    })
  }

  try {
    const check = target(root).check!
    return (value) => {
      issues = undefined
      check(value)
      const found = issues ?? NO_ISSUES
      issues = undefined
      return found
    }
  } catch {
    // A keyword left to ajv, a malformed schema, or a pattern that is no regex: the lazy path decides.
    return undefined
  }
}

/** Whether `to` can be reached from `from` by refs that stay on one value: a loop that would never end. */
function reaches(from: Target, to: Target, seen: Set<Target>): boolean {
  if (from == to) return true
  if (seen.has(from)) return false
  seen.add(from)
  return from.follows.some((next) => reaches(next, to, seen))
}

function must(condition: boolean): true {
  if (!condition) throw new Error('left to ajv')
  return true
}

function record(value: unknown): JsonObject {
  must(TYPES['object']!(value))
  return value as JsonObject
}

/** A `properties` map; `__proto__` as a name would need ajv's own treatment of it. */
function properties(value: unknown): JsonObject {
  must(!hasOwn(record(value), '__proto__'))
  return value as JsonObject
}

/** A non-empty array, each element mapped (a schema compiled, a name checked). */
function schemas<T>(value: unknown, map: (element: unknown) => T): T[] {
  must(Array.isArray(value) && value.length > 0)
  return (value as unknown[]).map(map)
}

function finite(value: unknown): number {
  must(Number.isFinite(value))
  return value as number
}

function typesOf(schema: JsonObject): string[] {
  const declared = schema['type']
  const types: unknown[] =
    declared === undefined ? [] : Array.isArray(declared) ? [...(declared as unknown[])] : [declared]
  must(
    declared === undefined ||
      (types.length > 0 &&
        new Set(types).size == types.length &&
        types.every((type) => typeof type == 'string' && hasOwn(TYPES, type))),
  )
  const nullable = schema['nullable']
  if (nullable !== undefined) {
    // ajv's OpenAPI keyword: adds null to the declared types, and needs some.
    must(typeof nullable == 'boolean' && types.length > 0 && !(nullable === false && types.includes('null')))
    if (nullable && !types.includes('null')) types.push('null')
  }
  return types as string[]
}

function matches(tests: Check[], value: unknown): boolean {
  for (let i = 0; i < tests.length; i++) if (tests[i]!(value)) return true
  return false
}

/** Unknown keywords are ignored, as by ajv, unless they hold an `$id` or anchor ajv would register. */
function withoutIds(value: unknown): boolean {
  return (
    !value ||
    typeof value != 'object' ||
    Object.entries(value).every(([key, inner]) => !/^(\$id|\$anchor|\$dynamicAnchor)$/.test(key) && withoutIds(inner))
  )
}

/** ajv's `const` and `enum` comparison: deep for objects and arrays, `===` otherwise. */
function same(value: unknown, allowed: unknown): boolean {
  return allowed && typeof allowed == 'object' ? equal(value, allowed) : value === allowed
}

function equal(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (a && b && typeof a == 'object' && typeof b == 'object') {
    if (a.constructor !== b.constructor) return false
    if (Array.isArray(a))
      return a.length == (b as unknown[]).length && a.every((item, i) => equal(item, (b as unknown[])[i]))
    const keys = Object.keys(a)
    return (
      keys.length == Object.keys(b).length &&
      keys.every((key) => hasOwn(b, key) && equal((a as JsonObject)[key], (b as JsonObject)[key]))
    )
  }
  return a !== a && b !== b
}

const itemCount = (value: unknown) => (value as unknown[]).length
const propertyCount = (value: unknown) => Object.keys(value as object).length
/** The length ajv checks: Unicode code points, a surrogate pair counting once. */
function codePoints(value: unknown): number {
  const text = value as string
  let length = text.length
  for (let i = 0; i < text.length; i++) {
    if ((text.charCodeAt(i) & 0xfc00) == 0xd800 && (text.charCodeAt(i + 1) & 0xfc00) == 0xdc00) {
      length--
      i++
    }
  }
  return length
}

/** A JSON pointer to the value at `path`. */
export function pointer(path: readonly unknown[]): string {
  return path.map((segment) => '/' + String(segment).replace(/~/g, '~0').replace(/\//g, '~1')).join('')
}

/** A property the object has itself: `required: ['constructor']` is not met by what `{}` inherits. */
function own(object: JsonObject, key: string): unknown {
  return hasOwn(object, key) ? object[key] : undefined
}
