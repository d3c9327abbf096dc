import { describe, expect, it } from 'vitest'
import { extractJson } from './extract-json'
import { MAX_JSON_DEPTH, parseJson } from './parse-json'
import { parseEntity } from './parse-entity'
import { OutputParseError } from './output-parse-error'
import { resolveSchema } from './schema'

describe('extractJson', () => {
  it.each([
    ['{"a":1}', '{"a":1}'],
    ['  {"a":1}  ', '{"a":1}'],
    ['```json\n{"a":1}\n```', '{"a":1}'],
    ['```\n{"a":1}\n```', '{"a":1}'],
    ['```json\r\n{"a":1}\r\n```  ', '{"a":1}'],
    ['```{"a":1}```', '{"a":1}'],
    ['``````', ''],
    ['```', '```'],
    ['````', '````'],
    ['Here it is: ```json\n{}\n```', 'Here it is: ```json\n{}\n```'],
    ['<think>hmm, {"no":1}</think>\n```json\n{"a":1}\n```', '{"a":1}'],
    ['  <think>x</think>{"a":1}', '{"a":1}'],
    ['<think>never closed {"a":1}', '<think>never closed {"a":1}'],
  ])('reads %j as %j', (text, json) => {
    expect(extractJson(text)).toBe(json)
  })

  it.each([
    ['a fence followed by spaces', '```json' + ' '.repeat(2_000_000)],
    ['a fence followed by newlines', '```\n' + '\n'.repeat(2_000_000) + 'x'],
    ['an unclosed think block', '<think>' + 'a'.repeat(2_000_000)],
    ['two fences around spaces', '```' + ' '.repeat(2_000_000) + '```'],
  ])('takes linear time on %s', (_label, text) => {
    const started = performance.now()
    extractJson(text)
    // Linear work is a few milliseconds; the old backtracking pattern took minutes on this input.
    expect(performance.now() - started).toBeLessThan(1000)
  })
})

describe('parseJson', () => {
  const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth)

  it(`parses JSON nested ${MAX_JSON_DEPTH} levels deep`, () => {
    expect(() => parseJson(nested(MAX_JSON_DEPTH))).not.toThrow()
  })

  it('refuses deeper nesting with a SyntaxError that says so', () => {
    expect(() => parseJson(nested(MAX_JSON_DEPTH + 1))).toThrow(
      new SyntaxError(`JSON nested more than ${MAX_JSON_DEPTH} levels deep`),
    )
  })

  it('does not count brackets inside strings', () => {
    expect(parseJson(JSON.stringify({ text: '['.repeat(1000) + '\\"{' }))).toEqual({ text: '['.repeat(1000) + '\\"{' })
  })

  it('turns a 10,000-deep answer into an OutputParseError, not a RangeError', async () => {
    const text = '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000)
    const error: unknown = await parseEntity(text, resolveSchema({ type: 'object' }, 'output')).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(OutputParseError)
    expect((error as OutputParseError).message).toBe(
      `The model's answer is not valid JSON (JSON nested more than ${MAX_JSON_DEPTH} levels deep)`,
    )
    expect((error as OutputParseError).text).toBe(text)
  })
})
