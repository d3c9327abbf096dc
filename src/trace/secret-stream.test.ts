import { describe, expect, it } from 'vitest'
import { REDACTED, registerSecret } from '../core'
import { SecretStreamScrubber } from './secret-stream'

const KEY = 'sk-core-test-0123456789abcdefXYZ'
registerSecret(KEY)

describe('SecretStreamScrubber', () => {
  const stream = (pieces: string[]) => {
    const scrubber = new SecretStreamScrubber()
    const shown = pieces.map((piece) => scrubber.push(piece))
    shown.push(scrubber.flush())
    return shown
  }

  it.each([1, 2, 3, 7])('masks a secret streamed in pieces of %i characters, leaking none of it', (size) => {
    const text = `Your key is ${KEY}, keep it safe.`
    const pieces = text.match(new RegExp(`[\\s\\S]{1,${size}}`, 'g'))!
    const shown = stream(pieces)
    expect(shown.join('')).toBe(`Your key is ${REDACTED}, keep it safe.`)
    for (const piece of shown) expect(KEY.startsWith(piece) && piece.length > 1).toBe(false)
    expect(shown.join('')).not.toContain(KEY.slice(0, 4))
  })

  it('lets through text that only began like a secret', () => {
    expect(stream(['an sk-', 'core', ' thing']).join('')).toBe('an sk-core thing')
  })

  it('gives back what it held at the end of the stream', () => {
    const shown = stream(['ends with sk-co'])
    expect(shown[0]).toBe('ends with ')
    expect(shown.at(-1)).toBe('sk-co')
  })
})
