import type { JsonSchema } from '../core'

/** What the model is told when it cannot be constrained to a schema natively. */
export function formatInstructions(schema: JsonSchema): string {
  return [
    'Your response must be JSON only: no explanations, no markdown code fences, nothing before or after it.',
    'It must be RFC 8259 compliant JSON that matches this JSON Schema exactly:',
    JSON.stringify(schema),
  ].join('\n')
}
