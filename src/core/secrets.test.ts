import { describe, expect, it } from 'vitest'
import { SecretStreamScrubber } from './secret-stream'
import { REDACTED, registerSecret, scrubAndTruncate, scrubSecrets, scrubSecretsDeep } from './secrets'

const KEY = 'sk-core-test-0123456789abcdefXYZ'
registerSecret(KEY)

describe('registered secrets', () => {
  it('are replaced wherever they appear in text', () => {
    expect(scrubSecrets(`key=${KEY}; again ${KEY}.`)).toBe(`key=${REDACTED}; again ${REDACTED}.`)
  })

  it('ignore values too short to tell from ordinary text', () => {
    registerSecret('abc12')
    registerSecret(undefined)
    registerSecret(42)
    expect(scrubSecrets('abc12 stays')).toBe('abc12 stays')
  })

  it('mask a longer secret whole when it contains a shorter one', () => {
    registerSecret('inner-secret-1')
    registerSecret('outer-inner-secret-1-tail')
    expect(scrubSecrets('x outer-inner-secret-1-tail y')).toBe(`x ${REDACTED} y`)
  })

  it('are scrubbed before a text is cut, so no first characters survive a truncation', () => {
    for (const cut of [10, 20, 30]) {
      const text = 'x'.repeat(cut - 5) + KEY
      expect(scrubAndTruncate(text, cut)).not.toContain(KEY.slice(0, 5))
    }
  })

  it('are scrubbed from every string of plain data, keys included', () => {
    expect(scrubSecretsDeep({ a: [KEY, 1, { [KEY]: `x${KEY}` }], b: null })).toEqual({
      a: [REDACTED, 1, { [REDACTED]: `x${REDACTED}` }],
      b: null,
    })
  })
})

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

describe('opaque provider payloads', () => {
  it('are left as they are when data is scrubbed deep, though they hold a registered secret', () => {
    const value = {
      item: { type: 'reasoning', encrypted_content: `blob${KEY}`, summary: [{ text: KEY }] },
      block: { type: 'thinking', thinking: KEY, signature: `sig${KEY}` },
      redacted: { type: 'redacted_thinking', data: `data${KEY}` },
    }
    expect(scrubSecretsDeep(value)).toEqual({
      item: { type: 'reasoning', encrypted_content: `blob${KEY}`, summary: [{ text: REDACTED }] },
      block: { type: 'thinking', thinking: REDACTED, signature: `sig${KEY}` },
      redacted: { type: 'redacted_thinking', data: `data${KEY}` },
    })
  })

  it('are strings only: an object under such a key is scrubbed like any other', () => {
    expect(scrubSecretsDeep({ signature: { value: KEY } })).toEqual({ signature: { value: REDACTED } })
  })
})
