// The devtools bench's arithmetic: percentiles, medians, ratios and the median of each figure over loads.

/** The value below which `p` percent of `values` fall (nearest rank); 0 for none. */
export function percentile(values, p) {
  if (values.length === 0) return 0
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]
}

export function median(values) {
  return percentile(values, 50)
}

/** `value / baseline` to two decimals, or null when the baseline is zero. */
export function ratio(value, baseline) {
  return baseline === 0 ? null : Math.round((value / baseline) * 100) / 100
}

/** The same shape as one load's figures, each number the median over `loads`. */
export function summaryOf(loads) {
  const of = (pick) => median(loads.map(pick))
  const walk = (sample, path) =>
    Object.fromEntries(
      Object.entries(sample).map(([key, value]) => {
        const at = [...path, key]
        return [
          key,
          typeof value === 'number' ? of((load) => at.reduce((node, step) => node[step], load)) : walk(value, at),
        ]
      }),
    )
  return walk(loads[0], [])
}
