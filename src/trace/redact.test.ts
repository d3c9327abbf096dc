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

describe('Redactor: which keys name a secret', () => {
  it('masks values under keys that name a secret by one of their words, in any case and spelling', () => {
    const keys = ['user_secret', 'clientSecret', 'x-api-key', 'OPENAI_API_KEY', 'apiKey', 'APIKey', 'refresh-token']
    keys.push('token', 'accessToken', 'id_token', 'token_type', 'X-Token')
    keys.push('Set-Cookie', 'DB_PASSWORD', 'privateKey', 'access_key', 'auth', 'credentials', 'Proxy-Authorization')
    const redactor = new Redactor()
    for (const key of keys) expect([key, redactor.isSecretKey(key)]).toEqual([key, true])
  })

  it('leaves keys whose words only look like one: token counts, a cache key, a tokenizer, a passage', () => {
    const keys = ['max_tokens', 'budget_tokens', 'completionTokens', 'cache_key', 'keyword', 'tokenizer', 'passage']
    keys.push('author', 'monkey', 'secretary', 'timeToFirstTokenMs', 'time_to_first_token', 'token_count', 'TokenLimit')
    keys.push('ms_per_token', 'lastTokenAt')
    const redactor = new Redactor()
    for (const key of keys) expect([key, redactor.isSecretKey(key)]).toEqual([key, false])
  })

  it('masks a secret key in tool arguments even when the JSON spells it with escapes', () => {
    expect(JSON.parse(new Redactor().arguments('{"pass\\u0077ord":"hunter2"}'))).toEqual({ password: REDACTED })
  })
})

describe('Redactor: built-in patterns', () => {
  it('masks a key whole however long it is', () => {
    const key = `sk-proj-${'Ab3_-'.repeat(60)}`
    expect(new Redactor().text(`key ${key} end`)).toBe(`key ${REDACTED} end`)
  })

  it('masks every kind of key whole, a bearer token with any of its characters (_ ~ + / . =) included', () => {
    const redactor = new Redactor()
    for (const key of [
      `sk-ant-api03-${'a_B-'.repeat(30)}`,
      `gsk_${'A1'.repeat(26)}`,
      `AIza${'b_C-'.repeat(9)}`,
      `hf_${'x9'.repeat(17)}`,
      'Bearer abc_def~ghi+jkl/mno.pqr==',
      `Bearer sk-${'z'.repeat(20)}`,
    ])
      expect(redactor.text(`(${key}) and more`)).toBe(`(${REDACTED}) and more`)
  })

  it('leaves a base64url blob that happens to hold a marker and 16 more characters', () => {
    const blob = 'gAAAAABo0aK1-sk-AAAAAAAAAAAAAAAAAAAA_gsk_BBBBBBBBBBBBBBBBBBBBBB-hf_CCCCCCCCCCCCCCCCCCCCCC=='
    expect(new Redactor().text(blob)).toBe(blob)
  })

  it('tells where a key that runs to the end of the text begins, and -1 when none does', () => {
    const redactor = new Redactor()
    expect(redactor.openSecretAt(`text sk-${'a'.repeat(20)}`)).toBe(5)
    expect(redactor.openSecretAt(`text sk-${'a'.repeat(20)} more`)).toBe(-1)
    expect(redactor.openSecretAt(`sk-${'a'.repeat(20)} and hf_abc`)).toBe(`sk-${'a'.repeat(20)} and `.length)
    expect(redactor.openSecretAt('Bearer abcdefghijklmnop==')).toBe(0)
    expect(redactor.openSecretAt('x-sk-abcdefghijklmnopqrstu')).toBe(-1)
  })
})

describe('Redactor: schemas and opaque payloads', () => {
  it('keeps the fields of a schema (a password field is no secret), masks its texts, keys, secret-named values and the example values of a secret field', () => {
    const redactor = new Redactor({ values: [/tok-\d+/g] })
    const schema = {
      type: 'object',
      description: 'Logs in with tok-123',
      properties: {
        password: { type: 'string', minLength: 8, default: 'pw', enum: ['a', 'b'] },
        'tok-9': { type: 'string' },
        nested: {
          type: 'object',
          properties: { token: { type: 'string', description: 'a tok-456', const: 'x' }, name: { default: 'ann' } },
        },
      },
      required: ['password'],
      $defs: { apiKey: { type: 'string', examples: ['k'] } },
      'x-api-key': 'schema-extension-secret',
    }
    expect(redactor.data(schema, 'schema')).toEqual({
      type: 'object',
      description: `Logs in with ${REDACTED}`,
      properties: {
        password: { type: 'string', minLength: 8, default: REDACTED, enum: REDACTED },
        [REDACTED]: { type: 'string' },
        nested: {
          type: 'object',
          properties: {
            token: { type: 'string', description: `a ${REDACTED}`, const: REDACTED },
            name: { default: 'ann' },
          },
        },
      },
      required: ['password'],
      $defs: { apiKey: { type: 'string', examples: REDACTED } },
      'x-api-key': REDACTED,
    })
  })

  it('keeps the opaque payloads of message metadata as they are, and masks them in other data', () => {
    const redactor = new Redactor({ values: [/A{8}/g] })
    const metadata = {
      items: [{ type: 'reasoning', encrypted_content: 'gAAAAAAAAAA==', summary: [{ text: 'AAAAAAAA' }] }],
      blocks: [
        { type: 'thinking', thinking: 'AAAAAAAA', signature: 'sigAAAAAAAA' },
        { type: 'redacted_thinking', data: 'AAAAAAAAAA' },
      ],
      part: { thoughtSignature: 'AAAAAAAAA' },
    }
    expect(redactor.data(metadata, 'metadata')).toEqual({
      items: [{ type: 'reasoning', encrypted_content: 'gAAAAAAAAAA==', summary: [{ text: REDACTED }] }],
      blocks: [
        { type: 'thinking', thinking: REDACTED, signature: 'sigAAAAAAAA' },
        { type: 'redacted_thinking', data: 'AAAAAAAAAA' },
      ],
      part: { thoughtSignature: 'AAAAAAAAA' },
    })
    expect(JSON.stringify(redactor.data(metadata))).not.toContain('AAAAAAAA')
  })

  it('masks keys as text too', () => {
    expect(new Redactor({ values: [/sec-\d+/g] }).data({ 'sec-42': 1 })).toEqual({ [REDACTED]: 1 })
  })
})
