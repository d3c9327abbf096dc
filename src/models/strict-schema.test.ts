import { describe, expect, it } from 'vitest'
import type { JsonSchema } from '../core'
import { toOpenAIRequest } from './openai-request'
import { toResponsesRequest } from './openai-responses-mapping'
import { isStrictSchema } from './strict-schema'

const closed: JsonSchema = {
  type: 'object',
  properties: {
    city: { type: 'string' },
    days: {
      type: 'array',
      items: {
        type: 'object',
        properties: { temp: { type: 'number' } },
        required: ['temp'],
        additionalProperties: false,
      },
    },
  },
  required: ['city', 'days'],
  additionalProperties: false,
}

describe('a response schema sent as strict', () => {
  it('is a closed object with every property required, all the way down', () => {
    expect(isStrictSchema(closed)).toBe(true)
  })

  it('is not an open object, one with an optional property, or one with keywords strict mode refuses', () => {
    expect(isStrictSchema({ ...closed, additionalProperties: true })).toBe(false)
    expect(isStrictSchema({ ...closed, required: ['city'] })).toBe(false)
    expect(
      isStrictSchema({
        ...closed,
        properties: { ...(closed['properties'] as object), note: { type: 'string', minLength: 1 } },
        required: ['city', 'days', 'note'],
      }),
    ).toBe(false)
    expect(isStrictSchema({ type: 'array', items: { type: 'string' } })).toBe(false)
  })

  it('goes to OpenAI with strict: true, and any other schema with strict: false, unless the request says', () => {
    const format = (schema: JsonSchema, strict?: boolean) => {
      const body = toOpenAIRequest(
        'm',
        [],
        { responseFormat: { type: 'json_schema', schema, ...(strict === undefined ? {} : { strict }) } },
        false,
      )
      return (body['response_format'] as { json_schema: { strict: boolean } }).json_schema.strict
    }
    expect(format(closed)).toBe(true)
    expect(format({ type: 'object', properties: { a: { type: 'string' } } })).toBe(false)
    expect(format(closed, false)).toBe(false)
  })

  it('goes to the Responses API the same way', () => {
    const body = toResponsesRequest('m', [], { responseFormat: { type: 'json_schema', schema: closed } }, false)
    expect(body['text']).toMatchObject({ format: { type: 'json_schema', strict: true } })
  })
})
