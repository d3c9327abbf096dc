import { describe, expect, it } from 'vitest'
import { registerSecret } from '../core'
import { Redactor, REDACTED } from './redact'
import { cassetteFromTrace } from './cassette'
import { toOtlp } from './otlp'
import { sampleRun } from './testing/sample-trace'

describe('Redactor', () => {
  it('masks values under secret keys in tool arguments, keeping the rest', () => {
    const masked = new Redactor().arguments('{"user":"ann","password":"pw-123","nested":{"apiKey":"k"}}')
    expect(JSON.parse(masked)).toEqual({ user: 'ann', password: REDACTED, nested: { apiKey: REDACTED } })
  })

  it('leaves arguments without secret keys as they were, byte for byte', () => {
    expect(new Redactor().arguments('{ "city" : "Porto" }')).toBe('{ "city" : "Porto" }')
  })

  it('masks custom keys in tool arguments, by name and by pattern', () => {
    const byName = new Redactor({ keys: ['SSN'] }).arguments('{"ssn":"123"}')
    const byPattern = new Redactor({ keys: [/^pin/] }).arguments('{"pinCode":"1234"}')
    expect([JSON.parse(byName), JSON.parse(byPattern)]).toEqual([{ ssn: REDACTED }, { pinCode: REDACTED }])
  })

  it('keeps keys a built-in rule names when told they are not secrets here', () => {
    const redactor = new Redactor({ keep: ['Token'] })
    expect(JSON.parse(redactor.arguments('{"token":"page-2","password":"pw"}'))).toEqual({
      token: 'page-2',
      password: REDACTED,
    })
  })

  it('masks text in arguments that are not JSON', () => {
    expect(new Redactor().arguments('password: sk-abcdefghijklmnopqrstu')).toBe(`password: ${REDACTED}`)
  })

  it('matches consecutive keys with a custom rule that has the g flag', () => {
    const redactor = new Redactor({ keys: [/ssn/g, /pin/y] })
    expect(redactor.data({ ssn: '1', a: { ssn: '2' }, b: { ssn: '3' }, pin: '4', c: { pin: '5' } })).toEqual({
      ssn: REDACTED,
      a: { ssn: REDACTED },
      b: { ssn: REDACTED },
      pin: REDACTED,
      c: { pin: REDACTED },
    })
  })

  it('masks every match of a custom value rule, consecutive ones and sticky ones included', () => {
    const redactor = new Redactor({ values: [/\d{4}/g, /x+/y] })
    expect(redactor.text('12345678 ab 9999 xx x')).toBe(`${REDACTED}${REDACTED} ab ${REDACTED} ${REDACTED} ${REDACTED}`)
    expect(redactor.text('1111 2222')).toBe(`${REDACTED} ${REDACTED}`)
  })

  it('masks registered secrets in text and data', () => {
    registerSecret('registered-ZZZ-0987654321')
    const redactor = new Redactor()
    expect(redactor.text('a registered-ZZZ-0987654321 b')).toBe(`a ${REDACTED} b`)
    expect(redactor.data({ note: ['registered-ZZZ-0987654321'] })).toEqual({ note: [REDACTED] })
  })
})

describe('exports scrub registered secrets', () => {
  it('keeps a registered secret out of cassettes and OTLP spans built from an imported trace', () => {
    const secret = 'imported-secret-QWERTY-112233'
    registerSecret(secret)
    const events = sampleRun({ question: `my key is ${secret}`, answer: `It is ${secret}.`, toolResult: secret })
    expect(JSON.stringify(events)).toContain(secret)
    expect(JSON.stringify(cassetteFromTrace(events))).not.toContain(secret)
    expect(JSON.stringify(toOtlp(events))).not.toContain(secret)
  })
})

describe('Redactor: the shortest secrets', () => {
  it('masks the shortest text each built-in pattern matches, and leaves one character less alone', () => {
    const redactor = new Redactor()
    const shortest = [
      'sk-' + 'a'.repeat(16),
      'gsk_' + 'a'.repeat(20),
      'AIza' + 'a'.repeat(30),
      'hf_' + 'a'.repeat(20),
      'Bearer ' + 'a'.repeat(12),
    ]
    for (const secret of shortest) {
      expect(redactor.text(secret)).toBe(REDACTED)
      expect(redactor.text(secret.slice(0, -1))).toBe(secret.slice(0, -1))
    }
  })
})
