// Repeated tool calls are found by the meaning of their arguments, not their spelling: `{"a":1,"b":2}`
// and `{ "b": 2, "a": 1.0 }` are the same call. A fingerprint of the parsed value finds candidates
// without building a canonical text for every call (that text cost a tenth of a tool round in a
// page); only calls whose fingerprints meet are compared by canonical text.

import { textHash } from '../core'

// Turns compare call names by their text hash too.
export { textHash }

/** Nesting past this depth adds nothing to a fingerprint (equal values still get equal ones). */
const DEPTH = 64

/**
 * A number that equal JSON values share whatever their key order or number spelling; different
 * values mostly differ. A small integer, so that a Map keyed by it hashes it cheaply.
 */
export function jsonFingerprint(value: unknown): number {
  return valueHash(value, 0) & 0x3fffffff
}

function valueHash(value: unknown, depth: number): number {
  if (depth > DEPTH) return 0x1b873593
  switch (typeof value) {
    case 'string':
      return textHash(value)
    case 'number':
      // -0 and 0 are one JSON value; a fraction's digits go into the upper bits.
      return (value | 0) ^ Math.imul((value * 4294967296) | 0, 0x2c1b3c6d)
    case 'boolean':
      return value ? 0x68e31da4 : 0x1b56c4e9
    case 'object': {
      if (value === null) return 0x3c6ef372
      let hash: number
      if (Array.isArray(value)) {
        hash = 0x5bd1e995
        for (const item of value) hash = Math.imul(hash ^ valueHash(item, depth + 1), 0x01000193)
        return hash
      }
      // A sum of the entries' hashes: the same whatever order the keys come in.
      hash = 0x27d4eb2f
      for (const key in value) {
        hash =
          (hash +
            (Math.imul(textHash(key), 0x9e3779b1) ^ valueHash((value as Record<string, unknown>)[key], depth + 1))) |
          0
      }
      return hash
    }
    default:
      return 0
  }
}
