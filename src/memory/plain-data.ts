import { isBlob } from '../core'

/** Deeper than this is not a message (and would overflow a recursive reader). */
const MAX_DEPTH = 256

/**
 * Why `value` is not plain data, or undefined when it is: what a message may hold so that it can be
 * compared, serialized and sent (JSON values, `undefined`, Blobs and Files). A BigInt, a cycle, a
 * function, a symbol or an instance of another class (a Date, a Map…) is named with its path.
 */
export function whyNotPlainData(value: unknown): string | undefined {
  return check(value, 'message', [], 0)
}

function check(value: unknown, path: string, ancestors: object[], depth: number): string | undefined {
  switch (typeof value) {
    case 'string':
    case 'number':
    case 'boolean':
    case 'undefined':
      return undefined
    case 'bigint':
      return `${path} is a BigInt`
    case 'symbol':
      return `${path} is a symbol`
    case 'function':
      return `${path} is a function`
  }
  if (value === null || isBlob(value)) return undefined
  const object = value as object
  if (depth >= MAX_DEPTH) return `${path} is nested deeper than ${MAX_DEPTH} levels`
  if (ancestors.includes(object)) return `${path} refers back to itself (a cycle)`
  const prototype: unknown = Object.getPrototypeOf(object)
  const isArray = Array.isArray(object)
  if (!isArray && prototype !== Object.prototype && prototype !== null)
    return `${path} is a ${(object as { constructor?: { name?: string } }).constructor?.name ?? 'class instance'}, not plain data`
  ancestors.push(object)
  try {
    for (const [key, item] of Object.entries(object)) {
      const problem = check(item, isArray ? `${path}[${key}]` : `${path}.${key}`, ancestors, depth + 1)
      if (problem) return problem
    }
  } finally {
    ancestors.pop()
  }
  return undefined
}
