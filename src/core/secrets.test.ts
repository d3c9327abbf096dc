import { describe, expect, it } from 'vitest'
import { REDACTED, registerSecret, scrubAndTruncate, scrubSecrets } from './secrets'

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
})
