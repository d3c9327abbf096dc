// Randomized tests of streamed-secret masking: reproducible random numbers, and text with secrets
// (and the app's own pattern `4242`) scattered through ordinary words.

/** A reproducible source of numbers in [0, 1). */
export function seeded(seed: number): () => number {
  return () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648
}

const FILLER = 'The weather is fine and the answer is 42. '

/** At least `length` characters of filler with `secrets` and `4242` among them, each at its rate per piece. */
export function textWithSecrets(
  random: () => number,
  secrets: readonly string[],
  length: number,
  rates = { secret: 0.2, pattern: 0.05 },
): string {
  let text = ''
  while (text.length < length) {
    text +=
      random() < rates.secret ? secrets[Math.floor(random() * secrets.length)] : FILLER.slice(0, 1 + random() * 43)
    if (random() < rates.pattern) text += '4242'
  }
  return text
}
