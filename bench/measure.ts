/** Median time per operation in microseconds over `samples` runs of `iterations` operations each. */
export async function measure(operation: () => Promise<unknown>, iterations: number, samples = 7): Promise<number> {
  for (let i = 0; i < Math.min(iterations, 2000); i++) await operation()
  const perOperation: number[] = []
  for (let sample = 0; sample < samples; sample++) {
    const start = performance.now()
    for (let i = 0; i < iterations; i++) await operation()
    perOperation.push(((performance.now() - start) * 1000) / iterations)
  }
  return median(perOperation)
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]!
}

export function round(value: number, digits = 3): number {
  const scale = 10 ** digits
  return Math.round(value * scale) / scale
}

/** Every bench prints one JSON object on its last line. */
export function report(name: string, figures: Record<string, unknown>): void {
  console.log(JSON.stringify({ bench: name, ...figures }))
}
