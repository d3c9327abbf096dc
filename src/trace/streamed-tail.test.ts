import { describe, expect, it } from 'vitest'
import { REDACTED, Redactor } from './redact'
import { StreamedTail } from './streamed-tail'
import { seeded, textWithSecrets } from './testing/random-text'
import { referenceMask } from './testing/reference-mask'

function randomChunks(text: string, random: () => number): string[] {
  const chunks: string[] = []
  for (let at = 0; at < text.length;) {
    const size = 1 + Math.floor(random() * (random() < 0.1 ? 200 : 6))
    chunks.push(text.slice(at, at + size))
    at += size
  }
  return chunks
}

const secrets = [
  'sk-abcdefghijklmnopqrstuvwx',
  // As long as an OpenAI project key: longer than the 64 characters before a chunk.
  `sk-proj-${'aB3_-'.repeat(31)}`,
  'Bearer abcdefghijklmnop',
  'hf_abcdefghijklmnopqrstuvw',
  'sk-short',
  'Bear',
]

describe('StreamedTail', () => {
  it('masks a chunk exactly when it holds a secret with the 64 characters before it, or with a secret it carries on', () => {
    const random = seeded(7)
    const redactors = [new Redactor(), new Redactor({ values: [/4242/] })]
    let masked = 0
    for (let trial = 0; trial < 400; trial++) {
      const text = textWithSecrets(random, secrets, 600)
      const chunks = randomChunks(text, random)
      for (const redactor of redactors) {
        const tail = new StreamedTail(redactor)
        const expected = chunks.map(referenceMask(redactor))
        expect(chunks.map((chunk) => tail.mask(chunk))).toEqual(expected)
        masked += expected.filter((chunk) => chunk === REDACTED).length
      }
    }
    expect(masked).toBeGreaterThan(1000)
  })

  it('masks consecutive chunks joined exactly as it masks them one by one', () => {
    const random = seeded(13)
    const redactors = [new Redactor(), new Redactor({ values: [/4242/] })]
    let joinedChecks = 0
    let masked = 0
    for (let trial = 0; trial < 300; trial++) {
      const text = textWithSecrets(random, secrets, 1200, { secret: 0.04, pattern: 0.01 })
      const chunks = randomChunks(text, random)
      for (const redactor of redactors) {
        const oneByOne = new StreamedTail(redactor)
        const joined = new StreamedTail(redactor)
        const expected = chunks.map((chunk) => oneByOne.mask(chunk)).join('')
        let shown = ''
        for (let at = 0; at < chunks.length;) {
          const size = random() < 0.3 ? 1 : 1 + Math.floor(random() * 40)
          shown += size === 1 ? joined.mask(chunks[at]!) : joined.maskJoined(chunks.slice(at, at + size))
          joinedChecks += size === 1 ? 0 : 1
          at += size
        }
        expect(shown).toBe(expected)
        masked += expected.split(REDACTED).length - 1
      }
    }
    expect(joinedChecks).toBeGreaterThan(2000)
    expect(masked).toBeGreaterThan(500)
  })

  it("masks every chunk of a key far longer than the text it keeps, to the key's end, in 4-character chunks", () => {
    const key = `sk-proj-${'x7Y_-'.repeat(1000)}`
    const text = `my key is ${key} and the weather is fine`
    const chunks = text.match(/.{1,4}/gs)!
    const tail = new StreamedTail(new Redactor())
    const shown = chunks.map((chunk) => tail.mask(chunk))
    const [first, ...after] = shown.join('').split(REDACTED)
    // Only the chunks before the marker is whole are shown: none of the key's body, then masks to its end.
    expect(first).toBe('my key is sk')
    expect(after.slice(0, -1).join('')).toBe('')
    expect(after.at(-1)).toMatch(/^[a-z ]*weather is fine$/)
  })

  it('forgets the previous response when reset', () => {
    const redactor = new Redactor()
    const tail = new StreamedTail(redactor)
    expect(tail.mask('my key is sk-abcdefghij')).toBe(REDACTED)
    tail.reset()
    expect(tail.mask('klmnopqrstuvwx')).toBe('klmnopqrstuvwx')
  })
})
