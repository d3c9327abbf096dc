import { describe, expect, it } from 'vitest'
import { extractJson } from './extract-json'
import { MAX_JSON_DEPTH } from './parse-json'
import { partialJsonParser } from './partial-json'

const TRIP = JSON.stringify(
  {
    destination: 'Lisbon, Portugal',
    days: [
      { day: 1, title: 'Alfama & the castle', activities: ['São Jorge', 'Fado at night \u{1F3B8}'], cost: 42.5 },
      { day: 2, title: 'Belém "pastéis"', activities: [], cost: 1e2, booked: true, note: null },
    ],
    tips: 'Wear\tcomfy shoes\nand bring \\ a \u00e9 \ud83d\ude00 jacket / hat',
  },
  null,
  2,
)
const ANSWERS = [
  TRIP,
  '```json\n' + TRIP + '\n```',
  '<think>They want JSON {"no": 1}</think>\n\n```json\n' + TRIP + '\n```\n',
  '  [1, -2.5e-3, "x", true, false, null, {}, [], [[{"a":[0]}]]]  ',
  '"just a string with \\u00e9scapes"',
  '-0.125',
  '{"__proto__": {"polluted": true}, "a": {"a": {"a": 1}}, "a": 2}',
]
const BAD = [
  '{"a": 1',
  '{"a": 1} {"b": 2}',
  '{"a": 1}\nThat is the plan!',
  '{"a": "unterminated',
  '{"a": tru}',
  '{"a": 01}',
  '{"a": 1,}',
  '[1 2]',
  '{"a" 1}',
  '{"a": "line\nbreak"}',
  'Sure! Here is the JSON: {"a": 1}',
  '```json\n{"a": 1}',
  '{"a": 1}\n```',
  '<think>never closed {"a": 1}',
  '{"a": "\\x"}',
  // Space inside a token: an escape, a \u escape's digits, a literal.
  '{"a": "\\ n"}',
  '{"a": "\\u 0041"}',
  '[tr ue]',
  '{"a": "\\u00g1"}',
  '[-]',
  // Numbers JSON does not have, which Number() would read.
  '[1.]',
  '[.5]',
  '[1e]',
  '[1e+]',
  '[+1]',
  '[0x1F]',
  '[-01]',
  '[1_000]',
  '[Infinity]',
  '',
]

function parse(text: string, chunk: number, options: { partialStrings?: boolean } = {}) {
  const parser = partialJsonParser(options)
  const partials: unknown[] = []
  for (let i = 0; i < text.length; i += chunk) {
    parser.push(text.slice(i, i + chunk))
    partials.push(parser.value)
  }
  return { value: parser.end(), partials }
}

describe('PartialJsonParser', () => {
  it.each(ANSWERS)('ends with what JSON.parse reads, whole and at every chunk size: %j', (text) => {
    const expected: unknown = JSON.parse(extractJson(text))
    for (let chunk = 1; chunk <= text.length; chunk++) expect(parse(text, chunk).value).toEqual(expected)
  })

  it('keeps __proto__ an own key, as JSON.parse does', () => {
    const value = parse('{"__proto__": {"polluted": true}}', 3).value as Record<string, unknown>
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype)
    expect(Object.hasOwn(value, '__proto__')).toBe(true)
  })

  it.each(BAD)('refuses what JSON.parse refuses, at every chunk size: %j', (text) => {
    expect(() => JSON.parse(extractJson(text)) as unknown).toThrow()
    for (let chunk = 1; chunk <= Math.max(1, text.length); chunk++)
      expect(() => parse(text, chunk)).toThrow(SyntaxError)
  })

  it('shows complete values only: no half-written strings or numbers', () => {
    const parser = partialJsonParser()
    parser.push('{"city": "Lis')
    expect(parser.value).toEqual({})
    parser.push('bon", "days": 1')
    expect(parser.value).toEqual({ city: 'Lisbon' })
    parser.push('2, "stops": [{"name": "Be')
    expect(parser.value).toEqual({ city: 'Lisbon', days: 12, stops: [{}] })
  })

  it('shows strings as they are written when asked', () => {
    const parser = partialJsonParser({ partialStrings: true })
    parser.push('{"city": "Lis')
    expect(parser.value).toEqual({ city: 'Lis' })
    parser.push('bon", "tags": ["a", "b')
    expect(parser.value).toEqual({ city: 'Lisbon', tags: ['a', 'b'] })
    parser.push('c"]}')
    expect(parser.end()).toEqual({ city: 'Lisbon', tags: ['a', 'bc'] })
  })

  it('copies only the changed path: unchanged containers are the same objects as before', () => {
    const parser = partialJsonParser()
    parser.push('{"done": {"a": [1, 2]}, "open": [{"x": 1}, ')
    const before = parser.value as { done: unknown; open: unknown[] }
    parser.push('{"y": 2}')
    const after = parser.value as { done: unknown; open: unknown[] }
    expect(after).not.toBe(before)
    expect(after.done).toBe(before.done)
    expect(after.open).not.toBe(before.open)
    expect(after.open[0]).toBe(before.open[0])
    expect(before.open).toEqual([{ x: 1 }])
    expect(parser.value).toBe(after)
  })

  it('counts a visible change in version, and nothing else', () => {
    const parser = partialJsonParser()
    parser.push('{"a": "xy')
    const version = parser.version
    parser.push('z')
    expect(parser.version).toBe(version)
    parser.push('"')
    expect(parser.version).toBeGreaterThan(version)
  })

  it('reports each item of a root array once, when it is complete', () => {
    const elements: unknown[] = []
    const parser = partialJsonParser({ onElement: (element) => elements.push(element) })
    parser.push('[{"a": [1]}, 2, "thr')
    expect(elements).toEqual([{ a: [1] }, 2])
    parser.push('ee", null]')
    expect(elements).toEqual([{ a: [1] }, 2, 'three', null])
  })

  it('refuses nesting past the limit without overflowing the stack', () => {
    const parser = partialJsonParser()
    expect(() => parser.push('['.repeat(MAX_JSON_DEPTH + 1))).toThrow(/nested more than 256/)
    const deepest = '['.repeat(MAX_JSON_DEPTH) + ']'.repeat(MAX_JSON_DEPTH)
    expect(parse(deepest, 7).value).toEqual(JSON.parse(deepest))
  })

  it('stays broken after an error', () => {
    const parser = partialJsonParser()
    expect(() => parser.push('{"a": x')).toThrow(SyntaxError)
    expect(() => parser.push('}')).toThrow(SyntaxError)
    expect(() => parser.end()).toThrow(SyntaxError)
  })

  it('is linear: a long reasoning block, string and fence line in small chunks', () => {
    const text =
      '<think>' +
      'hmm '.repeat(250_000) +
      '</think>```json' +
      ' '.repeat(100_000) +
      '\n["' +
      'x'.repeat(1_000_000) +
      '"]```'
    const parser = partialJsonParser()
    for (let i = 0; i < text.length; i += 4) parser.push(text.slice(i, i + 4))
    expect((parser.end() as string[])[0]).toHaveLength(1_000_000)
  })
})
