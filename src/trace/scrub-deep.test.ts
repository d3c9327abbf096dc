import { describe, expect, it } from 'vitest'
import { REDACTED, registerSecret } from '../core'
import { scrubSecretsDeep } from './scrub-deep'

const KEY = 'sk-core-test-0123456789abcdefXYZ'
registerSecret(KEY)

describe('registered secrets in plain data', () => {
  it('are scrubbed from every string of plain data, keys included', () => {
    expect(scrubSecretsDeep({ a: [KEY, 1, { [KEY]: `x${KEY}` }], b: null })).toEqual({
      a: [REDACTED, 1, { [REDACTED]: `x${REDACTED}` }],
      b: null,
    })
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
