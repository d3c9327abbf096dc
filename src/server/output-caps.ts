/** Request fields that multiply what one request costs: several completions of up to the cap each. */
const MULTIPLIERS = ['n', 'best_of'] as const

/**
 * The chat body with every output-token limit at most `cap` (the first set to it when none is), or
 * what is wrong: a limit that is not a positive whole number, or a multiplier above 1 — so one
 * request costs at most `cap` tokens of output.
 */
export function capOutput(
  body: Record<string, unknown>,
  fields: readonly string[],
  cap: number | undefined,
): Record<string, unknown> | string {
  for (const field of MULTIPLIERS) {
    const value = body[field]
    if (value !== undefined && value !== null && value !== 1)
      return `${field} must be 1 at this model proxy (each choice would cost up to the output cap), got ${JSON.stringify(value)}`
  }
  const capped = { ...body }
  let present = false
  for (const field of fields) {
    const value = capped[field]
    if (value === undefined || value === null) continue
    if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0)
      return `${field} must be a whole number above 0, got ${JSON.stringify(value)}`
    present = true
    if (cap !== undefined && value > cap) capped[field] = cap
  }
  if (!present && cap !== undefined) capped[fields[0]!] = cap
  return capped
}

/** The most output the capped body allows, if it says. */
export function outputLimit(body: Record<string, unknown>, fields: readonly string[]): number | undefined {
  const limits = fields.map((field) => body[field]).filter((value): value is number => typeof value === 'number')
  return limits.length > 0 ? Math.min(...limits) : undefined
}
