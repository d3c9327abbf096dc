/** Limits an imported trace file must stay within; a hostile file is refused, not half-read. */
export const TRACE_FILE_LIMITS = { bytes: 50 * 2 ** 20, events: 200_000, stringLength: 1_000_000, depth: 32 }
