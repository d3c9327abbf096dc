/** Deeper nesting than any real answer needs; validators and encoders recurse and would overflow the stack. */
export const MAX_JSON_DEPTH = 256

/**
 * JSON.parse with a nesting limit, checked first in one linear pass: a value nested deeper than
 * `MAX_JSON_DEPTH` is a SyntaxError, never a stack overflow later in a validator.
 */
export function parseJson(text: string): unknown {
  const depth = nestingDepth(text)
  if (depth > MAX_JSON_DEPTH) {
    throw new SyntaxError(`JSON nested more than ${MAX_JSON_DEPTH} levels deep`)
  }
  return JSON.parse(text) as unknown
}

// Counts brackets outside strings; stops as soon as the limit is passed.
function nestingDepth(text: string): number {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (inString) {
      if (code === 92 /* \ */) i++
      else if (code === 34 /* " */) inString = false
    } else if (code === 34) inString = true
    else if (code === 123 /* { */ || code === 91 /* [ */) {
      if (++depth > MAX_JSON_DEPTH) return depth
    } else if (code === 125 /* } */ || code === 93 /* ] */) depth--
  }
  return 0
}
