import { describe, expect, it, vi } from 'vitest'
import type { JsonSchema } from '../core'
import { resolveSchema } from './schema'

// Counts how often the lazy ajv path is loaded.
const lazyPath = vi.hoisted(() => ({ loads: 0 }))
vi.mock('./ajv-validator', async (importOriginal) => {
  lazyPath.loads++
  return importOriginal()
})

const toolArguments: JsonSchema = {
  type: 'object',
  properties: {
    city: { type: 'string', minLength: 1 },
    unit: { enum: ['celsius', 'fahrenheit'] },
    days: { type: 'integer', minimum: 1, maximum: 7 },
  },
  required: ['city'],
  additionalProperties: false,
}

describe('resolving a JSON Schema', () => {
  it('validates at once, without loading anything, when the fast validator takes the schema', async () => {
    const resolved = resolveSchema(toolArguments, 'input')
    await expect(resolved.validate({ city: 'Oslo', days: 3 })).resolves.toEqual({
      ok: true,
      value: { city: 'Oslo', days: 3 },
    })
    await expect(resolved.validate({ city: 'Oslo', days: 9, wind: true })).resolves.toEqual({
      ok: false,
      issues: [
        { path: '', message: "must NOT have additional properties: 'wind'" },
        { path: '/days', message: 'must be <= 7' },
      ],
    })
    expect('prepare' in resolved, 'nothing to prepare').toBe(false)
    await expect(resolved.validate({ city: '' })).resolves.toEqual({
      ok: false,
      issues: [{ path: '/city', message: 'must NOT have fewer than 1 characters' }],
    })
    expect(lazyPath.loads).toBe(0)
  })

  it('compiles a schema object once: every resolve of the same object shares its validator', async () => {
    const schema: JsonSchema = { type: 'object', properties: { n: { type: 'integer' } } }
    const first = resolveSchema(schema, 'output')
    expect(resolveSchema(schema, 'output')).toBe(first)
    expect(resolveSchema(schema, 'input')).toBe(first)
    expect(resolveSchema({ ...schema }, 'output')).not.toBe(first)
    await expect(first.validate({ n: 1.5 })).resolves.toMatchObject({ ok: false })
  })

  it('loads ajv with the first check of a schema the fast validator leaves to it', async () => {
    const resolved = resolveSchema({ if: { type: 'string' }, then: { minLength: 2 } }, 'input')
    expect(lazyPath.loads, 'nothing is loaded before the first check').toBe(0)
    await expect(resolved.validate('a')).resolves.toEqual({
      ok: false,
      issues: [
        { path: '', message: 'must NOT have fewer than 2 characters' },
        { path: '', message: 'must match "then" schema' },
      ],
    })
    expect(lazyPath.loads).toBe(1)
    await expect(resolved.validate('ab')).resolves.toEqual({ ok: true, value: 'ab' })
  })

  it('reports a schema ajv rejects when a value is validated, as before', async () => {
    const resolved = resolveSchema({ type: 'string', pattern: '(' }, 'input')
    await expect(resolved.validate('a')).rejects.toThrow(/Invalid regular expression/)
  })
})
