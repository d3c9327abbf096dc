import { describe, expect, it } from 'vitest'
import { VectorIndex } from './vector-index'

const v = (...values: number[]) => Float32Array.from(values)

function indexOf(entries: Array<[string, number[], Record<string, unknown>?]>): VectorIndex {
  const index = new VectorIndex(entries[0]![1].length, 2)
  for (const [id, vector, metadata] of entries)
    index.upsert({ id, text: id, ...(metadata ? { metadata } : {}) }, v(...vector))
  return index
}

describe('VectorIndex', () => {
  const index = () =>
    indexOf([
      ['east', [1, 0, 0]],
      ['north-east', [1, 1, 0], { lang: 'en' }],
      ['north', [0, 1, 0], { lang: 'fr' }],
      ['west', [-1, 0, 0]],
      ['up', [0, 0, 5]],
    ])

  it('ranks documents by cosine similarity, best first, ignoring vector lengths', () => {
    const found = index().search(v(2, 0, 0), 3, Number.NEGATIVE_INFINITY)
    expect(found.map((document) => document.id)).toEqual(['east', 'north-east', 'north'])
    expect(found[0]!.score).toBeCloseTo(1)
    expect(found[1]!.score).toBeCloseTo(Math.SQRT1_2)
  })

  it('keeps at most topK and nothing under minScore', () => {
    expect(
      index()
        .search(v(1, 0, 0), 10, 0.5)
        .map((document) => document.id),
    ).toEqual(['east', 'north-east'])
    expect(
      index()
        .search(v(1, 0, 0), 1, -1)
        .map((document) => document.id),
    ).toEqual(['east'])
    expect(index().search(v(1, 0, 0), 0, -1)).toEqual([])
  })

  it('filters on metadata, handing {} for a document without', () => {
    const seen: unknown[] = []
    const found = index().search(v(1, 1, 0), 5, -1, (metadata) => {
      seen.push(metadata)
      return metadata['lang'] === 'fr'
    })
    expect(found.map((document) => document.id)).toEqual(['north'])
    expect(seen).toContainEqual({})
  })

  it('replaces a document with the same id, and deletes by moving the last row into the hole', () => {
    const changed = index()
    changed.upsert({ id: 'east', text: 'now west' }, v(-1, 0, 0))
    expect(changed.search(v(1, 0, 0), 1, -2)[0]!.id).toBe('north-east')
    expect(changed.delete('north-east')).toBe(true)
    expect(changed.delete('missing')).toBe(false)
    expect(changed.size).toBe(4)
    expect(changed.search(v(0, 0, 1), 1, -2)[0]).toMatchObject({ id: 'up' })
    expect(new Set(changed.search(v(1, 0, 0), 5, -2).map((document) => document.id))).toEqual(
      new Set(['north', 'up', 'east', 'west']),
    )
  })

  it('finds nothing for a zero query vector', () => {
    expect(index().search(v(0, 0, 0), 3, -1)).toEqual([])
  })

  it('matches a plain cosine over many random vectors', () => {
    const dimensions = 37
    const big = new VectorIndex(dimensions)
    const rows: Float32Array[] = []
    let seed = 7
    const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647) * 2 - 1
    for (let i = 0; i < 500; i++) {
      const vector = Float32Array.from({ length: dimensions }, random)
      rows.push(vector)
      big.upsert({ id: `d${i}`, text: '' }, vector)
    }
    const query = Float32Array.from({ length: dimensions }, random)
    const cosine = (a: Float32Array, b: Float32Array) => {
      let dot = 0,
        na = 0,
        nb = 0
      for (let i = 0; i < a.length; i++) {
        dot += a[i]! * b[i]!
        na += a[i]! * a[i]!
        nb += b[i]! * b[i]!
      }
      return dot / Math.sqrt(na * nb)
    }
    const expected = rows
      .map((row, i) => ({ id: `d${i}`, score: cosine(row, query) }))
      .sort((a, b) => b.score - a.score)
      .slice(0, 10)
    const found = big.search(query, 10, -1)
    expect(found.map((document) => document.id)).toEqual(expected.map((document) => document.id))
    found.forEach((document, i) => expect(document.score).toBeCloseTo(expected[i]!.score, 5))
  })
})
