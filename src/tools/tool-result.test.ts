import { describe, expect, it } from 'vitest'
import { encodeResult } from './tool-result'
import { ToolCallError } from './tool-errors'

describe('encodeResult', () => {
  it('keeps strings, JSON-encodes other values and turns undefined and null into ""', () => {
    expect(encodeResult('plain', 't')).toBe('plain')
    expect(encodeResult({ a: 1 }, 't')).toBe('{"a":1}')
    expect(encodeResult(42, 't')).toBe('42')
    expect(encodeResult(false, 't')).toBe('false')
    expect(encodeResult(undefined, 't')).toBe('')
    expect(encodeResult(null, 't')).toBe('')
  })

  it.each([
    ['function', () => 1],
    ['symbol', Symbol('s')],
  ])('refuses a %s with a ToolCallError naming the tool', (kind, value) => {
    expect(() => encodeResult(value, 'calc')).toThrow(ToolCallError)
    expect(() => encodeResult(value, 'calc')).toThrow(
      `tool 'calc' returned a ${kind}, which cannot be sent to the model; return a string or JSON-encodable data`,
    )
  })

  it('refuses a bigint, a cycle and a throwing toJSON with the encoder’s reason', () => {
    const cycle: Record<string, unknown> = {}
    cycle['self'] = cycle
    const hostile = {
      toJSON() {
        throw new Error('no')
      },
    }
    for (const value of [10n, cycle, hostile]) {
      expect(() => encodeResult(value, 'calc')).toThrow(
        /^tool 'calc' returned a value that cannot be encoded as JSON \(.+\); return a string or JSON-encodable data$/,
      )
    }
  })
})
